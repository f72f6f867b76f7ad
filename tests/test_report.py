from __future__ import annotations

import csv
import io
import json

import pytest
from label_helpers import write_automatic_labels

from store import Database
from store.domain import Label
from store.models import (
    Category,
    Item,
    ManualLabel,
    Output,
    Phenomenon,
    Suite,
    System,
    SystemOutput,
)
from suite.reading.report import (
    CountRow,
    Counts,
    best_cluster,
    build_systems_report,
    one_sided_p_value,
    significantly_worse,
    systems_report,
)
from suite.tables import render

# --- the z-test, against values computed by hand -------------------------------------------------------

def test_45_of_50_against_35_of_50_is_significantly_worse() -> None:
    # pooled p = 80/100 = 0.8; se = sqrt(0.8 * 0.2 * (1/50 + 1/50)) = 0.08; z = 0.2 / 0.08 = 2.5
    assert one_sided_p_value(45, 50, 35, 50) == pytest.approx(0.00621, abs=1e-5)
    assert significantly_worse(Counts(passed=45, failed=5), Counts(passed=35, failed=15))


def test_45_of_50_against_43_of_50_is_not_significantly_worse() -> None:
    # pooled p = 0.88; se = sqrt(0.88 * 0.12 * 0.04) = 0.06499; z = 0.04 / 0.06499 = 0.6155
    assert one_sided_p_value(45, 50, 43, 50) == pytest.approx(0.2691, abs=1e-4)
    assert not significantly_worse(Counts(passed=45, failed=5), Counts(passed=43, failed=7))


def test_unequal_sample_sizes() -> None:
    # 18/20 vs 30/50: pooled 48/70; se = sqrt(48/70 * 22/70 * (1/20 + 1/50)) = 0.12282; z = 0.3 / 0.12282
    # = 2.4425; 1 - Phi(2.4425) = 0.00729
    assert one_sided_p_value(18, 20, 30, 50) == pytest.approx(0.00729, abs=1e-5)


def test_equal_and_degenerate_proportions_are_not_worse() -> None:
    assert one_sided_p_value(9, 10, 18, 20) == 1.0  # equal proportions, different sizes
    assert one_sided_p_value(0, 10, 0, 30) == 1.0  # pooled proportion 0: no standard error
    assert one_sided_p_value(10, 10, 30, 30) == 1.0  # pooled proportion 1
    assert not significantly_worse(Counts(passed=10), Counts(passed=30))


def test_perfect_against_zero_is_worse_and_a_better_other_is_not() -> None:
    # 10/10 vs 0/10: pooled 0.5; se = sqrt(0.25 * 0.2) = 0.2236; z = 4.47
    assert one_sided_p_value(10, 10, 0, 10) < 1e-5
    assert one_sided_p_value(35, 50, 45, 50) == pytest.approx(1 - 0.00621, abs=1e-5)


def test_empty_samples_are_refused() -> None:
    with pytest.raises(ValueError):
        one_sided_p_value(0, 0, 3, 5)


def test_best_cluster() -> None:
    counts = {"A": Counts(passed=45, failed=5), "B": Counts(passed=43, failed=7),
              "C": Counts(passed=35, failed=15), "D": Counts(unknown=4)}
    assert best_cluster(counts) == {"A", "B"}
    # a tie at the top: both are best; a system is kept when it is not worse than either
    assert best_cluster({"A": Counts(passed=9, failed=1), "B": Counts(passed=18, failed=2),
                         "C": Counts(passed=5, failed=5)}) == {"A", "B"}
    assert best_cluster({"A": Counts(conflict=2)}) == set()


# --- assembling the report from counts ------------------------------------------------------------------

ITEMS = {("Negation", "Negative determiner"): 3, ("Negation", "Negation scope"): 2,
         ("False friends", "False friend"): 4}


