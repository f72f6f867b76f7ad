"""Browsing outputs and the suite tree, checked against a brute-force reading of the raw tables.

The brute force reads labels straight from ``auto_labels``, ``label_fingerprints`` and ``manual_labels`` (not
through ``suite.engine.labels``) and filters and sorts in Python, so it checks the queries rather than repeating them.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reviewing import review_output
from sqlalchemy import select

from store import Database, open_database
from store.domain import Label
from store.group_key import group_key
from store.models import (
    AutoLabel,
    Category,
    Item,
    LabelFingerprint,
    ManualLabel,
    Output,
    OutputPlaceholder,
    Phenomenon,
    Rule,
    System,
    SystemOutput,
)
from suite.demo import DEMO_SUITE, create_demo
from suite.engine.label_counts import LabelCounts
from suite.engine.labelling import label_counts, relabel
from suite.engine.rules import ItemMatcher, ItemRule
from suite.errors import TsqeError
from suite.importers import import_outputs, import_reviews, import_suite
from suite.reading.browse import (
    SORTS,
    OutputFilter,
    browse_outputs,
    output_ids,
    output_rows,
    output_spans,
)
from suite.reading.tree import suite_tree

LABEL_ORDER = tuple(Label)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class Raw:
    output_id: int
    item_id: int
    position: int
    external_id: str
    category: str | None
    phenomenon: str | None
    text: str
    systems: frozenset[str]
    auto: str | None
    manual: str | None
    degenerate: bool = False
    """Empty, one of the suite's placeholders, or the item's source (``suite.engine.output_policy``)."""

    @property
    def effective(self) -> str | None:
        return self.manual or self.auto


def raw_outputs(db: Database, suite: str) -> list[Raw]:
    with db.session() as session:
        suite_items = {row.id: row for row in session.execute(
            select(Item.id, Item.position, Item.external_id, Phenomenon.name.label("phenomenon"),
                   Category.name.label("category"), Item.source, Item.suite_id)
            .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
            .outerjoin(Category, Category.id == Phenomenon.category_id)
            .where(Item.suite.has(name=suite)))}
        auto = {o: label for o, label in session.execute(select(AutoLabel.output_id, AutoLabel.label))}
        through = {i: t for i, t in
                   session.execute(select(LabelFingerprint.item_id, LabelFingerprint.labelled_through))}
        manual = {o: label for o, label in session.execute(select(ManualLabel.output_id, ManualLabel.label))}
        systems: defaultdict[int, set[str]] = defaultdict(set)
        for output_id, name in session.execute(select(SystemOutput.output_id, System.name)
                                               .join(System, System.id == SystemOutput.system_id)):
            systems[output_id].add(name)
        outputs = session.execute(select(Output.id, Output.item_id, Output.text)).all()
        placeholders = set(session.execute(select(OutputPlaceholder.suite_id, OutputPlaceholder.text)).tuples())
    raws = []
    for output_id, item_id, text in outputs:
        if item_id not in suite_items:
            continue
        item = suite_items[item_id]
        automatic = auto.get(output_id) or ("unknown" if output_id <= through.get(item_id, 0) else None)
        degenerate = text == "" or (item.suite_id, text) in placeholders or text == item.source.strip(" ")
        raws.append(Raw(output_id, item_id, item.position, item.external_id, item.category, item.phenomenon, text,
                        frozenset(systems[output_id]), automatic, manual.get(output_id), degenerate))
    return raws


def brute_force(raws: list[Raw], f: OutputFilter, sort: str, descending: bool) -> list[int]:
    def keep(r: Raw) -> bool:
        return ((f.label is None or r.effective == f.label)
                and (f.auto_label is None or r.auto == f.auto_label)
                and (f.reviewed is None or (r.manual is not None) == f.reviewed)
                and (not f.disagree or (r.manual is not None and r.manual != r.auto))
                and (f.category is None or r.category == f.category)
                and (f.phenomenon is None or r.phenomenon == f.phenomenon)
                and (f.item is None or r.external_id == f.item)
                and (f.item_ids is None or r.item_id in f.item_ids)
                and (f.system is None or f.system in r.systems)
                and (f.contains is None  # SQLite's LIKE folds ASCII letters only
                     or f.contains.translate(_ASCII_LOWER) in r.text.translate(_ASCII_LOWER)))

    kept = [r for r in raws if keep(r)]
    if f.grouped:  # the first output of each item's alike outputs with one automatic label
        first: dict[tuple[int, str, str | None], int] = {}
        for r in kept:
            alike = (r.item_id, group_key(r.text), r.auto)
            first[alike] = min(first.get(alike, r.output_id), r.output_id)
        kept = [r for r in kept if first[r.item_id, group_key(r.text), r.auto] == r.output_id]
    decided = Counter((r.item_id, r.effective) for r in raws)

    def key(r: Raw) -> tuple[object, ...]:
        ties = (r.position, r.output_id)
        if sort == "impact":  # items with one label only first, then the most pairs a decision adds
            passed, failed = decided[r.item_id, "pass"], decided[r.item_id, "fail"]
            if r.effective in ("pass", "fail"):
                return (4, 0, *ties)
            if r.degenerate:  # after every undecided output that is not degenerate (issue 28)
                return (3, 0, *ties)
            return ((passed == 0) == (failed == 0) and (2 if not passed else 1), -max(passed, failed), *ties)
        if sort == "label":
            return (LABEL_ORDER.index(r.effective) if r.effective else len(LABEL_ORDER), *ties)
        if sort == "category":
            return (r.category is None, r.category or "", r.phenomenon is None, r.phenomenon or "", *ties)
        if sort == "systems":
            return (len(r.systems), *ties)
        if sort == "text":
            return (r.text, *ties)
        return ties

    return [r.output_id for r in sorted(kept, key=key, reverse=descending)]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Database, list[Raw]]]:
    """The demo suite plus a few outputs imported after labelling (so some are unlabelled), and a review of one
    of them (reviewed but never labelled automatically)."""
    tmp = tmp_path_factory.mktemp("demo")
    db = open_database(tmp / "demo.sqlite")
    create_demo(db)
    extra = tmp / "extra.tsv"
    extra.write_text("item_id\tsystem\toutput\n"
                     "amb-01\tLate-MT\tThe bank by the river: 100% fresh_paint.\n"
                     "amb-02\tLate-MT\tÄrger am Tor.\n"
                     "amb-02\tOnline-X\tÄrger am Tor.\n", encoding="utf-8")
    import_outputs(db, extra, suite_name=DEMO_SUITE)
    reviews = tmp / "reviews.tsv"
    reviews.write_text("item_id\tsystem\tlabel\treviewer\namb-02\tLate-MT\tfail\ttester\n", encoding="utf-8")
    import_reviews(db, reviews, suite_name=DEMO_SUITE)
    yield db, raw_outputs(db, DEMO_SUITE)
    db.close()


def test_demo_has_every_label_state(demo: tuple[Database, list[Raw]]) -> None:
    _, raws = demo
    assert {r.effective for r in raws} == {*LABEL_ORDER, None}
    assert {r.auto for r in raws} == {*LABEL_ORDER, None}
    assert any(r.manual is not None and r.auto is None for r in raws)
    assert any(r.manual is not None and r.manual != r.auto and r.auto is not None for r in raws)


def _single_filters(raws: list[Raw]) -> list[OutputFilter]:
    """One filter per field and value found in the data, plus values that match nothing."""
    reviewed = next(r for r in raws if r.manual is not None)
    found: list[OutputFilter] = [OutputFilter()]
    found += [OutputFilter(label=label) for label in LABEL_ORDER]
    found += [OutputFilter(auto_label=label) for label in LABEL_ORDER]
    found += [OutputFilter(reviewed=True), OutputFilter(reviewed=False), OutputFilter(disagree=True)]
    found += [OutputFilter(category=c) for c in sorted({r.category for r in raws if r.category})]
    found += [OutputFilter(phenomenon=p) for p in sorted({r.phenomenon for r in raws if r.phenomenon})]
    found += [OutputFilter(item=reviewed.external_id), OutputFilter(item="no such item"),
              OutputFilter(item_ids=(reviewed.item_id, raws[-1].item_id)), OutputFilter(item_ids=())]
    found += [OutputFilter(system=s) for s in sorted({s for r in raws for s in r.systems})]
    found += [OutputFilter(system="nobody"), OutputFilter(contains="the "), OutputFilter(contains="THE BANK"),
              OutputFilter(contains="100%"), OutputFilter(contains="_"), OutputFilter(contains="%"),
              OutputFilter(contains="Ärger")]
    found += [OutputFilter(grouped=True), OutputFilter(label=Label.UNKNOWN, grouped=True),
              OutputFilter(contains="the ", grouped=True), OutputFilter(reviewed=False, grouped=True),
              OutputFilter(auto_label=Label.PASS, category=reviewed.category, grouped=True)]
    return found


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("sort", SORTS)
def test_every_filter_and_sort_equals_the_brute_force(demo: tuple[Database, list[Raw]], sort: str,
                                                      descending: bool) -> None:
    db, raws = demo
    for f in _single_filters(raws):
        expected = brute_force(raws, f, sort, descending)
        assert output_ids(db, f, sort=sort, descending=descending) == expected, f
        page = browse_outputs(db, f, sort=sort, descending=descending, limit=7, offset=3)
        assert page.total == len(expected), f
        assert [row.output_id for row in page.rows] == expected[3:10], f


def test_contains_is_a_literal_case_insensitive_substring(demo: tuple[Database, list[Raw]]) -> None:
    db, _ = demo
    assert len(output_ids(db, OutputFilter(contains="100%"))) == 1
    assert output_ids(db, OutputFilter(contains="fresh_paint")) == output_ids(db, OutputFilter(contains="FRESH_PAINT"))
    assert output_ids(db, OutputFilter(contains="fresh%paint")) == []


def test_pages_cover_the_list_without_overlap(demo: tuple[Database, list[Raw]]) -> None:
    db, _ = demo
    for sort in SORTS:
        everything = output_ids(db, sort=sort)
        paged: list[int] = []
        offset = 0
        while page := browse_outputs(db, sort=sort, limit=37, offset=offset).rows:
            paged += [row.output_id for row in page]
            offset += 37
        assert paged == everything
        assert output_ids(db, sort=sort, descending=True) == everything[::-1]


def test_output_rows_follow_the_order_given_and_skip_vanished_ids(demo: tuple[Database, list[Raw]]) -> None:
    db, raws = demo
    by_id = {r.output_id: r for r in raws}
    ids = [r.output_id for r in raws][::-7]
    rows = output_rows(db, [*ids, 10**9])
    assert [row.output_id for row in rows] == ids
    for row in rows:
        raw = by_id[row.output_id]
        assert (row.item_id, row.external_id, row.category, row.phenomenon, row.text) == (
            raw.item_id, raw.external_id, raw.category, raw.phenomenon, raw.text)
        assert row.systems == tuple(sorted(raw.systems))
        assert (row.auto_label, row.manual_label, row.effective_label) == (raw.auto, raw.manual, raw.effective)
        assert (row.manual_version > 0) == (raw.manual is not None)
        assert (row.reviewer is None) == (raw.manual is None) == (row.reviewed_at is None)
        assert (row.decided_by is None) == (raw.auto is None)
    assert output_rows(db, []) == []


def test_a_row_shows_the_review_and_its_version(tmp_path: Path) -> None:
    db = open_database(tmp_path / "demo.sqlite")
    try:
        create_demo(db)
        [row] = output_rows(db, output_ids(db, OutputFilter(reviewed=False))[:1])
        assert (row.manual_label, row.manual_version, row.reviewer) == (None, 0, None)
        review_output(db, row.output_id, Label.FAIL, "rita", "wrong sense")
        [after] = output_rows(db, [row.output_id])
        assert (after.manual_label, after.effective_label, after.reviewer, after.comment) == (
            "fail", "fail", "rita", "wrong sense")
        assert after.manual_version == 1 and after.reviewed_at is not None
        assert after.auto_label == row.auto_label and after.decided_by == row.decided_by
    finally:
        db.close()


def test_rows_of_a_passing_output_say_which_rule_decided(demo: tuple[Database, list[Raw]]) -> None:
    db, _ = demo
    for row in output_rows(db, output_ids(db, OutputFilter(auto_label=Label.PASS, reviewed=False))):
        assert row.decided_by is not None
        if row.rule_id is not None:  # named by its number in the item's positive list, as the editor shows it
            with db.session() as session:
                positives = list(session.scalars(select(Rule.id).where(Rule.item_id == row.item_id,
                                                                       Rule.polarity == "positive")
                                                 .order_by(Rule.position, Rule.id)))
            assert row.decided_by.startswith(f"positive rule {positives.index(row.rule_id) + 1}: ")


def test_output_spans_are_the_stored_rules_matches(demo: tuple[Database, list[Raw]]) -> None:
    db, raws = demo
    ids = [r.output_id for r in raws[:40]]
    spans = output_spans(db, [*ids, 10**9])
    assert sorted(spans) == sorted(ids)
    with db.session() as session:
        for r in raws[:40]:
            rules = [ItemRule.of(x) for x in session.scalars(
                select(Rule).where(Rule.item_id == r.item_id).order_by(Rule.position, Rule.id))]
            assert spans[r.output_id] == ItemMatcher(rules, []).spans(r.text)
            for span in spans[r.output_id]:
                assert span.end > span.start
    assert any(spans.values())


def test_bad_filters_are_refused_with_the_data_s_words(demo: tuple[Database, list[Raw]]) -> None:
    db, _ = demo
    with pytest.raises(TsqeError, match="label must be one of"):
        output_ids(db, OutputFilter(label="passed"))  # type: ignore[arg-type]  # the wrong value is the point
    with pytest.raises(TsqeError, match="automatic label must be one of"):
        browse_outputs(db, OutputFilter(auto_label="ok"))  # type: ignore[arg-type]  # as above
    with pytest.raises(TsqeError, match="sorted by"):
        output_ids(db, sort="colour")
    with pytest.raises(TsqeError, match="limit"):
        browse_outputs(db, limit=-1)
    with pytest.raises(TsqeError, match="no suite named"):
        output_ids(db, suite_name="xx")


_FILTERS = st.builds(
    OutputFilter,
    label=st.none() | st.sampled_from(LABEL_ORDER),
    auto_label=st.none() | st.sampled_from(LABEL_ORDER),
    reviewed=st.none() | st.booleans(),
    disagree=st.booleans(),
    category=st.none() | st.sampled_from(["Ambiguity", "Negation", "Verb tense/aspect/mood", "nothing"]),
    item=st.none() | st.sampled_from(["amb-01", "amb-02", "vt-01"]),
    item_ids=st.none() | st.lists(st.integers(1, 80), max_size=5).map(tuple),
    system=st.none() | st.sampled_from(["Online-X", "Baseline-SMT", "Late-MT"]),
    contains=st.none() | st.sampled_from(["the", "BANK", "will", "%", "Ä"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(f=_FILTERS, sort=st.sampled_from(SORTS), descending=st.booleans(), offset=st.integers(0, 30),
       limit=st.integers(0, 30))
def test_random_filter_combinations_equal_the_brute_force(demo: tuple[Database, list[Raw]], f: OutputFilter,
                                                          sort: str, descending: bool, offset: int,
                                                          limit: int) -> None:
    db, raws = demo
    expected = brute_force(raws, f, sort, descending)
    page = browse_outputs(db, f, sort=sort, descending=descending, limit=limit, offset=offset)
    assert page.total == len(expected)
    assert [row.output_id for row in page.rows] == expected[offset:offset + limit]


def _counts_of(raws: list[Raw]) -> LabelCounts:
    labels = Counter(r.effective for r in raws)
    return LabelCounts(labels["pass"], labels["fail"], labels["conflict"], labels["unknown"], labels["error"],
                       labels[None], sum(r.manual is not None for r in raws), len(raws))


def _check_tree(db: Database, raws: list[Raw], suite: str) -> None:
    tree = suite_tree(db, suite)
    assert tree.suite == suite
    assert tree.counts == _counts_of(raws)
    by_item: defaultdict[int, list[Raw]] = defaultdict(list)
    for r in raws:
        by_item[r.item_id].append(r)
    with db.session() as session:
        positions = list(session.scalars(select(Item.id).where(Item.suite.has(name=suite))
                                         .order_by(Item.position)))
        rule_counts = Counter(session.scalars(select(Rule.item_id)))
    seen: list[int] = []
    for category in tree.categories:
        assert category.counts == sum((p.counts for p in category.phenomena), LabelCounts())
        for phenomenon in category.phenomena:
            assert phenomenon.counts == _counts_of([r for i in phenomenon.items for r in by_item[i.item_id]])
            for item in phenomenon.items:
                seen.append(item.item_id)
                assert item.counts == _counts_of(by_item[item.item_id])
                assert item.rules == rule_counts[item.item_id]
                assert {r.category for r in by_item[item.item_id]} <= {category.name, None}
    assert sorted(seen) == sorted(positions)
    first = {c.name: seen.index(c.phenomena[0].items[0].item_id) for c in tree.categories}
    assert list(first.values()) == sorted(first.values())


def test_tree_counts_equal_the_brute_force_per_node(demo: tuple[Database, list[Raw]]) -> None:
    db, raws = demo
    _check_tree(db, raws, DEMO_SUITE)
    tree = suite_tree(db)
    labelled = {k: v for k, v in label_counts(db).items()}
    assert labelled == {"pass": tree.counts.passed, "fail": tree.counts.failed, "conflict": tree.counts.conflict,
                        "unknown": tree.counts.unknown, "error": tree.counts.error}
    assert tree.counts.pass_rate == tree.counts.passed / (tree.counts.passed + tree.counts.failed)
    assert LabelCounts().pass_rate is None


def test_tree_of_an_empty_suite(db: Database, tmp_path: Path) -> None:
    suite_file = tmp_path / "suite.tsv"
    suite_file.write_text("id\tcategory\tphenomenon\tsource\tpositive_regex\nx\tA\tB\tEin Satz.\tsentence\n",
                          encoding="utf-8")
    import_suite(db, suite_file, name="tiny", source_lang="de", target_lang="en")
    tree = suite_tree(db)
    assert tree.counts == LabelCounts()
    [category] = tree.categories
    assert (category.name, category.phenomena[0].name, category.phenomena[0].items[0].rules) == ("A", "B", 1)
    assert browse_outputs(db).total == 0


@pytest.mark.shared
def test_dfki_de_en_with_wmt21_outputs(tmp_path: Path, shared_data: Path) -> None:
    db = open_database(tmp_path / "dfki.sqlite")
    try:
        import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
        import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
        relabel(db)
        for output_id in output_ids(db, OutputFilter(label=Label.FAIL))[::50]:
            review_output(db, output_id, Label.PASS, "tester")
        for output_id in output_ids(db, OutputFilter(label=Label.UNKNOWN))[::40]:
            review_output(db, output_id, Label.FAIL, "tester")
        raws = raw_outputs(db, "de-en")
        assert len(raws) == 13985
        systems = sorted({s for r in raws for s in r.systems})
        categories = sorted({r.category for r in raws if r.category})
        filters = [OutputFilter(), *(OutputFilter(label=label) for label in LABEL_ORDER),
                   OutputFilter(reviewed=True), OutputFilter(disagree=True), OutputFilter(auto_label=Label.UNKNOWN),
                   OutputFilter(system=systems[0]), OutputFilter(label=Label.FAIL, system=systems[-1]),
                   OutputFilter(category=categories[3], label=Label.PASS), OutputFilter(contains="the "),
                   OutputFilter(item=raws[100].external_id)]
        for sort in SORTS:
            for f in filters:
                expected = brute_force(raws, f, sort, False)
                page = browse_outputs(db, f, sort=sort, limit=50, offset=20)
                assert page.total == len(expected), (f, sort)
                assert [row.output_id for row in page.rows] == expected[20:70], (f, sort)
        assert output_ids(db, filters[3], sort="label", descending=True) == brute_force(raws, filters[3], "label",
                                                                                         True)
        _check_tree(db, raws, "de-en")
        assert [field.name for field in fields(LabelCounts)][-1] == "outputs"
    finally:
        db.close()
