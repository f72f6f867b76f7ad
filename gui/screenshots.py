"""``python -m gui.screenshots OUTDIR``: the pictures of the README and docs/, taken from the real window on the demo.

Each picture is one function registered with ``@shot(name)``; it gets the main window, open on a fresh copy
of the demo suite with the tree and the review table filled, and returns what to save. Screens added later
add their picture by adding one function here. Then every tab is taken once more in a window of 1,280×720, the
screen of many laptops (``tab-N-NAME-1280x720.png``), where everything has to work too (issue 16).
"""
from __future__ import annotations

import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPoint
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QProgressDialog

from gui.app import application
from gui.main_window import TABS, MainWindow
from gui.operations import Write, changes_nothing
from gui.review.columns import COLUMN
from gui.state import Selection
from store import Database, open_database
from store.domain import Label, Polarity
from suite.changes import ANYWHERE, Changes
from suite.demo import create_demo
from suite.editing.api import find_item
from suite.reading.browse import OutputFilter
from suite.tasks import TaskState

Shot = Callable[[MainWindow], QPixmap]
SHOTS: dict[str, Shot] = {}


def shot(name: str) -> Callable[[Shot], Shot]:
    def register(function: Shot) -> Shot:
        SHOTS[name] = function
        return function
    return register


def settle(window: MainWindow, seconds: float = 0.3) -> None:
    """Let background reads land and the window repaint."""
    window.ops.wait_idle()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.01)
    window.ops.wait_idle()


@shot("main-window")
def main_window(window: MainWindow) -> QPixmap:
    window.tabs.setCurrentWidget(window.review)
    window.tree.view.expand(window.tree.model.index(2, 0))
    window.tree.view.expand(window.tree.model.index(0, 0, window.tree.model.index(2, 0)))
    settle(window)
    return window.grab()


@shot("review")
def review(window: MainWindow) -> QPixmap:
    window.tabs.setCurrentWidget(window.review)
    window.state.show_review(OutputFilter(label=Label.FAIL, category="Ambiguity"))
    settle(window)
    window.review.set_current_row(0)
    settle(window)
    return window.grab()


