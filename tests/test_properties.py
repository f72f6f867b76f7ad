"""Properties of labelling, importing and previewing, checked on generated inputs (hypothesis) over the demo suite.

Each test keeps one demo database for all its examples: every property holds whatever earlier examples left
behind, so the examples also run against a suite that grows more varied as they go.
"""
from __future__ import annotations

import csv
import itertools
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from label_helpers import seen_version
from reviewing import review_output
from sqlalchemy import insert, select
from table_dump import dump

from store import Database, open_database
from store.domain import Label, Polarity
from store.models import Item, ManualLabel, Output, Suite
from suite.demo import DEMO_SUITE, create_demo
from suite.editing.api import add_known, add_rule
from suite.editing.item_edit import automatic_labels
from suite.editing.items import add_item
from suite.engine.labelling import relabel
from suite.engine.preview import Draft, DraftRule, draft_of, preview_item
from suite.engine.rules import RuleSpec
from suite.errors import TsqeError
from suite.importers import import_outputs, import_qe_scores, import_reviews, import_suite

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
"""Derandomized, so a failure reproduces; no shrinking, which would rerun examples against a database that
earlier examples keep changing (slow, and no longer the failing state)."""
AUTHOR = "hypothesis"
WORDS = ["the", "The", "bank", "bench", "river", "riverbank", "was", "painted", "lock", "is", "stuck", "a", "head",
         "of", "department", "."]
PATTERNS = [r"\bbank\b", "bench", r"\bthe\b", "paint(ed)?", "^The", "river", "lock|bench", r"\w+ \w+", r"\.$",
            "head of the department", r"(?<!river)bank"]

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)
rules = st.tuples(st.sampled_from([Polarity.POSITIVE, Polarity.NEGATIVE]), st.sampled_from(PATTERNS), st.booleans())
known = st.tuples(st.sampled_from(["good", "bad"]), texts)
_ids = itertools.count()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    db = open_database(tmp_path_factory.mktemp("properties") / "demo.sqlite")
    create_demo(db)
    yield db
    db.close()


def _item_ids(db: Database) -> list[int]:
    with db.session() as session:
        return list(session.scalars(select(Item.id).join(Suite).where(Suite.name == DEMO_SUITE).order_by(Item.id)))


def _output_ids(db: Database) -> list[int]:
    with db.session() as session:
        return list(session.scalars(select(Output.id).order_by(Output.id)))


def _manual_labels(db: Database) -> list[tuple[object, ...]]:
    return dump(db)[ManualLabel.__tablename__]


def _new_item(db: Database, item_rules: list[tuple[Polarity, str, bool]], item_known: list[tuple[str, str]],
              outputs: list[str]) -> int:
    item_id = add_item(db, external_id=f"prop-{next(_ids)}", source="Die Bank wurde gestrichen.", category="props",
                       phenomenon="props", suite_name=DEMO_SUITE, author=AUTHOR).item_id
    for polarity, pattern, ignore_case in item_rules:
        add_rule(db, item_id, polarity, pattern, ignore_case=ignore_case, author=AUTHOR)
    for kind, text in item_known:
        with suppress(TsqeError):  # a duplicate is refused, in both items alike
            add_known(db, item_id, kind, text, author=AUTHOR)
    with db.transaction() as session:
        session.execute(insert(Output), [{"item_id": item_id, "text": text} for text in dict.fromkeys(outputs)])
    return item_id


def _labels_by_text(db: Database, item_id: int) -> dict[str, str | None]:
    with db.session() as session:
        labels = automatic_labels(session, item_id)
        return {text: labels[output_id] for output_id, text in session.execute(
            select(Output.id, Output.text).where(Output.item_id == item_id))}


@SETTINGS
@given(data=st.data())
def test_relabelling_never_changes_a_manual_label(demo: Database, data: st.DataObject) -> None:
    items, outputs = _item_ids(demo), _output_ids(demo)
    for output_id in data.draw(st.lists(st.sampled_from(outputs), max_size=4, unique=True)):
        review_output(demo, output_id, data.draw(st.sampled_from([Label.PASS, Label.FAIL, Label.UNKNOWN])),
                      reviewer=AUTHOR, expected_version=seen_version(demo, output_id))
    before = _manual_labels(demo)
    for polarity, pattern, ignore_case in data.draw(st.lists(rules, max_size=3)):
        add_rule(demo, data.draw(st.sampled_from(items)), polarity, pattern, ignore_case=ignore_case, author=AUTHOR)
    for kind, text in data.draw(st.lists(known, max_size=2)):
        with suppress(TsqeError):  # refused as a duplicate of a known translation an earlier example added
            add_known(demo, data.draw(st.sampled_from(items)), kind, text, author=AUTHOR)
    relabel(demo, suite_name=DEMO_SUITE)
    assert _manual_labels(demo) == before


