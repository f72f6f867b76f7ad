"""The report screens on the demo suite: the numbers shown are the CLI's, exports are the CLI's files."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pandas as pd
import pytest
from conftest import first_call_held
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from typer.testing import CliRunner

import gui.reports.qe as qe_module
from cli.main import app
from gui.operations import Operations
from gui.reports.export import CHART_FILTERS, TABLE_SUFFIXES, copy_table
from gui.reports.qe import QETab
from gui.reports.qe_dialogs import MetricRequest, TrainRequest
from gui.reports.systems import SystemsTab
from gui.reports.table_model import RAW_ROLE
from gui.state import AppState
from qe.evaluation import AccuracyOptions
from store import Database
from suite.figures import PLOT_SUFFIXES, save_figure
from suite.qe_scores import list_qe_systems
from suite.reading.browse import OutputFilter
from suite.tables import write_table

if TYPE_CHECKING:
    from gui.reports.discriminative import DiscriminativeTab

TabT = TypeVar("TabT", bound=QWidget)


def tsqe(db: Database, *args: str) -> str:
    result = CliRunner().invoke(app, ["--db", db.url, *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def _tester(model: QAbstractItemModel) -> QAbstractItemModelTester:
    return QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)


def _shown(qtbot: QtBot, ops: Operations, tab: TabT, *models: QAbstractItemModel) -> TabT:
    """The tab at the window's size, its models checked by Qt's tester, shown and computed."""
    qtbot.addWidget(tab)
    for model in models:
        _tester(model)
    tab.resize(1400, 900)
    tab.show()  # a shown tab computes its report (and recomputes after every change that concerns it)
    assert ops.wait_idle()
    return tab


@pytest.fixture
def systems_tab(qtbot: QtBot, state: AppState, ops: Operations) -> SystemsTab:
    tab = SystemsTab(state, ops)
    return _shown(qtbot, ops, tab, tab.model)


@pytest.fixture
def qe_tab(qtbot: QtBot, state: AppState, ops: Operations) -> QETab:
    tab = QETab(state, ops)
    return _shown(qtbot, ops, tab, tab.model, tab.systems_model)


@pytest.mark.parametrize("by", ["category", "phenomenon"])
def test_systems_tab_shows_what_report_systems_prints(systems_tab: SystemsTab, demo_db: Database, by: str) -> None:
    systems_tab.by.setCurrentIndex(systems_tab.by.findData(by))
    assert systems_tab._ops.wait_idle()
    document = json.loads(tsqe(demo_db, "report", "systems", "--by", by, "--format", "json"))
    model = systems_tab.model
    shown_systems = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(2, model.columnCount())]
    assert shown_systems == document["systems"]
    expected_rows = [*document["rows"], document["overall"], document["macro"]]
    assert model.rowCount() == len(expected_rows)
    for r, expected in enumerate(expected_rows):
        for c, name in enumerate(shown_systems, start=2):
            cell = expected["systems"][name]
            shown = model.data(model.index(r, c), RAW_ROLE)
            assert (shown is None and cell["rate"] is None) or shown == pytest.approx(cell["rate"])
            text = model.data(model.index(r, c))
            assert ("*" in text) == cell["best_cluster"]
            if cell["rate"] is not None:  # whole percents, so that 19 systems fit 1,280 px
                assert text.rstrip("*") == f"{100 * cell['rate']:.0f}"
            if "pass" in cell and cell["rate"] is not None:  # the rate to a tenth and the counts are its tooltip
                tip = model.data(model.index(r, c), Qt.ItemDataRole.ToolTipRole)
                assert tip.startswith(f"{name}: {100 * cell['rate']:.1f} %\npass {cell['pass']} · "
                                      f"fail {cell['fail']} ·")
    assert systems_tab.chart.image is not None


def test_double_clicking_a_systems_cell_asks_review_for_its_outputs(qtbot: QtBot, systems_tab: SystemsTab,
                                                                     state: AppState) -> None:
    model = systems_tab.model
    row = model.row(0)
    index = model.index(0, 3)
    with qtbot.waitSignal(state.review_requested) as requested:
        systems_tab.view.doubleClicked.emit(index)
    assert requested.args == [OutputFilter(system=model.system(3), category=row.category)]


def _accuracy_cells(tab: QETab) -> list[dict[str, tuple[float, bool]]]:
    """Per table row (body, then Total and weighed): each QE system's accuracy and whether it is bold."""
    model = tab.model
    assert tab.view_data is not None
    systems = tab.view_data.result.qe_systems
    columns = {model.headerData(c, Qt.Orientation.Horizontal): c for c in range(model.columnCount())}
    rows = []
    for r in range(model.rowCount()):
        cells = {}
        for q in systems:
            index = model.index(r, columns[q])
            font = model.data(index, Qt.ItemDataRole.FontRole)
            cells[q] = (model.data(index, RAW_ROLE), font is not None and font.bold())
        rows.append(cells)
    return rows


