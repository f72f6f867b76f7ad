"""Previewing unsaved rules (``suite.engine.preview``): a preview shows exactly what saving the draft and labelling
would store, on the demo suite and on the real DFKI de-en suite with the WMT21 outputs."""
from __future__ import annotations

import random
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reviewing import review_output
from sqlalchemy import delete, event, insert, select

from store import Database, open_database
from store.domain import Label, Polarity
from store.models import Item, KnownTranslation, Output, Rule
from suite.demo import create_demo
from suite.editing.api import find_item
from suite.engine.labelling import relabel
from suite.engine.labels import automatic_label, join_labels
from suite.engine.preview import (
    Draft,
    DraftKnown,
    DraftRule,
    PreviewSession,
    draft_of,
    ordered_flips,
    preview_item,
    preview_scope,
)
from suite.engine.rules import ItemMatcher, ItemRule, KnownSpec, RuleSpec, compile_error
from suite.errors import TsqeError
from suite.importers import import_outputs, import_suite
from suite.tasks import Cancelled, TaskState


@pytest.fixture(scope="module")
def pristine_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The labelled demo suite in a file that tests copy before changing anything."""
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    db = open_database(path)
    create_demo(db)
    db.close()
    return path


def _copy(pristine: Path, directory: Path) -> Database:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / "copy.sqlite"
    shutil.copyfile(pristine, target)
    for suffix in ("-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    return open_database(target)


@pytest.fixture
def demo(pristine_demo: Path, tmp_path: Path) -> Iterator[Database]:
    db = _copy(pristine_demo, tmp_path)
    yield db
    db.close()


def _blank(rule: DraftRule) -> bool:
    """A new rule with nothing typed yet, which is not a rule: saving leaves it out."""
    return rule.rule_id is None and not rule.spec.pattern.strip()


def save(db: Database, drafts: dict[int, Draft]) -> None:
    """Store each draft as the item's rules and known translations, the way an editor would save it."""
    with db.transaction() as session:
        for item_id, draft in drafts.items():
            kept = {rule.rule_id for rule in draft.rules if rule.rule_id is not None}
            session.execute(delete(Rule).where(Rule.item_id == item_id, Rule.id.not_in(kept)))
            for position, rule in enumerate(r for r in draft.rules if not _blank(r)):
                error = compile_error(rule.spec.pattern, rule.spec.ignore_case)
                fields = {"polarity": rule.spec.polarity, "pattern": rule.spec.pattern,
                          "ignore_case": rule.spec.ignore_case, "valid": error is None, "error": error,
                          "position": position}
                stored = session.get(Rule, rule.rule_id) if rule.rule_id is not None else None
                if stored is None:
                    session.add(Rule(item_id=item_id, **fields))
                else:
                    for name, value in fields.items():
                        setattr(stored, name, value)
            session.execute(delete(KnownTranslation).where(KnownTranslation.item_id == item_id))
            session.add_all(KnownTranslation(item_id=item_id, kind=known.kind, text=known.text)
                            for known in draft.known)


def stored_labels(db: Database, item_ids: list[int] | None = None) -> dict[int, str | None]:
    """Output id -> stored automatic label."""
    with db.session() as session:
        query = join_labels(select(Output.id, automatic_label(Output.id)), Output.id, Output.item_id)
        if item_ids is not None:
            query = query.where(Output.item_id.in_(item_ids))
        return {output_id: label for output_id, label in session.execute(query)}


def outputs_of(db: Database, item_id: int) -> list[str]:
    with db.session() as session:
        return list(session.scalars(select(Output.text).where(Output.item_id == item_id).order_by(Output.id)))


def demo_item_ids(db: Database) -> list[int]:
    with db.session() as session:
        return list(session.scalars(select(Item.id).order_by(Item.position)))


# --- random drafts ---------------------------------------------------------------------------------------

PATTERN_PIECES = [r"\bthe\b", r"\w+ed\b", r"(", r"[a-z]+ing", r"^The", r"\.$", r"\b(he|she|it)\b", r"x{0}", ""]