def _counts() -> list[CountRow]:
    return [
        CountRow("Strong", "Negation", "Negative determiner", Label.PASS, 3),
        CountRow("Strong", "Negation", "Negation scope", Label.PASS, 1),
        CountRow("Strong", "Negation", "Negation scope", Label.CONFLICT, 1),
        CountRow("Strong", "False friends", "False friend", Label.PASS, 4),
        CountRow("Weak", "Negation", "Negative determiner", Label.FAIL, 2),
        CountRow("Weak", "Negation", "Negative determiner", Label.PASS, 1),
        CountRow("Weak", "Negation", "Negation scope", Label.UNKNOWN, 2),
        CountRow("Weak", "False friends", "False friend", Label.FAIL, 3),
        CountRow("Weak", "False friends", "False friend", Label.ERROR, 1),
        # a system whose outputs were never labelled, and one that judged nothing in Negation
        CountRow("Fresh", "Negation", "Negative determiner", None, 3),
        CountRow("Partial", "False friends", "False friend", Label.PASS, 2),
        CountRow("Partial", "False friends", "False friend", Label.FAIL, 2),
    ]


def test_category_rows_overall_and_macro() -> None:
    report = build_systems_report("s", ["Weak", "Strong", "Fresh", "Partial"], _counts(), ITEMS)
    assert report.systems == ["Strong", "Partial", "Weak", "Fresh"]  # by overall rate, unjudged last
    assert [(r.category, r.items) for r in report.rows] == [("Negation", 5), ("False friends", 4)]
    negation = report.rows[0].cells
    assert negation["Strong"].counts == Counts(passed=4, conflict=1)
    assert negation["Strong"].rate == 1.0
    assert negation["Weak"].counts == Counts(passed=1, failed=2, unknown=2)
    assert negation["Weak"].rate == pytest.approx(1 / 3)
    assert negation["Weak"].counts.excluded == 2
    # 4/4 vs 1/3: pooled 5/7, se = sqrt(5/7 * 2/7 * (1/4 + 1/3)) = 0.345, z = 1.93, p = 0.027
    assert not negation["Weak"].best_cluster and negation["Strong"].best_cluster
    # no judged output in the row: no rate, never in the cluster
    assert negation["Partial"].rate is None and not negation["Partial"].best_cluster
    assert negation["Fresh"].counts == Counts(unlabelled=3) and negation["Fresh"].rate is None

    overall = report.overall.cells
    assert report.overall.items == 9
    assert overall["Strong"].counts == Counts(passed=8, conflict=1)
    assert overall["Weak"].counts == Counts(passed=1, failed=5, unknown=2, error=1)
    assert overall["Weak"].counts.excluded == 3
    # macro: mean of category rates where the system has one
    macro = report.macro.cells
    assert macro["Strong"].rate == 1.0 and macro["Strong"].best_cluster
    assert macro["Weak"].rate == pytest.approx((1 / 3 + 0 / 3) / 2)
    assert macro["Partial"].rate == pytest.approx(0.5)  # only False friends counts
    assert macro["Fresh"].rate is None and not macro["Fresh"].best_cluster
    assert report.macro_over == 2


def test_phenomenon_rows_keep_suite_order() -> None:
    report = build_systems_report("s", ["Strong", "Weak"], _counts(), ITEMS, by="phenomenon")
    assert [(r.category, r.phenomenon, r.items) for r in report.rows] == [
        ("Negation", "Negative determiner", 3), ("Negation", "Negation scope", 2),
        ("False friends", "False friend", 4)]
    scope = report.rows[1].cells
    assert scope["Weak"].rate is None and scope["Strong"].rate == 1.0
    # the macro average stays over categories
    assert report.macro.cells["Weak"].rate == pytest.approx(1 / 6)