@SETTINGS
@given(item_rules=st.lists(rules, max_size=4), item_known=st.lists(known, max_size=3),
       shared=st.lists(texts, min_size=1, max_size=6), own=st.lists(texts, max_size=4),
       unrelated=st.lists(rules, min_size=1, max_size=2))
def test_a_label_depends_only_on_the_text_and_its_items_rules(
        demo: Database, item_rules: list[tuple[Polarity, str, bool]], item_known: list[tuple[str, str]],
        shared: list[str], own: list[str], unrelated: list[tuple[Polarity, str, bool]]) -> None:
    """The same text under the same rules and known translations in two items gets the same label, and
    relabelling after edits of other items changes neither."""
    first = _new_item(demo, item_rules, item_known, shared)
    second = _new_item(demo, item_rules, item_known, own + shared)
    relabel(demo, suite_name=DEMO_SUITE)
    labels = _labels_by_text(demo, first)
    assert None not in labels.values()
    assert {text: _labels_by_text(demo, second)[text] for text in labels} == labels
    for polarity, pattern, ignore_case in unrelated:
        add_rule(demo, _item_ids(demo)[0], polarity, pattern, ignore_case=ignore_case, author=AUTHOR)
    relabel(demo, suite_name=DEMO_SUITE)
    assert _labels_by_text(demo, first) == labels


def _write_tsv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _demo_rows(name: str) -> list[list[str]]:
    path = Path(__file__).resolve().parents[1] / "suite" / "demo" / name
    with path.open(encoding="utf-8", newline="") as file:
        return list(csv.reader(file, delimiter="\t"))


@SETTINGS
@given(data=st.data())
def test_importing_the_same_file_twice_changes_nothing_the_second_time(
        demo: Database, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("imports")
    header, *rows = _demo_rows("outputs.tsv")
    items = sorted({row[0] for row in rows})
    chosen = data.draw(st.lists(st.sampled_from(rows), min_size=1, max_size=12, unique_by=lambda row: tuple(row[:2])))
    systems = ["Lindenbaum-NMT", "Prop-MT"]
    new = data.draw(st.lists(st.tuples(st.sampled_from(items), st.sampled_from(systems), texts), max_size=6,
                             unique_by=lambda row: row[:2]))
    written = {tuple(row[:2]) for row in chosen}
    outputs = _write_tsv(folder / "outputs.tsv", header,
                         chosen + [list(row) for row in new if row[:2] not in written])
    pairs = [(row[0], row[1]) for row in rows]
    reviewed = data.draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=5, unique=True))
    reviews = _write_tsv(folder / "reviews.tsv", ["item_id", "system", "label", "reviewer", "comment"],
                         [[item, system, data.draw(st.sampled_from(["pass", "fail", "unknown"])), "prop",
                           data.draw(st.sampled_from(["", "checked"]))] for item, system in reviewed])
    scored = data.draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=8, unique=True))
    scores = _write_tsv(folder / "qe.tsv", ["item_id", "system", "score"],
                        [[item, system, repr(data.draw(st.floats(-1, 1, allow_nan=False)))] for item, system in scored])
    suite_header, *suite_rows = _demo_rows("suite.tsv")
    suite_subset = st.lists(st.sampled_from(suite_rows), min_size=1, max_size=5, unique_by=lambda row: row[0])
    suite = _write_tsv(folder / "suite.tsv", suite_header, data.draw(suite_subset))
    imports = [
        lambda: import_outputs(demo, outputs, suite_name=DEMO_SUITE),
        lambda: import_reviews(demo, reviews, suite_name=DEMO_SUITE),
        lambda: import_qe_scores(demo, scores, name="prop-qe", suite_name=DEMO_SUITE),
        lambda: import_suite(demo, suite, name=DEMO_SUITE, update=True, source_lang="de", target_lang="en"),
    ]
    for run in imports:
        run()
        once = dump(demo)
        run()
        assert dump(demo) == once


@SETTINGS
@given(data=st.data(), added=st.lists(rules, min_size=1, max_size=3))
def test_a_preview_shows_the_labels_that_saving_stores(demo: Database, data: st.DataObject,
                                                         added: list[tuple[Polarity, str, bool]]) -> None:
    item_id = data.draw(st.sampled_from(_item_ids(demo)))
    draft = draft_of(demo, item_id)
    new = tuple(DraftRule(RuleSpec(polarity, pattern, ignore_case)) for polarity, pattern, ignore_case in added)
    preview = preview_item(demo, item_id, Draft(rules=draft.rules + new, known=draft.known))
    assert preview.outputs
    for rule in new:
        add_rule(demo, item_id, rule.spec.polarity, rule.spec.pattern, ignore_case=rule.spec.ignore_case, author=AUTHOR)
    with demo.session() as session:
        saved = automatic_labels(session, item_id)
    assert {output.stored.output_id: output.label_after for output in preview.outputs} == saved