@st.composite
def drafts(draw: st.DrawFn, stored: Draft, outputs: list[str]) -> Draft:
    """The stored draft with random rules and known translations added, removed, changed and reordered;
    patterns and known translations come from the item's own outputs so that they match now and then."""
    words = sorted({word for text in outputs for word in text.split()}) or ["the"]
    pattern = st.one_of(st.sampled_from(PATTERN_PIECES), st.sampled_from(words).map(lambda w: w.strip(".,")),
                        st.sampled_from(words).map(lambda w: rf"\b{w.strip('.,')}"))
    new_rule = st.builds(DraftRule,
                         st.builds(RuleSpec, st.sampled_from(["positive", "negative"]), pattern, st.booleans()))
    rules = list(stored.rules)
    known = list(stored.known)
    for _ in range(draw(st.integers(0, 4))):
        action = draw(st.sampled_from(["add", "remove", "change", "swap", "known", "unknown"]))
        if action == "add":
            rules.insert(draw(st.integers(0, len(rules))), draw(new_rule))
        elif action == "remove" and rules:
            rules.pop(draw(st.integers(0, len(rules) - 1)))
        elif action == "change" and rules:
            index = draw(st.integers(0, len(rules) - 1))
            changed = draw(new_rule)
            rules[index] = DraftRule(changed.spec, rules[index].rule_id)
        elif action == "swap" and len(rules) > 1:
            rules.reverse()
        elif action == "known" and outputs:
            text = draw(st.sampled_from(outputs))
            known.append(DraftKnown(draw(st.sampled_from(["good", "bad"])),
                                    draw(st.sampled_from([text, f"  {text} ", text.replace(" ", "  ")]))))
        elif action == "unknown" and known:
            known.pop(draw(st.integers(0, len(known) - 1)))
    return Draft(tuple(rules), tuple(known))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_preview_gives_exactly_the_labels_saving_then_labelling_gives(pristine_demo: Path, tmp_path: Path,
                                                                      data: st.DataObject) -> None:
    db = _copy(pristine_demo, tmp_path / str(time.perf_counter_ns()))
    try:
        item_id = data.draw(st.sampled_from(demo_item_ids(db)))
        draft = data.draw(drafts(draft_of(db, item_id), outputs_of(db, item_id)))
        before = stored_labels(db, [item_id])
        preview = preview_item(db, item_id, draft)
        save(db, {item_id: draft})
        relabel(db)
        after = stored_labels(db, [item_id])
        assert {o.stored.output_id: o.label_after for o in preview.outputs} == after
        assert {o.stored.output_id: o.stored.label for o in preview.outputs} == before
        assert preview.flips == dict(Counter(f"{before[i]}->{after[i]}" for i in after if before[i] != after[i]))
        assert not any(o.timed_out for o in preview.outputs)
        assert [p.rule_index for p in preview.problems] == [
            index for index, rule in enumerate(draft.rules)
            if not _blank(rule) and compile_error(rule.spec.pattern, rule.spec.ignore_case)]
    finally:
        db.close()


def test_the_stored_draft_previews_the_stored_labels_and_spans_are_the_engines(demo: Database) -> None:
    invalid = 0
    for item_id in demo_item_ids(demo):
        draft = draft_of(demo, item_id)
        with demo.session() as session:
            rules = [ItemRule.of(r) for r in session.scalars(
                select(Rule).where(Rule.item_id == item_id).order_by(Rule.position, Rule.id))]
            known = [KnownSpec(k.kind, k.text) for k in session.scalars(
                select(KnownTranslation).where(KnownTranslation.item_id == item_id))]
        matcher = ItemMatcher(rules, known)
        preview = preview_item(demo, item_id, draft)
        assert preview.flips == {}
        for output in preview.outputs:
            assert output.label_after == output.stored.label == matcher.decide(output.stored.text).label
            assert output.decided_by_after == output.stored.decided_by
            shown = [(s.start, s.end, rules[s.rule_index].id, s.polarity) for s in output.spans]
            # each rule's matches as the engine finds them for that rule alone; where every rule compiles,
            # exactly the engine's spans for the whole item
            assert shown == sorted(tuple(span) for rule in rules
                                   for span in ItemMatcher([rule], []).spans(output.stored.text))
            if all(rule.valid for rule in rules):
                assert shown == [tuple(span) for span in matcher.spans(output.stored.text)]
            assert output.effective_after == (output.stored.manual or output.label_after)
        invalid += not all(rule.valid for rule in rules)
    assert invalid == 2  # the demo's two deliberately broken rules


def test_a_new_rule_is_named_by_its_place_and_reviews_still_win(demo: Database) -> None:
    item_id = find_item(demo, "amb-01")
    stored = draft_of(demo, item_id)
    preview = preview_item(demo, item_id, Draft((DraftRule(RuleSpec(Polarity.POSITIVE, "painted")), *stored.rules),
                                                stored.known))
    reviewed = [o for o in preview.outputs if o.stored.manual is not None]
    assert reviewed and all(o.effective_after == o.stored.manual for o in reviewed)
    assert {o.decided_by_after for o in preview.outputs if o.label_after == "pass"} == \
        {"positive rule 1: painted"}  # as the editor numbers it: the stored positive rule is now its rule 2
    stored_first = next(o for o in preview.outputs if o.stored.label == "pass" and o.stored.manual is None)
    assert stored_first.stored.decided_by is not None
    assert stored_first.stored.decided_by.startswith("positive rule 1: ")
    assert all(o.stored.systems for o in preview.outputs)