def test_table_and_document() -> None:
    report = build_systems_report("s", ["Strong", "Weak"], _counts(), ITEMS)
    table = report.to_table()
    text = render(table, "text")
    assert "100.0*" in text and "33.3 " in text and "overall (micro)" in text and "macro average" in text
    md = render(table, "md")
    assert "| Negation | 5 | **100.0** | 4 | 4 | 33.3 | 1 | 3 |" in md
    rows = list(csv.DictReader(io.StringIO(render(table, "csv"))))
    assert [r["category"] for r in rows] == ["Negation", "False friends", "overall (micro)", "macro average"]
    negation = rows[0]
    assert (negation["Weak pass"], negation["Weak judged"], negation["Weak best_cluster"]) == ("1", "3", "False")
    assert float(negation["Weak"]) == pytest.approx(1 / 3) and negation["Strong best_cluster"] == "True"
    assert rows[3]["Weak pass"] == "" and float(rows[3]["Weak"]) == pytest.approx(1 / 6)
    assert "Excluded outputs: Strong 1, Weak 3." in table.notes
    document = json.loads(report.to_json())
    assert document["systems"] == ["Strong", "Weak"]
    cell = document["rows"][0]["systems"]["Weak"]
    assert (cell["pass"], cell["fail"], cell["excluded"], cell["best_cluster"]) == (1, 2, 2, False)
    assert document["overall"]["systems"]["Strong"]["rate"] == 1.0
    assert document["macro"]["systems"]["Weak"] == {"rate": pytest.approx(1 / 6), "best_cluster": False}


def test_phenomenon_table_names_rows_by_category_and_phenomenon() -> None:
    table = build_systems_report("s", ["Strong", "Weak"], _counts(), ITEMS, by="phenomenon").to_table()
    assert [c.name for c in table.columns[:3]] == ["category", "phenomenon", "items"]
    assert [(row[0].value, row[1].value) for row in table.body] == [
        ("Negation", "Negative determiner"), ("Negation", "Negation scope"), ("False friends", "False friend")]


# --- counting system outputs in the database ------------------------------------------------------------

def test_a_merged_output_counts_once_per_system_with_effective_labels(db: Database) -> None:
    with db.transaction() as session:
        suite = Suite(name="tiny", source_lang="de", target_lang="en")
        session.add(suite)
        session.flush()
        category = Category(suite_id=suite.id, name="False friends")
        session.add(category)
        session.flush()
        phenomenon = Phenomenon(category_id=category.id, name="False friend")
        session.add(phenomenon)
        session.flush()
        items = [Item(suite_id=suite.id, external_id=str(i), position=i, phenomenon_id=phenomenon.id,
                      source=f"Satz {i}.") for i in range(2)]
        systems = [System(suite_id=suite.id, name=name) for name in ("A", "B", "C")]
        session.add_all([*items, *systems])
        session.flush()
        shared = Output(item_id=items[0].id, text="He gets a magazine.")
        wrong = Output(item_id=items[1].id, text="My chef is on holiday.")
        reviewed = Output(item_id=items[1].id, text="My boss is on holiday.")
        unclear = Output(item_id=items[1].id, text="My head is away.")
        session.add_all([shared, wrong, reviewed, unclear])
        session.flush()
        for system in systems:  # one distinct output shared by all three systems
            session.add(SystemOutput(system_id=system.id, item_id=items[0].id, output_id=shared.id))
        for system, output in zip(systems, (wrong, reviewed, unclear)):
            session.add(SystemOutput(system_id=system.id, item_id=items[1].id, output_id=output.id))
        session.flush()
        write_automatic_labels(session, {shared.id: "pass", wrong.id: "fail", reviewed.id: "conflict",
                                         unclear.id: "unknown"})
        session.add(ManualLabel(output_id=reviewed.id, label="pass", reviewer="r"))
    report = systems_report(db, "tiny")
    cells = report.overall.cells
    assert cells["A"].counts == Counts(passed=1, failed=1)
    assert cells["B"].counts == Counts(passed=2)  # the manual pass wins over the automatic conflict
    assert cells["C"].counts == Counts(passed=1, unknown=1)
    assert report.systems == ["B", "C", "A"]  # 100 %, 100 % (1/1), 50 %; ties by name
    assert [r.category for r in report.rows] == ["False friends"]
    assert report.rows[0].items == 2
