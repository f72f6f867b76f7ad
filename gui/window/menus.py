"""The window's menus, with every action and its key, and the Keys and About dialogs built from them.

The menus name what the window does; each entry calls one of the window's parts (files, steps, status) or
a screen's own actions, so a new action of a screen shows up in the menus and in the Keys dialog at once.
"""
from __future__ import annotations

import html
from functools import partial
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QAction,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMenu,
    QMessageBox,
    QTextBrowser,
    QVBoxLayout,
)

from gui.output_policy import edit_output_policy
from gui.review.reviewer import ReviewerDialog
from gui.review.screen import PAGES
from gui.settings import Settings
from gui.window.files import RECENT, gone
from gui.window.surface import WindowSurface
from suite.version import VERSION

TABS = (("Item && rules", "editor"), ("Review", "review"), ("Systems", "systems"), ("QE accuracy", "qe"),
        ("Discriminative", "discriminative"), ("Meta-evaluation", "meta_eval"))


def plain_text(text: str) -> str:
    """A menu text without its mnemonic marks: "Item && rules" is "Item & rules", "&Save item" is "Save item"."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


class WindowMenus(WindowSurface):
    """The menu bar and the help dialogs."""

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
        self._action(file, "Revie&wer…", self.change_reviewer)  # &R is Open &recent's
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

    def _menu_of(self, title: str, actions: list[QAction]) -> QMenu:
        menu = QMenu(title, self)
        menu.addActions(actions)
        return menu

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

    def change_reviewer(self) -> None:
        """File → Reviewer…: the name every decision stores from now on."""
        dialog = ReviewerDialog(self.state, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.ops.message.emit(
            f"reviewer: {self.state.reviewer}; decisions from now on are stored as theirs"))
        dialog.open()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for target in Settings().texts(RECENT):  # one entry comes back as a string: not its characters
            if gone(target):  # shown, so that it is not a mystery where it went, but not offered
                self.recent_menu.addAction(f"{target} (not found)").setEnabled(False)
                continue
            self.recent_menu.addAction(target).triggered.connect(partial(self.open_target, target))
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    def _fill_suite_menu(self) -> None:
        self.suite_menu.clear()
        for i in range(self.suite_box.count()):
            name = self.suite_box.itemText(i)
            action = self.suite_menu.addAction(name)
            action.triggered.connect(partial(self.switch_suite, name))
            action.setCheckable(True)
            action.setChecked(name == self.state.suite_name)
