"""Unsaved drafts are never lost: asked about before they would be, kept on disk meanwhile, offered back.

Quitting, closing the window, opening or creating another database and switching suite ask Save all / Discard /
Cancel, naming the items, as document applications do (``ask``); the window's title shows ``[*]`` while any draft
is unsaved. ``DraftKeeper`` writes the unsaved drafts to disk every half minute (``suite.editing.draft_autosave``) and,
when a database is opened, offers back the drafts of a session on it that ended without saving (a crash, a kill):
they come back as unsaved changes on the items as they are now, never saved by themselves.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path

import platformdirs
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QMessageBox, QWidget

from gui.state import AppState
from suite.editing.draft_autosave import (
    Autosaved,
    autosave_path,
    left_behind,
    read_drafts,
    set_aside,
    write_drafts,
)
from suite.editing.item_draft import EditorDraft
from suite.errors import TsqeError

AUTOSAVE_MS = 30_000
"""Half a minute: a crash or a kill loses at most the last minute of editing, as issue 16 asks."""
SHOWN_NAMES = 8


class Answer(Enum):
    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


def autosave_directory() -> Path:
    return Path(platformdirs.user_data_dir("tsqe", appauthor=False)) / "autosave"


def names(drafts: Sequence[EditorDraft]) -> str:
    shown = [draft.detail.external_id for draft in drafts[:SHOWN_NAMES]]
    more = len(drafts) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def ask(parent: QWidget, drafts: Sequence[EditorDraft], doing: str) -> Answer:
    """Save all / Discard / Cancel before ``doing`` ("quitting", "opening another database", …)."""
    items = f"item{'s' if len(drafts) > 1 else ''}"
    box = QMessageBox(QMessageBox.Icon.Warning, "tsqe — unsaved changes",
                      f"Unsaved changes of {len(drafts)} {items}: {names(drafts)}.",
                      QMessageBox.StandardButton.NoButton, parent)
    box.setInformativeText(f"Save them before {doing}? Discarded changes cannot be brought back.")
    save = box.addButton(QMessageBox.StandardButton.SaveAll)
    discard = box.addButton(QMessageBox.StandardButton.Discard)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(save)
    box.setEscapeButton(cancel)
    box.exec()
    clicked = box.clickedButton()
    return Answer.SAVE if clicked is save else Answer.DISCARD if clicked is discard else Answer.CANCEL


class DraftKeeper(QObject):
    """Keeps the editor's unsaved drafts on disk and offers back those a former session left there."""

    def __init__(self, state: AppState, unsaved: Callable[[], list[EditorDraft]],
                 recover: Callable[[list[EditorDraft]], None], parent: QWidget,
                 directory: Path | None = None) -> None:
        super().__init__(parent)
        self._state = state
        self._unsaved = unsaved
        self._recover = recover
        self._parent = parent
        self.directory = directory or autosave_directory()
        self._written: tuple[Path, str] | None = None  # this session's file, and its database
        self.timer = QTimer(self)
        self.timer.setInterval(AUTOSAVE_MS)
        self.timer.timeout.connect(self.write)
        self.timer.start()
        state.database_changed.connect(self._database_changed)

    def write(self) -> None:
        """Keep the unsaved drafts of the open database on disk (none: remove this session's file)."""
        db = self._state.db
        if self._written is not None and (db is None or self._written[1] != db.url):
            write_drafts(self._written[0], self._written[1], [])  # the database left: its drafts were settled
            self._written = None
        if db is None:
            return
        path = autosave_path(self.directory, db.url)
        try:
            write_drafts(path, db.url, self._unsaved())
        except OSError as error:
            self._state_message(f"the unsaved changes could not be kept on disk: {error}")
            return
        self._written = (path, db.url)

    def _database_changed(self) -> None:
        self.write()
        db = self._state.db
        if db is None:
            return
        files = left_behind(self.directory, db.url)
        found: list[tuple[Path, Autosaved]] = []
        damaged: list[str] = []
        for path in files:
            try:
                autosaved = read_drafts(path)
            except TsqeError as error:
                damaged.append(self._set_aside(path, error))
                continue
            if autosaved is not None:
                found.append((path, autosaved))
        if damaged:
            self._state_message("; ".join(damaged))
        if found:
            self._offer(found)

    @staticmethod
    def _set_aside(path: Path, error: TsqeError) -> str:
        """A damaged autosave is moved aside, never deleted (it may hold someone's work); the others are offered."""
        try:
            kept = set_aside(path)
        except OSError as move_error:
            return f"{error}: it could not be set aside ({move_error.strerror}) and stays in {path.parent}"
        return f"{error}: set aside as {kept.name} in {kept.parent}"

    def _offer(self, found: list[tuple[Path, Autosaved]]) -> None:
        drafts = [draft for _, autosaved in found for draft in autosaved.drafts]
        when = max(autosaved.saved_at for _, autosaved in found).astimezone()
        box = QMessageBox(QMessageBox.Icon.Question, "tsqe — unsaved changes found",
                          f"tsqe ended without saving changes of {len(drafts)} item{'s' if len(drafts) > 1 else ''}: "
                          f"{names(drafts)} (kept at {when:%H:%M} on {when:%d %b}).",
                          QMessageBox.StandardButton.NoButton, self._parent)
        box.setInformativeText("Restore them as unsaved changes, to look at and save? Nothing is saved until you "
                               "save it.")
        restore = box.addButton("Restore", QMessageBox.ButtonRole.AcceptRole)
        discard = box.addButton(QMessageBox.StandardButton.Discard)
        box.setDefaultButton(restore)
        box.setEscapeButton(restore)  # closing the question must not throw work away

        def answered() -> None:
            if box.clickedButton() is discard:
                self._state_message(f"discarded the unsaved changes of {names(drafts)}")
            else:
                self._recover(drafts)
                self._state_message(f"restored the unsaved changes of {names(drafts)}: save them to keep them")
            for path, _ in found:
                path.unlink(missing_ok=True)
            self.write()  # restored drafts are this session's to keep now

        box.finished.connect(answered)
        box.open()

    def _state_message(self, text: str) -> None:
        status = getattr(self._parent, "statusBar", None)
        if status is not None:
            status().showMessage(text, 15000)