def _expected_accuracy(document: dict) -> list[dict[str, tuple[float, bool]]]:
    rows = [*document["rows"], document["total"], document["weighed"]]
    return [{q: (row["accuracy"][q], q in row["best"]) for q in document["qe_systems"]} for row in rows]


@pytest.mark.parametrize("options,args", [
    (AccuracyOptions(bootstrap=200, seed=1), ["--bootstrap", "200", "--seed", "1"]),
    (AccuracyOptions(by="phenomenon", ties="drop", bootstrap=100, seed=3),
     ["--by", "phenomenon", "--ties", "drop", "--bootstrap", "100", "--seed", "3"]),
    (AccuracyOptions(by="phenomenon", category="Verb tense/aspect/mood", bootstrap=0, qe=("demo-chrf",)),
     ["--category", "Verb tense/aspect/mood", "--bootstrap", "0", "--qe", "demo-chrf"]),
])
def test_qe_table_shows_what_tsqe_accuracy_prints(qe_tab: QETab, demo_db: Database, options: AccuracyOptions,
                                                  args: list[str]) -> None:
    qe_tab.set_options(options)
    assert qe_tab._ops.wait_idle()
    assert qe_tab.options() == options
    document = json.loads(tsqe(demo_db, "accuracy", *args, "--format", "json"))
    shown = _accuracy_cells(qe_tab)
    expected = _expected_accuracy(document)
    assert len(shown) == len(expected)
    for shown_row, expected_row in zip(shown, expected):
        assert shown_row.keys() == expected_row.keys()
        for q, (accuracy, best) in expected_row.items():
            assert shown_row[q][0] == pytest.approx(math.nan if accuracy is None else accuracy, nan_ok=True)
            assert shown_row[q][1] == best
    assert qe_tab.chart.image is not None and not qe_tab.chart.image.isNull()


def test_a_cell_lists_its_pairs_with_verdicts_that_add_up_to_the_accuracy(qe_tab: QETab) -> None:
    assert qe_tab.view_data is not None
    result = qe_tab.view_data.result
    column = [qe_tab.model.headerData(c, Qt.Orientation.Horizontal)
              for c in range(qe_tab.model.columnCount())].index("demo-qe")
    for row, accuracy_row in enumerate(result.rows[:3]):
        qe_tab.show_pairs(row, column)
        assert qe_tab._ops.wait_idle()
        pairs = qe_tab.pairs.pairs
        assert len(pairs) == accuracy_row.amount
        credit = sum(1.0 if p.verdict == "correct" else 0.5 if p.verdict == "tie" else 0.0 for p in pairs)
        assert credit / len(pairs) == pytest.approx(accuracy_row.accuracy["demo-qe"])
        assert {p.category for p in pairs} == {accuracy_row.category}
    assert "<span" in qe_tab.pairs.toHtml()  # the differing words are marked


def test_a_tie_rate_cell_lists_the_systems_tied_pairs(qe_tab: QETab) -> None:
    assert qe_tab.view_data is not None
    result = qe_tab.view_data.result
    assert result.ties == "half" and not result.ties_chosen  # "ties: default" on a suite that is no challenge set
    headers = [qe_tab.model.headerData(c, Qt.Orientation.Horizontal) for c in range(qe_tab.model.columnCount())]
    total = len(result.rows)
    qe_tab.show_pairs(total, headers.index("demo-chrf ties"))
    assert qe_tab._ops.wait_idle()
    pairs = qe_tab.pairs.pairs
    assert {p.verdict for p in pairs} <= {"tie"}
    assert len(pairs) == round(result.total.tie_rate["demo-chrf"] * result.total.counted["demo-chrf"])
    assert qe_tab.pairs.toPlainText().startswith("ties of demo-chrf on all rows")