@shot("progress-dialog")
def progress_dialog(window: MainWindow) -> QPixmap:
    """A long job's dialog over the window (the dialog is its own top-level window, so paint it on)."""
    release = threading.Event()

    def work(task: TaskState) -> None:
        task.progress(1204, 2767, "labelling items")
        release.wait(10)

    Write("labelling", work, said=lambda _: "shown", changes=changes_nothing).run(window.ops)
    deadline = time.monotonic() + 5
    dialogs: list[QProgressDialog] = []
    while not dialogs and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.01)
        dialogs = [d for d in window.findChildren(QProgressDialog) if d.isVisible()]
    time.sleep(1.1)  # long enough for the estimate of the time left
    QApplication.processEvents()
    picture = window.grab()
    if dialogs:
        dialog = dialogs[0].grab()
        painter = QPainter(picture)
        painter.drawPixmap(QPoint((picture.width() - dialog.width()) // 2, (picture.height() - dialog.height()) // 3),
                           dialog)
        painter.end()
    release.set()
    settle(window)
    return picture


@shot("systems-report")
def systems_report(window: MainWindow) -> QPixmap:
    window.tabs.setCurrentWidget(window.systems)
    settle(window)
    return window.grab()


@shot("qe-accuracy")
def qe_accuracy(window: MainWindow) -> QPixmap:
    window.tabs.setCurrentWidget(window.qe)
    settle(window)
    return window.grab()


@shot("qe-pairs")
def qe_pairs(window: MainWindow) -> QPixmap:
    """The pairs behind one cell: demo-qe on the phenomena of one category, differences marked."""
    from gui.reports.qe import AccuracyOptions

    window.tabs.setCurrentWidget(window.qe)
    settle(window)
    window.qe.set_options(AccuracyOptions(by="phenomenon", category="Coordination & ellipsis"))
    settle(window)
    window.qe.show_pairs(0, 2)  # columns: phenomenon, amount, demo-qe, demo-chrf
    settle(window)
    return window.grab()


@shot("discriminative")
def discriminative(window: MainWindow) -> QPixmap:
    """Items ranked by chrF's deviation over systems; an idiom's reference tokens shaded by difficulty."""
    tab = window.discriminative
    window.tabs.setCurrentWidget(tab)  # the first showing ranks and correlates by itself
    window.ops.wait_idle(600_000)
    settle(window)
    tab.select_item("mwe-02")
    tab.compute_difficulty()
    window.ops.wait_idle(600_000)
    tab.top.setValue(3)
    tab.correlate()  # again, over the three best systems
    window.ops.wait_idle(600_000)
    settle(window)
    return window.grab()


@shot("item-editor")
def item_editor(window: MainWindow) -> QPixmap:
    """amb-01 with its positive rule widened while typing: the output that says "bank ... river" turns from
    fail to conflict, so the picture shows positive and negative matches side by side, a flip, and the
    scope preview over the item's category."""
    window.tabs.setCurrentWidget(window.editor)
    db = window.state.db
    assert db is not None
    window.state.select(Selection(item_id=find_item(db, "amb-01", window.state.suite_name)))
    settle(window)
    field = window.editor.rule_lists[Polarity.POSITIVE].editor(0)
    assert field is not None
    field.setFocus()
    field.setPlainText(r"\bbench\b|\briver\b")
    window.editor.scope.scope.setCurrentText("category")
    window.editor.start_preview()
    window.editor.start_scope()
    settle(window)
    return window.grab()


SMALL_SCREEN = (1280, 720)


def small_screen_tabs(window: MainWindow, out: Path) -> list[Path]:
    """Each tab at 1,280×720, with what it is used for on screen: an item in the editor, the queue, the reports."""
    window.resize(*SMALL_SCREEN)
    window.fit_tree_dock()  # as the window starts on that screen
    db = window.state.db
    assert db is not None
    written = []
    for index, (_, name) in enumerate(TABS):
        window.tabs.setCurrentIndex(index)
        if name == "editor":
            window.state.select(Selection(item_id=find_item(db, "amb-01", window.state.suite_name)))
        elif name == "review":
            window.state.show_review(OutputFilter())  # the queue as it opens, not the pictures' filters
            window.state.select(Selection())
        window.ops.wait_idle(600_000)
        if name == "meta_eval":
            window.meta_eval.compute()  # the tab shows nothing before Run; the demo has human scores to run on
            window.ops.wait_idle(600_000)
        settle(window, 0.6)
        path = out / f"tab-{index + 1}-{name}-{SMALL_SCREEN[0]}x{SMALL_SCREEN[1]}.png"
        window.grab().save(str(path))
        written.append(path)
    return written


@shot("rule-suggestions")
def rule_suggestions(window: MainWindow) -> QPixmap:
    """vt-11, which the linguist has just added (a known translation, no rule): the rules its paradigm suggests,
    the first one taken with Enter, and the live preview and scope showing what it decides."""
    window.tabs.setCurrentWidget(window.editor)
    db = window.state.db
    assert db is not None
    window.state.select(Selection(item_id=find_item(db, "vt-11", window.state.suite_name)))
    window.editor.splitter.setSizes([640, 860])  # the editor's column wide enough for the suggestions' columns
    settle(window)
    window.editor.suggestions.view.setFocus()
    window.editor.suggestions.add_current()
    window.editor.scope.scope.setCurrentText("phenomenon")
    window.editor.start_scope()
    settle(window)
    picture = window.grab()
    window.editor.discard_all()  # the taken suggestion is not saved, and closing must not ask about it
    settle(window)
    return picture


@shot("rule-health")
def rule_health(window: MainWindow) -> QPixmap:
    """Nothing selected in the tree: the health of the suite's rules, only those with a problem, the serious
    ones (overridden, not compiling, always conflicting, mistyped) first."""
    from PySide6.QtCore import Qt

    from gui.editor.rule_health import PROBLEMS

    window.tabs.setCurrentWidget(window.editor)
    window.state.select(Selection())
    settle(window)
    window.editor.health.only_problems.setChecked(True)
    window.editor.health.view.sortByColumn(PROBLEMS, Qt.SortOrder.DescendingOrder)
    settle(window)
    return window.grab()



@shot("review-assist")
def review_assist(window: MainWindow) -> QPixmap:
    """The Obligation paradigm in Review by impact: vt-11's two alike outputs as one row (a fifth system's, added
    for the picture, and Rheinfall-LLM's) with the neighbour's suggestion Enter accepts, and the pass/fail pairs
    each decision would add."""
    from suite.importers import import_outputs

    db = window.state.db
    assert db is not None
    with tempfile.TemporaryDirectory() as folder:
        more = Path(folder) / "outputs.tsv"
        more.write_text("item_id\tsystem\toutput\nvt-11\tTannenzapf-MT\tshe must send the letter today\n",
                        encoding="utf-8")
        imported = import_outputs(db, more, label=True)
    window.state.operation_executed.emit(imported.changes)  # as the window's own import says what changed
    window.tabs.setCurrentWidget(window.review)
    review = window.review
    window.state.show_review(OutputFilter())  # the review picture's "fail" stayed and hid every undecided output
    window.state.select(Selection("Verb tense/aspect/mood", "Obligation"))
    settle(window)
    review.order_by_impact()
    review.table.setColumnHidden(COLUMN["source"], True)
    window.tree_dock.hide()  # room for the suggestion and pairs columns
    review.splitter.setSizes([1100, 380])
    settle(window, 2.5)  # the suggestions are learned in the background
    review.set_current_row(0)
    settle(window, 1.0)
    picture = window.grab()
    review.table.setColumnHidden(COLUMN["source"], False)
    window.tree_dock.show()
    return picture


@shot("reviewers")
def reviewers(window: MainWindow) -> QPixmap:
    """A team at work: two reviewers' decisions, a double review planned with controls, two second reviewers'
    blind answers; the Disagreements page and, over the status bar, the review view (agreement per reviewer pair
    and category, accuracy on controls)."""
    db = window.state.db
    assert db is not None
    _team_at_work(db)
    window.state.operation_executed.emit(Changes(reviews=ANYWHERE, assignments=True))
    window.tabs.setCurrentWidget(window.review)
    window.review.show_page("disagreements")
    settle(window, 1.0)
    window.review.adjudication.row_cursor.set_current(0)  # the detail panel follows the row put current
    settle(window, 1.0)
    window.show_reviewers()
    settle(window, 1.0)
    picture = window.grab()
    view = window.reviewers_view
    painter = QPainter(picture)
    painter.drawPixmap(window.mapFromGlobal(view.mapToGlobal(QPoint(0, 0))), view.grab())
    painter.end()
    view.hide()
    window.review.show_page("queue")
    return picture


def _team_at_work(db: Database) -> None:
    """anna and jonas decide 90 outputs as the rules did; 40 % of them are planned for double review with a fifth
    of controls; ben and cara answer blind, now and then differently (seeded)."""
    import random

    from sqlalchemy import select

    from store.models import ReviewAssignment
    from suite.assist.double_review import Answer, answer_assignments, plan_review_checks, take_assignments
    from suite.editing.review import OutputDecision, SeenOutput, decide
    from suite.reading.browse import output_ids, output_rows

    rng = random.Random(4)
    rows = [row for row in output_rows(db, output_ids(db, OutputFilter(reviewed=False)))
            if row.effective_label in ("pass", "fail")]
    rng.shuffle(rows)
    for reviewer, part in (("anna", rows[:60]), ("jonas", rows[60:90])):
        for label in (Label.PASS, Label.FAIL):
            decide(db, [OutputDecision(SeenOutput(row.output_id), label) for row in part
                        if row.effective_label == label], reviewer)
    plan_review_checks(db, double_share=0.4, control_share=0.2, seed=1, author="lead")
    for reviewer, count, differently in (("ben", 24, 0.12), ("cara", 14, 0.2)):
        given = take_assignments(db, reviewer, limit=count)
        with db.session() as session:
            expected = dict(session.execute(select(ReviewAssignment.id, ReviewAssignment.expected)).tuples().all())
        answers = [Answer(a.id, Label(expected[a.id]) if rng.random() > differently else
                          Label.FAIL if expected[a.id] == Label.PASS else Label.PASS) for a in given[:count - 4]]
        answer_assignments(db, answers, reviewer)


def _wait_for_review(window: MainWindow) -> None:
    while window.state.tree is None or not window.review.model.all_cached(0, 20):
        QApplication.processEvents()
        time.sleep(0.01)


def take(out: Path, names: list[str] | None = None) -> list[Path]:
    app = application()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        db = open_database(Path(folder) / "demo.sqlite")
        create_demo(db)
        window = MainWindow()
        window.state.reviewer = "Demo Reviewer"
        window.resize(1500, 900)
        window.fit_tree_dock()  # as the window starts at that size (the offscreen screen is smaller)
        window.show()
        window.open_target(str(Path(folder) / "demo.sqlite"))
        _wait_for_review(window)
        written = []
        for name, function in SHOTS.items():
            if names and name not in names:
                continue
            path = out / f"{name}.png"
            function(window).save(str(path))
            written.append(path)
        if not names:
            written += small_screen_tabs(window, out)
        window.editor.discard_all()  # the item editor's picture leaves a draft, which closing would ask about
        window.close()
        window.deleteLater()
        app.processEvents()  # destroy the Qt objects now, not while the interpreter shuts down
        db.close()
    return written


if __name__ == "__main__":
    for written in take(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"), sys.argv[2:] or None):
        print(written)
