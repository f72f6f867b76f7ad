"""The one window: suite tree on the left, the five screens as tabs, menus for every action, a status bar.

The window only wires things together: screens observe ``AppState``, every database call goes through
``Operations``, and what the window itself does (open, import, export, label) is one core call each.
"""
from __future__ import annotations

import html
from functools import partial
from pathlib import Path
from typing import Any

import platformdirs
from PySide6.QtCore import QByteArray, QSettings, Qt, QUrl
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QTabWidget,
    QTextBrowser,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from gui import drafts
from gui.colours import LABEL_COLOURS
from gui.editor.screen import ItemEditorScreen
from gui.elided_label import ElidedLabel
from gui.operations import Operations
from gui.operations import suite as suite_ops
from gui.operations.undo import Step
from gui.output_policy import edit_output_policy
from gui.reports.discriminative import DiscriminativeTab
from gui.reports.qe import QETab
from gui.reports.systems import SystemsTab
from gui.review.reviewers_view import ReviewersView
from gui.review.screen import PAGES, ReviewScreen
from gui.state import AppState, Selection
from gui.suite_edits import SuiteEdits
from gui.tree import SuiteTreePane
from store import Database
from suite.changes import Changes
from suite.engine.label_counts import LabelCounts
from suite.errors import TsqeError
from suite.importers.kinds import IMPORT_KINDS, ImportKind, import_kind
from suite.importers.suite_import import default_suite_name
from suite.reading.names import suite_names
from suite.suites import split_language_pair
from suite.version import VERSION

TABS = (("Item && rules", "editor"), ("Review", "review"), ("Systems", "systems"), ("QE accuracy", "qe"),
        ("Discriminative", "discriminative"))
DEFAULT_SIZE = (1400, 860)
MAX_MIN_WIDTH = 1200
"""The widest the window may insist on being: laptops have 1,280 or 1,366 px (tests/gui/test_window_size.py)."""
TREE_WIDTH = (260, 340)
TREE_SHARE = 0.235
"""The suite tree's dock at the start: this share of the window, within TREE_WIDTH. At 340 px on a 1,280 px
screen it left the review table too little room to show its columns beside a readable output."""
RECENT = "files/recent"
LAST = "files/last"
MAX_RECENT = 8
SUITE_FILES = "suites (*.json *.tsv *.csv *.xlsx)"
TABLE_FILES = "tables (*.tsv *.csv *.xlsx)"


def demo_path() -> Path:
    return Path(platformdirs.user_data_dir("tsqe", appauthor=False)) / "demo.sqlite"


def counts_html(counts: LabelCounts) -> str:
    words = [("pass", counts.passed), ("fail", counts.failed), ("conflict", counts.conflict),
             ("unknown", counts.unknown), ("error", counts.error)]
    parts = [f'<span style="color:{LABEL_COLOURS[w]}"><b>{w}</b></span> {n:,}' for w, n in words]
    if counts.unlabelled:
        parts.append(f"not labelled {counts.unlabelled:,}")
    return " · ".join(parts)