def test_an_invalid_pattern_is_a_problem_with_its_position_and_labels_every_output_error(demo: Database) -> None:
    item_id = find_item(demo, "amb-01")
    stored = draft_of(demo, item_id)
    preview = preview_item(demo, item_id, Draft((*stored.rules, DraftRule(RuleSpec(Polarity.NEGATIVE, r"\bbank("))),
                                                stored.known))
    [problem] = preview.problems
    assert problem.rule_index == len(stored.rules)
    assert str(problem.problem) == "pattern does not compile at position 7: missing )"
    assert {o.label_after for o in preview.outputs} == {"error"}
    assert not any(o.timed_out for o in preview.outputs)
    assert sum(preview.flips.values()) == len(preview.outputs)


def test_a_catastrophic_pattern_times_out_on_that_output_only(demo: Database) -> None:
    item_id = find_item(demo, "amb-01")
    with demo.transaction() as session:
        session.execute(insert(Output).values(item_id=item_id, text="a" * 60 + "b"))
    stored = draft_of(demo, item_id)
    started = time.monotonic()
    preview = preview_item(demo, item_id, Draft((*stored.rules, DraftRule(RuleSpec(Polarity.POSITIVE, "^(a|aa)+$"))),
                                                stored.known), timeout=0.05)
    assert time.monotonic() - started < 30  # it returns; without a timeout this search runs for years
    slow = [o for o in preview.outputs if o.stored.text.startswith("aaa")]
    assert [(o.label_after, o.timed_out) for o in slow] == [("error", True)]
    assert "timed out after 0.05 s" in slow[0].decided_by_after
    assert not any(o.timed_out for o in preview.outputs if o not in slow)
    assert slow[0].stored.label is None and preview.flips["unlabelled->error"] == 1