def test_total_and_weighed_list_the_pairs_of_their_table_only(qe_tab: QETab) -> None:
    """In the phenomena of one category, Total and weighed are that category's pairs; they once listed the suite's."""
    qe_tab.set_options(AccuracyOptions(category="Verb tense/aspect/mood", bootstrap=0))
    assert qe_tab._ops.wait_idle() and qe_tab.view_data is not None
    result = qe_tab.view_data.result
    column = [qe_tab.model.headerData(c, Qt.Orientation.Horizontal)
              for c in range(qe_tab.model.columnCount())].index("demo-qe")
    assert result.total.amount is not None
    for row in (len(result.rows), len(result.rows) + 1):
        qe_tab.show_pairs(row, column)
        assert qe_tab._ops.wait_idle()
        pairs = qe_tab.pairs.pairs
        assert len(pairs) == result.total.amount < len(qe_tab.view_data.pairs)
        assert {p.category for p in pairs} == {"Verb tense/aspect/mood"}


def test_stability_shows_what_tsqe_stability_prints(qe_tab: QETab, demo_db: Database) -> None:
    qe_tab.splits.setValue(50)
    qe_tab.pages.setCurrentIndex(1)
    assert qe_tab._ops.wait_idle()
    document = json.loads(tsqe(demo_db, "stability", "--splits", "50", "--format", "json"))
    model = qe_tab.stability_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    tau = headers.index("mean tau")
    shown = [model.data(model.index(r, tau), RAW_ROLE) for r in range(model.rowCount())]
    expected = [row["mean_tau"] for row in document["rows"]] + [document["overall"]["mean_tau"]]
    assert shown == pytest.approx([math.nan if e is None else e for e in expected], nan_ok=True)


def test_a_cancelled_training_stores_nothing(qtbot: QtBot, qe_tab: QETab, ops: Operations, demo_db: Database) -> None:
    # The training notices the cancel after importing scikit-learn: 13 s on a machine with both cores busy, where
    # the 5 s this waited made it fail one run in five (issue 21).
    with qtbot.waitSignal(ops.message, timeout=60_000) as message:
        qe_tab.train(TrainRequest("demo-gb", "pairwise-gb", (), "hter", 3, 0))
        ops.cancel()
    assert "cancelled" in message.args[0]
    assert ops.wait_idle()
    assert "demo-gb" not in {s.name for s in list_qe_systems(demo_db)}


def test_a_finished_training_appears_in_the_list_and_the_table(qe_tab: QETab, ops: Operations) -> None:
    qe_tab.train(TrainRequest("demo-gb", "pairwise-gb", (), "hter", 3, 0))
    assert ops.wait_idle(120_000)
    assert ops.wait_idle()
    assert "demo-gb" in [s.name for s in qe_tab.systems_model.systems]
    assert qe_tab.view_data is not None and "demo-gb" in qe_tab.view_data.result.qe_systems


@pytest.mark.parametrize("fmt", list(TABLE_SUFFIXES))
def test_every_table_format_is_written_and_reads_back(qe_tab: QETab, tmp_path: Path, fmt: str) -> None:
    table = qe_tab.table()
    assert table is not None
    path = write_table(table, tmp_path / f"table{TABLE_SUFFIXES[fmt]}", fmt)
    if fmt in ("csv", "tsv"):
        frame = pd.read_csv(path, sep="," if fmt == "csv" else "\t")
        assert list(frame["category"])[-2:] == ["Total", "weighed"]
    elif fmt == "xlsx":
        frame = pd.read_excel(path)
        assert list(frame["category"])[-2:] == ["Total", "weighed"]
    elif fmt == "json":
        assert json.loads(path.read_text(encoding="utf-8"))
    else:
        text = path.read_text(encoding="utf-8")
        assert "weighed" in text and "demo-chrf" in text