class MainWindow(QMainWindow):
    def __init__(self, state: AppState | None = None) -> None:
        super().__init__()
        self.state = state or AppState(self)
        self.ops = Operations(self.state, self)
        self.setAcceptDrops(True)
        self.fit_to_screen()
        self._db_target: str | None = None
        self.keys_dialog: QDialog | None = None

        self.tree = SuiteTreePane(self.state, self.ops, self)
        self.tree_dock = QDockWidget("Suite", self)
        self.tree_dock.setObjectName("suite-tree")
        self.tree_dock.setWidget(self.tree)
        self.tree_dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetClosable
                                   | QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.tree_dock)
        self.fit_tree_dock()

        self.editor = ItemEditorScreen(self.state, self.ops, self)
        self.review = ReviewScreen(self.state, self.ops, self)
        self.systems = SystemsTab(self.state, self.ops, self)
        self.qe = QETab(self.state, self.ops, self)
        self.discriminative = DiscriminativeTab(self.state, self.ops, self)
        self.screens: list[QWidget] = [self.editor, self.review, self.systems, self.qe, self.discriminative]
        self.tabs = QTabWidget(self)
        for (title, _), screen in zip(TABS, self.screens, strict=True):
            self.tabs.addTab(screen, title)
        self.setCentralWidget(self.tabs)

        self.suite_box = QComboBox(self)
        self.suite_box.setMinimumContentsLength(16)
        self.suite_box.activated.connect(lambda _: self.switch_suite(self.suite_box.currentText()))
        toolbar = QToolBar("Suite", self)
        toolbar.setObjectName("suite-toolbar")
        toolbar.addWidget(QLabel(" suite ", self))
        self._suite_box_action = toolbar.addWidget(self.suite_box)
        self.addToolBar(toolbar)
        self.suite_toolbar = toolbar

        self.counts_label = QLabel(self)
        self.review_label = QLabel(self)
        self.review_label.linkActivated.connect(lambda _: self.show_reviewers())
        self.reviewers_view = ReviewersView(self.state, self.ops, self._show_review_page, self)
        self.job_label = ElidedLabel("", self)
        self.job_label.setMaximumWidth(360)
        self.job_bar = QProgressBar(self)
        self.job_bar.setMaximumWidth(140)
        self.job_bar.setRange(0, 1000)
        self.job_bar.hide()
        status = self.statusBar()
        status.addPermanentWidget(self.counts_label)
        status.addPermanentWidget(self.review_label)
        status.addPermanentWidget(self.job_label)
        status.addPermanentWidget(self.job_bar)

        self.edits = SuiteEdits(self.state, self.ops, self.tree.current_selection, self.tree, self)
        self.rule_health_action = QAction("Rule &health", self)
        self.rule_health_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
        self.rule_health_action.setToolTip("how the rules of the selected category or phenomenon are doing")
        self.rule_health_action.triggered.connect(self.show_rule_health)
        self.tree.context_actions = [*self.edits.actions, self.rule_health_action]
        self.drafts = drafts.DraftKeeper(self.state, self.editor.unsaved, self.editor.recover, self)
        self.editor.drafts_changed.connect(lambda: self.setWindowModified(bool(self.editor.unsaved())))
        self._make_menus()

        self.ops.message.connect(status.showMessage)  # stays until the next one: what the last job did
        self.ops.progressed.connect(self._job_progress)
        self.ops.busy_changed.connect(self._job_busy)
        self.state.tree_loaded.connect(self._show_counts)
        self.state.suite_changed.connect(self._suite_changed)
        self.state.review_requested.connect(lambda _: self.tabs.setCurrentWidget(self.review))
        self.state.edit_requested.connect(lambda _: self.tabs.setCurrentWidget(self.editor))
        self.tabs.currentChanged.connect(lambda i: QSettings().setValue("window/tab", i))
        self.tabs.currentChanged.connect(lambda _: self.focus_screen())
        self._update_title()

    def fit_to_screen(self) -> None:
        """The default size, or the screen's available area where that is smaller: a window asked for on a
        1,280×720 screen stayed 1,459 px wide (issue 16). The minimum width stays at most ``MAX_MIN_WIDTH`` whatever is
        loaded: choosers show few characters and long messages elide or wrap (``gui.elided_label``)."""
        available = self.screen().availableGeometry()
        self.resize(min(DEFAULT_SIZE[0], available.width()), min(DEFAULT_SIZE[1], available.height()))

    def fit_tree_dock(self) -> None:
        """The suite tree's width at the start, for the window's width (a remembered layout overrides it)."""
        width = max(TREE_WIDTH[0], min(TREE_WIDTH[1], round(self.width() * TREE_SHARE)))
        self.resizeDocks([self.tree_dock], [width], Qt.Orientation.Horizontal)

    # --- menus ------------------------------------------------------------------------------------
    def _action(self, menu: QMenu, text: str, slot: Any, key: str | QKeySequence.StandardKey | None = None
                ) -> QAction:
        action = menu.addAction(text)
        if key is not None:
            action.setShortcut(QKeySequence(key))
        action.triggered.connect(slot)
        return action

    def _make_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self._action(file, "&New database…", self._new_database)
        self._action(file, "&Open database…", self._open_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = file.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._action(file, "Open the &demo", self.open_demo)
        file.addSeparator()
        self._action(file, "Import &suite…", lambda: self._import_dialog("suite"), "Ctrl+I")
        self._action(file, "Import MT &outputs…", lambda: self._import_dialog("outputs"))
        self._action(file, "Import reviewed &labels…", lambda: self._import_dialog("labels"))
        file.addSeparator()
        self._action(file, "Export the s&uite…", self._export_suite)
        self._action(file, "&Export labels…", self._export_labels, "Ctrl+E")
        file.addSeparator()
        self._action(file, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        edit = bar.addMenu("&Edit")
        self.undo_action = self._action(edit, "&Undo", lambda: self.step("undo"), QKeySequence.StandardKey.Undo)
        self.redo_action = self._action(edit, "&Redo", lambda: self.step("redo"), "Ctrl+Shift+Z")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        stack = self.state.undo_stack
        stack.indexChanged.connect(self._name_steps)
        self._name_steps()
        edit.addSeparator()
        self._action(edit, "&Find in this screen", self.focus_search, QKeySequence.StandardKey.Find)
        self._action(edit, "Find in the suite &tree", self._focus_tree_search, "Ctrl+Shift+F")

        view = bar.addMenu("&View")
        tree_toggle = self.tree_dock.toggleViewAction()
        tree_toggle.setText("Suite &tree")
        tree_toggle.setShortcut(QKeySequence("Ctrl+T"))
        view.addAction(tree_toggle)
        detail = self._action(view, "Review &detail panel", lambda shown: self.review.detail.setVisible(shown),
                              "Ctrl+D")
        detail.setCheckable(True)
        detail.setChecked(True)
        self.detail_toggle = detail
        columns = view.addMenu("Review &columns")
        columns.aboutToShow.connect(lambda: self.review.fill_columns_menu(columns))
        view.addSeparator()
        for i, (title, _) in enumerate(TABS):
            self._action(view, title, lambda _=False, i=i: self.show_tab(i), f"Ctrl+{i + 1}")

        suite = bar.addMenu("&Suite")
        self._action(suite, "&Label all", self.label_all, "F5")
        self.suite_menu = suite.addMenu("&Choose suite")
        self.suite_menu.aboutToShow.connect(self._fill_suite_menu)
        self._action(suite, "Degenerate &outputs…", lambda: edit_output_policy(self.state, self.ops, self))
        suite.addSeparator()
        suite.addActions(self.edits.actions)
        suite.addSeparator()
        suite.addAction(self.rule_health_action)

        review = bar.addMenu("&Review")
        review.addActions(self.review.actions())
        review.addSeparator()
        for name, title in PAGES:
            self._action(review, f"Show {title.lower()}", lambda _=False, page=name: self._show_review_page(page))
        self._action(review, "Reviewers' agreement and controls…", self.show_reviewers)
        qe = bar.addMenu("&QE")
        for screen in (self.systems, self.qe, self.discriminative):
            actions = getattr(screen, "actions", None)
            if actions is not None and actions():
                qe.addActions(actions())
        for i in (2, 3, 4):
            self._action(qe, f"Show {TABS[i][0]}", lambda _=False, i=i: self.tabs.setCurrentIndex(i))
        editor_actions = getattr(self.editor, "actions", None)
        if editor_actions is not None and editor_actions():
            bar.insertMenu(view.menuAction(), self._menu_of("&Item", editor_actions()))

        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "&Keys", self._show_keys, "F1")
        self._action(help_menu, "&About tsqe", self._about)

    # --- undo -------------------------------------------------------------------------------------
    def _name_steps(self) -> None:
        """The Edit menu names the step: "Undo: pass on 00544005 · UEdin"."""
        stack = self.state.undo_stack
        for action, word, text, can in ((self.undo_action, "&Undo", stack.undoText(), stack.canUndo()),
                                        (self.redo_action, "&Redo", stack.redoText(), stack.canRedo())):
            action.setText(f"{word}: {text.replace('&', '&&')}" if can else word)
            action.setEnabled(can)

    def step(self, direction: str) -> None:
        """Undo or redo the next step. One that would change something the screen in front does not show (a rule
        of another item from Review, a decision from Item & rules) is asked about first, and then shown."""
        stack = self.state.undo_stack
        at = stack.index() - 1 if direction == "undo" else stack.index()
        if not 0 <= at < stack.count():
            return
        command = stack.command(at)
        assert isinstance(command, Step)
        if self.shows(command.changes):
            self._run_step(direction, command)
        else:
            self._ask_step(direction, command)

    def _run_step(self, direction: str, command: Step) -> None:
        stack = self.state.undo_stack
        at = stack.index() - 1 if direction == "undo" else stack.index()
        if not 0 <= at < stack.count() or stack.command(at) is not command:
            self.ops.message.emit(f"{direction}: the undo history changed meanwhile, so nothing was done")
            return
        stack.undo() if direction == "undo" else stack.redo()
        self._show_change(command.changes)

    def shows(self, changes: Changes) -> bool:
        """Whether the screen in front (or the suite tree beside it, for the suite's shape) shows what changes."""
        screen = self.tabs.currentWidget()
        shows = getattr(screen, "shows", None)
        if shows is not None and shows(changes):
            return True
        return changes.taxonomy and not changes.reviews and self.tree_dock.isVisible()

    def _ask_step(self, direction: str, command: Step) -> None:
        """The question before an undo outside the screen in front (opened, not run in a loop of its own: the
        background writes go on; the history is checked again when it is answered)."""
        changes = command.changes
        where = "a reviewer's answer or adjudication, in Review" if changes.assignments else \
            "a reviewer's decision, in Review" if changes.reviews else \
            "an item's rules or fields, in Item & rules" if changes.items or changes.references else \
            "the suite's categories and items, in the suite tree"
        box = QMessageBox(QMessageBox.Icon.Question, f"tsqe — {direction}",
                          f"{direction.capitalize()}: {command.text()}?", QMessageBox.StandardButton.NoButton, self)
        box.setInformativeText(f"It is not on this screen: it changes {where}. {direction.capitalize()} it, and "
                               f"show it there?")
        go = box.addButton(f"{direction.capitalize()} and show", QMessageBox.ButtonRole.AcceptRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(go)
        box.setEscapeButton(cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(lambda _: self._run_step(direction, command) if box.clickedButton() is go else None)
        box.open()

    def _show_change(self, changes: Changes) -> None:
        if changes.reviews or changes.assignments:
            self.tabs.setCurrentWidget(self.review)
            self.review.show_outputs(changes)
        elif changes.items or changes.references:
            items = (changes.items | changes.references).ids
            if self.editor.item_id not in items:
                self.state.edit_item(Selection(item_id=min(items)))
            self.tabs.setCurrentWidget(self.editor)
        elif changes.taxonomy:
            self.tree_dock.show()

    def _menu_of(self, title: str, actions: list[QAction]) -> QMenu:
        menu = QMenu(title, self)
        menu.addActions(actions)
        return menu

    def show_tab(self, index: int) -> None:
        """Ctrl+1…5: that screen, with the keys (also when it is already shown: Ctrl+2 from Review's filter bar
        gives the keys back to the table)."""
        self.tabs.setCurrentIndex(index)
        self.focus_screen()

    def focus_screen(self) -> None:
        """Give the keyboard to what the current screen is worked with, after Ctrl+1…5 and on opening.

        Found by using the window under Xvfb with the keyboard alone: the window opened with the tree's search box
        focused, so a reviewer's first P typed "p" into it, and Ctrl+2 showed Review without giving its table the
        keys. The Item & rules screen without an item hands the keys to the tree's search, where typing an id finds
        the item; with one (also one Review's E is still reading) to the editor. Never to the tree view itself: a
        tree given the keys makes its first row current, which selects it and so narrows the review queue.
        """
        screen = self.tabs.currentWidget()
        if screen is self.editor:
            if self.editor.item_id is None:
                self._focus_tree_search()
            else:
                self.editor.editor_scroll.setFocus()
            return
        view = self.review.table if screen is self.review else getattr(screen, "view", None)
        if isinstance(view, QWidget):
            view.setFocus()

    def show_rule_health(self) -> None:
        """Item & rules with the rule health of the selected category or phenomenon (an item's phenomenon)."""
        selection = self.state.selection
        if selection.item_id is not None:
            self.state.select(Selection(selection.category, selection.phenomenon))
        self.tabs.setCurrentWidget(self.editor)

    def focus_search(self) -> None:
        screen = self.tabs.currentWidget()
        search = getattr(screen, "focus_search", None)
        if screen is self.editor and self.editor.draft is None:
            self._focus_tree_search()
        elif search is not None:
            search()
        elif screen is self.review:
            self.review.text_box.setFocus()
            self.review.text_box.selectAll()
        else:
            self._focus_tree_search()

    def _focus_tree_search(self) -> None:
        self.tree_dock.show()
        self.tree.search.setFocus()
        self.tree.search.selectAll()

    # --- databases and suites ---------------------------------------------------------------------
    def leave_drafts(self, doing: str) -> bool:
        """Before quitting, opening another database or switching suite: ask about unsaved drafts (Save all /
        Discard / Cancel, naming the items); True when none is left in the way. Saving waits for the saves: one
        refused (a colleague changed the item) keeps its draft, shown with the refusal, and the window stays."""
        unsaved = self.editor.unsaved()
        if not unsaved:
            return True
        answer = drafts.ask(self, unsaved, doing)
        if answer is drafts.Answer.CANCEL:
            return False
        if answer is drafts.Answer.DISCARD:
            self.editor.discard_all()
            return True
        blocked = self.editor.save_all()
        if blocked:
            QMessageBox.warning(self, "tsqe — cannot save", f"The changes of {drafts.names(blocked)} cannot be saved "
                                f"as they are: see the message in red in Item & rules. Nothing was discarded.")
            return False
        self.ops.wait_idle()
        return not self.editor.unsaved()

    def open_target(self, target: str) -> None:
        """Open (creating and migrating if needed) a database file or URL, in the background."""
        if self.leave_drafts("opening another database"):
            suite_ops.open_target(target).success(lambda result: self._opened(target, *result)).run(self.ops)

    def open_demo(self) -> None:
        if self.leave_drafts("opening the demo"):
            path = demo_path()
            suite_ops.open_demo(path).success(lambda result: self._opened(str(path), *result)).run(self.ops)

    def switch_suite(self, name: str) -> None:
        """Show another suite of the database, once unsaved drafts are settled."""
        if name != self.state.suite_name and self.leave_drafts(f"switching to the suite {name}"):
            self.state.choose_suite(name)
        self.suite_box.setCurrentText(self.state.suite_name or "")

    def _opened(self, target: str, db: Database, names: list[str]) -> None:
        old = self.state.db
        settings = QSettings()
        remembered = str(settings.value(f"suites/{db.url}", "") or "")
        suite = remembered if remembered in names else (names[0] if names else None)
        self._db_target = target
        self._remember(target)
        self.state.open(db, suite)
        self._fill_suite_box(names)
        if old is not None and old is not db:
            old.close()
        if not names:
            self.ops.message.emit("this database holds no suite yet: File → Import suite, or drop a file here")

    def _remember(self, target: str) -> None:
        settings = QSettings()
        recent = [str(r) for r in (settings.value(RECENT) or []) if str(r) != target]
        settings.setValue(RECENT, [target, *recent][:MAX_RECENT])
        settings.setValue(LAST, target)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for target in [str(t) for t in QSettings().value(RECENT) or []]:
            self.recent_menu.addAction(target).triggered.connect(partial(self.open_target, target))
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    def _new_database(self) -> None:
        if not self.leave_drafts("creating another database"):  # before choosing a file for nothing
            return
        path, _ = QFileDialog.getSaveFileName(self, "tsqe — new database", "tsqe.sqlite", "SQLite (*.sqlite *.db)")
        if path:
            self.open_target(path)

    def _open_dialog(self) -> None:
        if not self.leave_drafts("opening another database"):
            return
        path, _ = QFileDialog.getOpenFileName(self, "tsqe — open database", "", "SQLite (*.sqlite *.db);;all (*)")
        if path:
            self.open_target(path)

    def _fill_suite_box(self, names: list[str]) -> None:
        self.suite_box.clear()
        self.suite_box.addItems(names)
        if self.state.suite_name:
            self.suite_box.setCurrentText(self.state.suite_name)
        self._suite_box_action.setVisible(len(names) > 1)
        self.suite_toolbar.setVisible(len(names) > 1)

    def _fill_suite_menu(self) -> None:
        self.suite_menu.clear()
        for i in range(self.suite_box.count()):
            name = self.suite_box.itemText(i)
            action = self.suite_menu.addAction(name)
            action.triggered.connect(partial(self.switch_suite, name))
            action.setCheckable(True)
            action.setChecked(name == self.state.suite_name)

    def _suite_changed(self) -> None:
        if self.state.db is not None and self.state.suite_name:
            QSettings().setValue(f"suites/{self.state.db.url}", self.state.suite_name)
            self.suite_box.setCurrentText(self.state.suite_name)
        self._update_title()
        self._show_counts()

    def _update_title(self) -> None:
        db = self.state.db
        if db is None:
            self.setWindowTitle("tsqe")
            return
        suite = self.state.suite_name or "no suite"
        self.setWindowTitle(f"tsqe — {suite} · {db.display_name}[*]")  # [*]: unsaved drafts (setWindowModified)

    # --- long work --------------------------------------------------------------------------------
    def label_all(self) -> None:
        db, suite = self.state.db, self.state.suite_name
        if db is not None and suite is not None:
            suite_ops.label_all(db, suite).run(self.ops)

    def import_file(self, kind: ImportKind, path: str) -> None:
        db, suite = self.state.db, self.state.suite_name
        if db is None:
            self.ops.message.emit("open or create a database first (File → New database)")
            return
        if kind == "suite":
            name = Path(path).name
            new_suite = default_suite_name(Path(path))
            languages = None if Path(path).suffix.lower() == ".json" else self._ask_languages(name)
            if languages == ():
                return
            suite_ops.import_suite_file(db, path, new_suite, languages or None).success(
                lambda _: self._ops_read_suites(db, new_suite)).run(self.ops)
        elif kind == "outputs":
            suite_ops.import_outputs_file(db, suite, path).run(self.ops)
        else:
            suite_ops.import_reviews_file(db, suite, path).run(self.ops)

    def _ops_read_suites(self, db: Database, new_suite: str) -> None:
        self.ops.read(lambda task: suite_names(db), lambda names: self._suite_imported(names, new_suite))

    def _ask_languages(self, name: str) -> tuple[str, str] | tuple[()]:
        """A suite table does not say its languages (a DFKI file does); () when the user cancelled."""
        while True:
            text, ok = QInputDialog.getText(self, "tsqe — import suite",
                                            f"Languages of the suite in {name} (source-target):",
                                            QLineEdit.EchoMode.Normal, "de-en")
            if not ok:
                return ()
            try:
                return split_language_pair(text)
            except TsqeError as error:
                self.ops.message.emit(str(error))

    def _suite_imported(self, names: list[str], suite: str) -> None:
        self._fill_suite_box(names)
        self.switch_suite(suite)

    def _import_dialog(self, kind: ImportKind) -> None:
        files = SUITE_FILES if kind == "suite" else TABLE_FILES
        path, _ = QFileDialog.getOpenFileName(self, f"tsqe — import {kind}", "", f"{files};;all (*)")
        if path:
            self.import_file(kind, path)

    def _export_suite(self) -> None:
        """The suite as a file the importers read back (.xlsx, .tsv, .csv or DFKI .json), for a spreadsheet."""
        db, suite = self.state.db, self.state.suite_name
        if db is None or suite is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "tsqe — export the suite", f"{suite}.xlsx",
                                              "suites (*.xlsx *.tsv *.csv *.json)")
        if path:
            suite_ops.export_suite_file(db, suite, path).run(self.ops)

    def _export_labels(self) -> None:
        db, suite = self.state.db, self.state.suite_name
        if db is None or suite is None:
            return
        path, _ = QFileDialog.getSaveFileName(self, "tsqe — export labels", f"{suite}-labels.tsv", "TSV (*.tsv)")
        if path:
            suite_ops.export_labels_file(db, suite, path).run(self.ops)

    # --- drag and drop ----------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            self.import_dropped(url)
        event.acceptProposedAction()

    def import_dropped(self, url: QUrl) -> None:
        """Import a dropped file as what its suffix and header say it is; ask when they do not say."""
        if not url.isLocalFile():
            return
        path = Path(url.toLocalFile())
        guessed = import_kind(path)
        if guessed is None:
            choice, ok = QInputDialog.getItem(self, "tsqe — import", f"What does {path.name} hold?",
                                              list(IMPORT_KINDS), 0, False)
            if not ok:
                return
            self.import_file(IMPORT_KINDS[[str(k) for k in IMPORT_KINDS].index(choice)], str(path))
            return
        self.import_file(guessed, str(path))

    # --- status bar -------------------------------------------------------------------------------
    def _show_counts(self) -> None:
        tree = self.state.tree
        if tree is None:
            self.counts_label.clear()
            self.review_label.clear()
            return
        counts = tree.counts
        self.counts_label.setText(counts_html(counts))
        self.review_label.setText(f" │ <a href='reviewers'>reviewed {counts.reviewed:,} · {counts.undecided:,} "
                                  "undecided</a> ")
        self.review_label.setToolTip("reviewed: outputs with a manual label; undecided: outputs whose label is "
                                     "still unknown, conflict or error — what needs a reviewer. Click: how far "
                                     "reviewers agree, their accuracy on controls, double review")

    def show_reviewers(self) -> None:
        """The status bar's review view, above the review counts."""
        label = self.review_label
        self.reviewers_view.open_at(label.mapToGlobal(label.rect().topRight()))

    def _show_review_page(self, page: str) -> None:
        self.tabs.setCurrentWidget(self.review)
        self.review.show_page(page)

    def _job_progress(self, title: str, fraction: float) -> None:
        self.job_label.setText(f" │ {title}…")  # plain text: a quote in a name is a quote, not &#x27;
        self.job_bar.setVisible(fraction >= 0)
        if fraction >= 0:
            self.job_bar.setValue(round(fraction * 1000))

    def _job_busy(self, busy: bool) -> None:
        if not busy:
            self.job_label.clear()
            self.job_bar.hide()

    # --- settings ---------------------------------------------------------------------------------
    def restore_settings(self) -> None:
        settings = QSettings()
        geometry = settings.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        window_state = settings.value("window/state")
        if isinstance(window_state, QByteArray):
            self.restoreState(window_state)
        self.tabs.setCurrentIndex(int(settings.value("window/tab", 1) or 0))  # type: ignore[call-overload]
        tree_header = settings.value("tree/header")
        if isinstance(tree_header, QByteArray):
            self.tree.view.header().restoreState(tree_header)
        for screen in self.screens:
            restore = getattr(screen, "restore_settings", None)
            if restore is not None:
                restore(settings)
        self.detail_toggle.setChecked(not self.review.detail.isHidden())
        self.focus_screen()

    def save_settings(self) -> None:
        settings = QSettings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/state", self.saveState())
        settings.setValue("tree/header", self.tree.view.header().saveState())
        for screen in self.screens:
            save = getattr(screen, "save_settings", None)
            if save is not None:
                save(settings)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.leave_drafts("quitting"):
            event.ignore()
            return
        if self.ops.busy():
            answer = QMessageBox.question(self, "tsqe — quit", "A job is still running. Cancel it and quit? "
                                          "Nothing of it will be saved.")
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
            self.ops.cancel()
            self.ops.wait_idle()
        self.save_settings()
        self.drafts.write()  # none left: this session's autosave goes
        event.accept()

    # --- help -------------------------------------------------------------------------------------
    def key_rows(self) -> list[tuple[str, str, str]]:
        """(where, keys, what) for every action of the window that has a key: the menus' in menu order, then those
        only a screen has (moving a rule with Alt+Up). Built from the actions themselves, so the Keys dialog cannot
        drift from them: written by hand it missed Ctrl+S and Alt+Up and showed "Item rules" (issue 16)."""
        rows: list[tuple[str, str, str]] = []
        seen: set[int] = set()

        def add(where: str, action: QAction) -> None:
            keys = ", ".join(key.toString(QKeySequence.SequenceFormat.NativeText) for key in action.shortcuts()
                             if not key.isEmpty())
            if keys and id(action) not in seen:
                seen.add(id(action))
                rows.append((where, keys, plain_text(action.text())))

        def walk(menu: object, where: str) -> None:
            if not isinstance(menu, QMenu):
                return
            for action in menu.actions():
                if action.menu() is not None:
                    walk(action.menu(), where)
                else:
                    add(where, action)

        for entry in self.menuBar().actions():
            walk(entry.menu(), plain_text(entry.text()))
        for action in self.findChildren(QAction):
            owner = action.parent()
            while owner is not None and owner not in self.screens:
                owner = owner.parent()
            add(plain_text(TABS[self.screens.index(owner)][0]) if owner is not None else "window", action)
        return rows

    def _show_keys(self) -> None:
        body = "".join(f"<tr><td style='color:#666'>{html.escape(where)}</td><td><b>{html.escape(keys)}</b></td>"
                       f"<td>{html.escape(what)}</td></tr>" for where, keys, what in self.key_rows())
        dialog = QDialog(self)
        dialog.setWindowTitle("tsqe — keys")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        browser = QTextBrowser(dialog)
        browser.setHtml(f"<table cellspacing='0' cellpadding='3'>{body}</table>")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.reject)
        layout = QVBoxLayout(dialog)
        layout.addWidget(browser)
        layout.addWidget(buttons)
        available = self.screen().availableGeometry()
        dialog.resize(min(560, available.width()), min(640, available.height() - 60))
        self.keys_dialog = dialog
        dialog.open()

    def _about(self) -> None:
        QMessageBox.about(self, "About tsqe", f"<b>tsqe {html.escape(VERSION)}</b> — linguistically-motivated "
                          "MT test suites and the fine-grained evaluation of Quality Estimation.")


def plain_text(text: str) -> str:
    """A menu text without its mnemonic marks: "Item && rules" is "Item & rules", "&Save item" is "Save item"."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