def test_a_session_rereads_nothing_until_the_item_changes(demo: Database) -> None:
    item_id = find_item(demo, "amb-01")
    stored = draft_of(demo, item_id)
    draft = Draft((*stored.rules, DraftRule(RuleSpec(Polarity.NEGATIVE, "painted"))), stored.known)
    session = PreviewSession(demo)
    statements: list[str] = []
    event.listen(demo.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    first = session.preview(item_id, draft)
    read_first = len(statements)
    statements.clear()
    assert session.preview(item_id, draft) == first
    assert len(statements) == 1 and read_first > 1  # the stamp only

    # a review is noticed
    output_id = next(o.stored.output_id for o in first.outputs if o.stored.manual is None)
    review_output(demo, output_id, Label.FAIL, "tester")
    [reviewed] = [o for o in session.preview(item_id, draft).outputs if o.stored.output_id == output_id]
    assert reviewed.stored.manual == "fail"
    # saving and labelling is noticed: the draft is now what is stored
    save(demo, {item_id: draft})
    relabel(demo)
    assert session.preview(item_id, draft_of(demo, item_id)).flips == {}
    # a new output is noticed
    with demo.transaction() as session_:
        session_.execute(insert(Output).values(item_id=item_id, text="A new painted bench."))
    assert "A new painted bench." in [o.stored.text for o in session.preview(item_id, draft).outputs]
    statements.clear()
    session.invalidate(item_id)
    session.preview(item_id, draft)
    assert len(statements) > 1


def _add_everywhere(db: Database, item_ids: list[int], added: list[DraftRule]) -> None:
    save(db, {item_id: Draft((*draft_of(db, item_id).rules, *added), draft_of(db, item_id).known)
              for item_id in item_ids})


@pytest.mark.parametrize("scope", ["item", "phenomenon", "category", "suite"])
def test_scope_previews_equal_adding_the_rules_everywhere_and_labelling(demo: Database, tmp_path: Path,
                                                                        pristine_demo: Path, scope: str) -> None:
    item_id = find_item(demo, "vt-03")
    added = [DraftRule(RuleSpec(Polarity.NEGATIVE, r"\bthe\b", True)),
             DraftRule(RuleSpec(Polarity.POSITIVE, r"\bhad\b"))]
    preview = preview_scope(demo, item_id, added, scope)
    with demo.session() as session:
        item = session.get(Item, item_id)
        assert item is not None and item.phenomenon is not None
        query = select(Item.id)
        if scope == "item":
            query = query.where(Item.id == item_id)
        elif scope == "phenomenon":
            query = query.where(Item.phenomenon_id == item.phenomenon_id)
        elif scope == "category":
            query = query.where(Item.phenomenon_id.in_([p.id for p in item.phenomenon.category.phenomena]))
        in_scope = list(session.scalars(query))
    before = stored_labels(demo)
    _add_everywhere(demo, in_scope, added)
    relabel(demo)
    after = stored_labels(demo)
    with demo.session() as session:
        item_of = {output_id: item_id for output_id, item_id in session.execute(select(Output.id, Output.item_id))}
    flipped: dict[int, list[int]] = {}
    for output_id in sorted(after):
        if before[output_id] != after[output_id]:
            flipped.setdefault(item_of[output_id], []).append(output_id)
    assert {i.item_id: list(i.output_ids) for i in preview.items} == flipped
    assert preview.flips == dict(Counter(f"{before[o]}->{after[o]}" for o in after if before[o] != after[o]))
    assert preview.outputs == sum(1 for o in after if item_of[o] in in_scope)
    assert all(sum(i.flips.values()) == len(i.output_ids) for i in preview.items)


def test_scope_preview_reports_progress_and_can_be_cancelled(demo: Database) -> None:
    item_id = find_item(demo, "vt-03")
    reports: list[tuple[int, int]] = []
    preview_scope(demo, item_id, [DraftRule(RuleSpec(Polarity.NEGATIVE, "the"))], "suite",
                  task=TaskState(lambda progress: reports.append((progress.done, progress.total))))
    assert reports[-1] == (78, 78)
    task = TaskState()
    task.cancel()
    with pytest.raises(Cancelled):
        preview_scope(demo, item_id, [DraftRule(RuleSpec(Polarity.NEGATIVE, "the"))], "suite", task=task)


def test_bad_requests_are_user_errors(demo: Database) -> None:
    with pytest.raises(TsqeError, match="no item 'nope' in suite 'tsqe-demo-de-en'"):
        find_item(demo, "nope")
    with pytest.raises(TsqeError, match="no item with id 999999"):
        preview_item(demo, 999999, Draft())
    item_id = find_item(demo, "vt-03")
    with pytest.raises(TsqeError, match="not 'world'"):
        preview_scope(demo, item_id, [], "world")
    with demo.transaction() as session:
        item = session.get(Item, item_id)
        assert item is not None
        item.phenomenon_id = None
    with pytest.raises(TsqeError, match="item 'vt-03' belongs to no phenomenon"):
        preview_scope(demo, item_id, [], "category")


# --- the real DFKI de-en suite ---------------------------------------------------------------------------

@pytest.mark.shared
def test_dfki_previews_equal_saving_then_labelling(db: Database, shared_data: Path) -> None:
    import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    relabel(db)
    with db.session() as session:
        with_outputs = sorted(set(session.scalars(select(Output.item_id))))
        patterns = sorted(set(session.scalars(select(Rule.pattern))))
    rng = random.Random(7)
    sample = rng.sample(with_outputs, 200)
    drafts: dict[int, Draft] = {}
    for number, item_id in enumerate(sample):
        stored = draft_of(db, item_id)
        if number % 3 == 0 and stored.rules:
            drafts[item_id] = Draft(stored.rules[1:], stored.known)  # one rule less
        elif number % 3 == 1:  # a word of one of its outputs, so that it matches somewhere
            word = rng.choice(rng.choice(outputs_of(db, item_id)).split())
            polarity = rng.choice([Polarity.POSITIVE, Polarity.NEGATIVE])
            drafts[item_id] = Draft((*stored.rules, DraftRule(RuleSpec(polarity, regex.escape(word), True))),
                                    stored.known)
        else:  # another item's pattern
            drafts[item_id] = Draft((DraftRule(RuleSpec(Polarity.NEGATIVE, rng.choice(patterns))), *stored.rules),
                                    stored.known)
    before = stored_labels(db)
    previews = {item_id: preview_item(db, item_id, draft) for item_id, draft in drafts.items()}
    save(db, drafts)
    relabel(db)
    after = stored_labels(db)
    changed = 0
    for preview in previews.values():
        for output in preview.outputs:
            assert output.stored.label == before[output.stored.output_id]
            assert output.label_after == after[output.stored.output_id], output
            changed += output.stored.label != output.label_after
    assert changed > 50  # the drafts did change labels, so the comparison means something


def test_flips_are_listed_most_frequent_first() -> None:
    """The editor, its scope pane and ``tsqe rule-test`` list the flips in the order the core gives them."""
    flips = ordered_flips(Counter({"unknown->pass": 1, "pass->fail": 3, "fail->conflict": 1}))
    assert list(flips.items()) == [("pass->fail", 3), ("fail->conflict", 1), ("unknown->pass", 1)]