@pytest.mark.parametrize("fmt", ["csv", "latex", "json"])
def test_exported_accuracy_files_are_the_clis_byte_for_byte(qe_tab: QETab, demo_db: Database, tmp_path: Path,
                                                            fmt: str) -> None:
    qe_tab.set_options(AccuracyOptions(by="phenomenon", bootstrap=300, seed=7))
    assert qe_tab._ops.wait_idle()
    table = qe_tab.table()
    assert table is not None
    mine = write_table(table, tmp_path / f"gui.{fmt}", fmt, document=qe_tab.document())
    theirs = tmp_path / f"cli.{fmt}"
    tsqe(demo_db, "accuracy", "--by", "phenomenon", "--bootstrap", "300", "--seed", "7", "--format", fmt,
         "--out", str(theirs))
    assert mine.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("fmt", ["csv", "latex", "json"])
def test_exported_systems_reports_are_the_clis_byte_for_byte(systems_tab: SystemsTab, demo_db: Database,
                                                             tmp_path: Path, fmt: str) -> None:
    systems_tab.by.setCurrentIndex(systems_tab.by.findData("phenomenon"))
    assert systems_tab._ops.wait_idle()
    table = systems_tab.table()
    assert table is not None
    mine = write_table(table, tmp_path / f"gui.{fmt}", fmt, document=systems_tab.document())
    theirs = tmp_path / f"cli.{fmt}"
    tsqe(demo_db, "report", "systems", "--by", "phenomenon", "--format", fmt, "--out", str(theirs))
    assert mine.read_bytes() == theirs.read_bytes()


def test_copy_as_latex_and_markdown_put_the_rendered_table_on_the_clipboard(qe_tab: QETab) -> None:
    from suite.tables import render

    table = qe_tab.table()
    assert table is not None
    for fmt in ("latex", "md"):
        copy_table(table, fmt)
        assert QGuiApplication.clipboard().text() == render(table, fmt)


@pytest.mark.parametrize("suffix,magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_charts_are_saved_as_png_svg_and_pdf(qe_tab: QETab, systems_tab: SystemsTab, tmp_path: Path,
                                             suffix: str, magic: bytes) -> None:
    assert tuple(CHART_FILTERS) == PLOT_SUFFIXES  # the dialog offers every type the core writes, and only those
    for name, tab in (("qe", qe_tab), ("systems", systems_tab)):
        figure = tab.figure()
        assert figure is not None
        path = save_figure(figure, tmp_path / f"{name}{suffix}")
        assert path.read_bytes().startswith(magic)


def test_index_helpers_ignore_an_invalid_index(qe_tab: QETab) -> None:
    assert qe_tab.model.data(QModelIndex()) is None


def test_the_saved_accuracy_chart_is_the_one_tsqe_plot_writes(qe_tab: QETab, demo_db: Database,
                                                               tmp_path: Path) -> None:
    qe_tab.set_options(AccuracyOptions(bootstrap=100, seed=2))
    assert qe_tab._ops.wait_idle()
    figure = qe_tab.figure()
    assert figure is not None
    mine = save_figure(figure, tmp_path / "gui.svg")
    theirs = tmp_path / "cli.svg"
    tsqe(demo_db, "plot", "accuracy", "--bootstrap", "100", "--seed", "2", "--out", str(theirs))
    assert _without_ids(mine.read_text()) == _without_ids(theirs.read_text())


def _without_ids(svg: str) -> str:
    """matplotlib names clip paths and glyphs with random ids and stamps the date; the drawing is the rest."""
    import re

    return re.sub(r'(id|href|clip-path)="[^"]*"|<dc:date>[^<]*</dc:date>', "", svg)


@pytest.fixture
def discriminative_tab(qtbot: QtBot, state: AppState, ops: Operations) -> DiscriminativeTab:
    from gui.reports.discriminative import DiscriminativeTab

    tab = DiscriminativeTab(state, ops)
    return _shown(qtbot, ops, tab, tab.model, tab.correlation_model)


def _rank(tab: DiscriminativeTab, metric: str, drop: float) -> None:
    tab.metric_choice.setCurrentIndex(tab.metric_choice.findData(metric))
    tab.set_drop(drop)
    tab.rank()
    assert tab._ops.wait_idle(120_000)


