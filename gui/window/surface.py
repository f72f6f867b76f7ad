"""What the window's parts use of the window and of one another, declared once so that mypy checks each part.

At run time ``WindowSurface`` is ``object`` and the parts are plain mixins of ``gui.main_window.MainWindow``, which
builds every attribute named here; for mypy it is a ``QMainWindow`` with these attributes and methods, so a part
that uses one the window does not have, or calls another part's method wrongly, fails the lint.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QComboBox, QDialog, QDockWidget, QMainWindow, QTabWidget, QToolBar, QWidget

    from gui.drafts import DraftKeeper
    from gui.editor.screen import ItemEditorScreen
    from gui.operations import Operations
    from gui.reports.discriminative import DiscriminativeTab
    from gui.reports.qe import QETab
    from gui.reports.systems import SystemsTab
    from gui.review.screen import ReviewScreen
    from gui.state import AppState
    from gui.suite_edits import SuiteEdits
    from gui.tree import SuiteTreePane
    from suite.importers.kinds import ImportKind

    class WindowSurface(QMainWindow):
        state: AppState
        ops: Operations
        tree: SuiteTreePane
        tree_dock: QDockWidget
        editor: ItemEditorScreen
        review: ReviewScreen
        systems: SystemsTab
        qe: QETab
        discriminative: DiscriminativeTab
        screens: list[QWidget]
        tabs: QTabWidget
        suite_box: QComboBox
        suite_toolbar: QToolBar
        edits: SuiteEdits
        drafts: DraftKeeper
        rule_health_action: QAction
        keys_dialog: QDialog | None
        _db_target: str | None
        _suite_box_action: QAction
        undo_action: QAction
        redo_action: QAction

        def show_tab(self, index: int) -> None: ...
        def say_fallbacks(self) -> None: ...
        def focus_search(self) -> None: ...
        def _focus_tree_search(self) -> None: ...
        def leave_drafts(self, doing: str) -> bool: ...
        def label_all(self) -> None: ...
        def open_demo(self) -> None: ...
        def open_target(self, target: str, *, create: bool = False) -> None: ...
        def switch_suite(self, name: str) -> None: ...
        def step(self, direction: str) -> None: ...
        def show_reviewers(self) -> None: ...
        def _show_review_page(self, page: str) -> None: ...
        def _show_counts(self) -> None: ...
        def _update_title(self) -> None: ...
        def _name_steps(self) -> None: ...
        def _new_database(self) -> None: ...
        def _open_dialog(self) -> None: ...
        def _import_dialog(self, kind: ImportKind) -> None: ...
        def _export_suite(self) -> None: ...
        def _export_labels(self) -> None: ...
else:
    WindowSurface = object
