"""The one window: suite tree on the left, the five screens as tabs, menus for every action, a status bar.

The window only wires things together: screens observe ``AppState``, every database call goes through
``Operations``, and what the window itself does (open, import, export, label) is one core call each.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QTabWidget,
    QToolBar,
    QWidget,
)

from gui import drafts
from gui.editor.screen import ItemEditorScreen
from gui.operations import Operations
from gui.reports.discriminative import DiscriminativeTab
from gui.reports.meta_eval import MetaEvalTab
from gui.reports.qe import QETab
from gui.reports.systems import SystemsTab
from gui.review.screen import ReviewScreen
from gui.settings import Settings, take_fallbacks
from gui.state import AppState, Selection
from gui.suite_edits import SuiteEdits
from gui.tree import SuiteTreePane
from gui.window.files import WindowFiles
from gui.window.focus_return import FocusReturn
from gui.window.menus import TABS, WindowMenus
from gui.window.status import WindowStatus
from gui.window.steps import WindowSteps

DEFAULT_SIZE = (1400, 860)
MAX_MIN_WIDTH = 1200
"""The widest the window may insist on being: laptops have 1,280 or 1,366 px (tests/gui/test_window_size.py)."""
TREE_WIDTH = (260, 340)
TREE_SHARE = 0.235
"""The suite tree's dock at the start: this share of the window, within TREE_WIDTH. At 340 px on a 1,280 px
screen it left the review table too little room to show its columns beside a readable output."""


class MainWindow(WindowMenus, WindowFiles, WindowSteps, WindowStatus, QMainWindow):
    def __init__(self, state: AppState | None = None) -> None:
        super().__init__()
        self.state = state or AppState(self)
        self.ops = Operations(self.state, self)
        self.setAcceptDrops(True)
        self.fit_to_screen()
        self._focus_return = FocusReturn(self)
        self._db_target: str | None = None
        self.keys_dialog: QDialog | None = None
        self._fallbacks_at_start: str | None = None  # the settings told at the start, said again once opened

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
        self.meta_eval = MetaEvalTab(self.state, self.ops, self)
        self.screens: list[QWidget] = [self.editor, self.review, self.systems, self.qe, self.discriminative,
                                       self.meta_eval]
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

        self._build_status()

        self.edits = SuiteEdits(self.state, self.ops, self.tree.current_selection, self.tree, self)
        self.rule_health_action = QAction("Rule &health", self)
        self.rule_health_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
        self.rule_health_action.setToolTip("how the rules of the selected category or phenomenon are doing")
        self.rule_health_action.triggered.connect(self.show_rule_health)
        self.tree.context_actions = [*self.edits.actions, self.rule_health_action]
        self.drafts = drafts.DraftKeeper(self.state, self.editor.unsaved, self.editor.recover, self)
        self.editor.drafts_changed.connect(lambda: self.setWindowModified(bool(self.editor.unsaved())))
        self._make_menus()

        self.state.suite_changed.connect(self._suite_changed)
        self.state.review_requested.connect(lambda _: self.tabs.setCurrentWidget(self.review))
        self.state.edit_requested.connect(lambda _: self.tabs.setCurrentWidget(self.editor))
        self.tabs.currentChanged.connect(lambda i: Settings().set("window/tab", i))
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
        else:
            self.editor.show_health()  # an item shown that the tree has not selected
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

    # --- settings ---------------------------------------------------------------------------------
    def restore_settings(self) -> None:
        """The window as it was left, each setting read through the typed reader (``gui.settings``): one that
        cannot be used keeps its default, and the status bar says which, once (``tab=abc`` in the file stopped the
        window from opening on every start, issue 27)."""
        settings = Settings()
        geometry = settings.layout("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        window_state = settings.layout("window/state")
        if window_state is not None:
            self.restoreState(window_state)
        self.tabs.setCurrentIndex(settings.integer("window/tab", 1, 0, self.tabs.count() - 1))
        tree_header = settings.layout("tree/header")
        if tree_header is not None:
            self.tree.view.header().restoreState(tree_header)
        for screen in self.screens:
            restore = getattr(screen, "restore_settings", None)
            if restore is not None:
                restore(settings)
        self.detail_toggle.setChecked(not self.review.detail.isHidden())
        self.focus_screen()
        self._fallbacks_at_start = take_fallbacks()
        if self._fallbacks_at_start is not None:
            self.ops.message.emit(self._fallbacks_at_start)

    def say_fallbacks(self) -> None:
        """Tell the settings that held something unusable and fell back to their defaults, after a database is
        opened: at the start the opening's own message replaced the note within a second, so it is said again then,
        once."""
        told = take_fallbacks() or self._fallbacks_at_start
        self._fallbacks_at_start = None
        if told is not None:
            self.ops.message.emit(told)

    def save_settings(self) -> None:
        settings = Settings()
        settings.set("window/geometry", self.saveGeometry())
        settings.set("window/state", self.saveState())
        settings.set("tree/header", self.tree.view.header().saveState())
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