@pytest.mark.parametrize("metric", ["chrf", "label", "qe:demo-qe"])
def test_items_are_ranked_and_kept_as_tsqe_variance_does(discriminative_tab: DiscriminativeTab, demo_db: Database,
                                                         metric: str) -> None:
    assert discriminative_tab.variance is not None
    _rank(discriminative_tab, metric, 0.5)
    for drop in (0.5, 0.3):
        discriminative_tab.set_drop(drop)
        document = json.loads(tsqe(demo_db, "variance", "--metric", metric, "--drop", str(drop), "--json"))
        model = discriminative_tab.model
        shown = [(model.data(model.index(r, 0), RAW_ROLE), model.data(model.index(r, 1), RAW_ROLE))
                 for r in range(model.rowCount())]
        assert shown == [(r["item"], pytest.approx(r["std"])) for r in document["ranking"]]
        assert discriminative_tab.variance.kept == document["kept"]
        assert f"{len(document['kept'])} of {len(document['ranking'])} items kept" in discriminative_tab.kept.text()


def test_the_kept_subset_is_written_as_the_cli_writes_it(discriminative_tab: DiscriminativeTab, demo_db: Database,
                                                          tmp_path: Path) -> None:
    _rank(discriminative_tab, "chrf", 0.6)
    discriminative_tab.export_vat(tmp_path / "gui")
    assert discriminative_tab._ops.wait_idle()
    tsqe(demo_db, "variance", "--metric", "chrf", "--drop", "0.6", "--vat-dir", str(tmp_path / "cli"))
    written = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert written and sorted(p.name for p in (tmp_path / "gui").iterdir()) == written
    for name in written:
        assert (tmp_path / "gui" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()


def test_selecting_an_item_shows_every_systems_output_and_score(discriminative_tab: DiscriminativeTab) -> None:
    assert discriminative_tab.variance is not None
    _rank(discriminative_tab, "chrf", 0.6)
    top = discriminative_tab.variance.ranking[0]
    discriminative_tab.select_item(top.item)
    assert discriminative_tab._ops.wait_idle()
    view = discriminative_tab.item
    assert view is not None and view.item == top.item
    assert set(view.scores) == set(view.outputs) and len(view.scores) == top.systems
    assert list(view.scores.values()) == sorted(view.scores.values(), reverse=True)  # chrF: the best first
    text = discriminative_tab.detail.toPlainText()
    assert all(row.text in text for row in view.outputs.values())


def test_correlations_are_those_of_tsqe_correlate(discriminative_tab: DiscriminativeTab, demo_db: Database) -> None:
    metrics = ["chrf", "bleu", "label", "qe:demo-qe"]
    discriminative_tab.set_correlation_metrics(metrics)
    discriminative_tab.top.setValue(3)
    discriminative_tab.correlate()
    assert discriminative_tab._ops.wait_idle(120_000)
    model = discriminative_tab.correlation_model
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["metric", "refs", "systems", "segments", "Pearson r", "Spearman rho", "Kendall tau",
                       "Pearson r top 3", "Spearman rho top 3", "Kendall tau top 3"]
    rows = {model.data(model.index(r, 0), RAW_ROLE): [model.data(model.index(r, c), RAW_ROLE)
                                                     for c in range(model.columnCount())]
            for r in range(model.rowCount())}
    assert sorted(rows) == sorted(metrics)
    for metric, shown in rows.items():
        everyone = json.loads(tsqe(demo_db, "correlate", "--metric", metric, "--json", "--bootstrap", "0"))
        best = json.loads(tsqe(demo_db, "correlate", "--metric", metric, "--top", "3", "--json", "--bootstrap", "0"))
        assert shown[2] == len(everyone["systems"])
        expected = [everyone[k] for k in ("pearson", "spearman", "kendall")] + [
            best[k] for k in ("pearson", "spearman", "kendall")]
        assert shown[4:] == pytest.approx([math.nan if e is None else e for e in expected], nan_ok=True)


def test_reference_tokens_are_shaded_by_their_difficulty(discriminative_tab: DiscriminativeTab,
                                                         demo_db: Database) -> None:
    assert discriminative_tab.variance is not None
    _rank(discriminative_tab, "chrf", 0.6)
    item = discriminative_tab.variance.ranking[0].item
    discriminative_tab.select_item(item)
    discriminative_tab.compute_difficulty()
    assert discriminative_tab._ops.wait_idle(300_000)
    document = json.loads(tsqe(demo_db, "difficulty", "--json"))
    assert discriminative_tab.item is not None and discriminative_tab.item.tokens is not None
    assert [[t, pytest.approx(d, abs=1e-6)] for t, d in discriminative_tab.item.tokens] == document["items"][item]
    assert "background-color:#" in discriminative_tab.detail.toHtml()


def test_qe_systems_are_imported_stored_from_a_metric_and_removed_from_the_tab(qe_tab: QETab, ops: Operations,
                                                                            tmp_path: Path) -> None:
    scores = tmp_path / "scores.tsv"
    scores.write_text("item_id\tsystem\tscore\namb-01\tOnline-X\t0.25\namb-01\tBaseline-SMT\t0.75\n", encoding="utf-8")
    qe_tab.import_scores(str(scores), "two-scores", lower_is_better=True)
    qe_tab.metric_as_qe(MetricRequest("ter", "ter-proxy"))
    assert ops.wait_idle(120_000)
    listed = {s.name: s for s in qe_tab.systems_model.systems}
    assert listed["two-scores"].scores == 2 and not listed["two-scores"].higher_is_better
    assert listed["ter-proxy"].kind == "metric" and listed["ter-proxy"].scores == 278
    assert qe_tab.view_data is not None and "ter-proxy" in qe_tab.view_data.result.qe_systems
    qe_tab.remove("two-scores")
    assert ops.wait_idle()
    assert "two-scores" not in [s.name for s in qe_tab.systems_model.systems]
    assert qe_tab.view_data is not None and "two-scores" not in qe_tab.view_data.result.qe_systems
    qe_tab.metric_as_qe(MetricRequest("chrf", "chrf-known", "known-good"))  # the QE tab takes the reference choice
    assert ops.wait_idle(120_000)
    stored = {s.name: s for s in qe_tab.systems_model.systems}["chrf-known"]
    assert stored.meta["refs"] == "known-good" and stored.meta["signature"].endswith("|refs:known-good|combine:multi")


def test_a_table_computed_before_a_qe_write_is_neither_shown_nor_reused_after_it(
        qtbot: QtBot, qe_tab: QETab, ops: Operations, state: AppState, monkeypatch: pytest.MonkeyPatch) -> None:
    """A computation still running when a write adds a QE system ends after the write's notification, with the
    data as they were. Its result once landed as if current, and the tab kept reusing its scores: the new system
    was listed but missing from the table. Here the computation is held until the write has finished."""
    with first_call_held(monkeypatch, qe_module, "accuracy") as held:
        qe_tab.compute()
        qtbot.waitUntil(held.is_set)
        qe_tab.hide()  # the user looks at another tab meanwhile
        with qtbot.waitSignal(state.operation_executed, timeout=120_000):
            qe_tab.metric_as_qe(MetricRequest("ter", "ter-proxy"))
    assert ops.wait_idle()
    qe_tab.show()
    assert ops.wait_idle()
    assert [s.name for s in qe_tab.systems_model.systems][-1] == "ter-proxy"
    assert qe_tab.view_data is not None and qe_tab.view_data.result.qe_systems[-1] == "ter-proxy"


def test_unchecking_a_qe_system_leaves_it_out_of_the_table(qe_tab: QETab) -> None:
    model = qe_tab.systems_model
    row = [s.name for s in model.systems].index("demo-qe")
    model.setData(model.index(row, 0), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    qe_tab.compute()
    assert qe_tab._ops.wait_idle()
    assert qe_tab.options().qe == ("demo-chrf",)
    assert qe_tab.view_data is not None and qe_tab.view_data.result.qe_systems == ["demo-chrf"]


def test_the_trees_selection_selects_the_row_in_every_report(systems_tab: SystemsTab, qe_tab: QETab,
                                                             discriminative_tab: DiscriminativeTab, state: AppState,
                                                             demo_db: Database) -> None:
    assert discriminative_tab.variance is not None and qe_tab.view_data is not None
    from gui.state import Selection
    from suite.editing.api import find_item

    _rank(discriminative_tab, "chrf", 0.6)
    item = discriminative_tab.variance.ranking[5]
    qe_row = qe_tab.view_data.result.rows[3]
    state.select(Selection(category=qe_row.category, item_id=find_item(demo_db, item.item)))
    assert state is systems_tab._state and systems_tab._ops.wait_idle()
    assert systems_tab.model.row(systems_tab.view.currentIndex().row()).category == qe_row.category
    assert qe_tab.view.currentIndex().row() == 3
    assert discriminative_tab.item is not None and discriminative_tab.item.item == item.item
