"""Databases, suites and files: opening (recent, demo, new), switching suite, importing (dialogs and dropped
files), exporting, and Label all; each is one core operation run in the background.
"""
from __future__ import annotations

from pathlib import Path

import platformdirs
from PySide6.QtCore import QTimer, QUrl
from PySide6.QtGui import (
    QDragEnterEvent,
    QDropEvent,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QLineEdit,
    QMessageBox,
)

from gui import drafts
from gui.operations import suite as suite_ops
from gui.settings import Settings
from gui.window.surface import WindowSurface
from store import Database
from store.engine import missing_sqlite_file, resolve_url
from suite.errors import TsqeError
from suite.importers.kinds import IMPORT_KINDS, ImportKind, import_kind
from suite.importers.suite_import import default_suite_name
from suite.reading.names import suite_names
from suite.suites import split_language_pair

RECENT = "files/recent"
LAST = "files/last"
MAX_RECENT = 8


def gone(target: str) -> bool:
    """Whether a remembered database is a file that is no longer there (moved, deleted, its drive unmounted):
    opening it would be refused, since opening never creates a file but File → New database."""
    return missing_sqlite_file(resolve_url(target)) is not None


SUITE_FILES = "suites (*.json *.tsv *.csv *.xlsx)"
TABLE_FILES = "tables (*.tsv *.csv *.xlsx)"


def demo_path() -> Path:
    return Path(platformdirs.user_data_dir("tsqe", appauthor=False)) / "demo.sqlite"


class WindowFiles(WindowSurface):
    """Opening, switching, importing and exporting, with the window's title naming what is open."""

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

    def open_target(self, target: str, *, create: bool = False) -> None:
        """Open (and migrate if needed) a database file or URL, in the background; ``create``: a new file."""
        if self.leave_drafts("opening another database"):
            suite_ops.open_target(target, create=create).success(
                lambda result: self._opened(target, *result)).run(self.ops)

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
        remembered = Settings().text(f"suites/{db.url}")
        suite = remembered if remembered in names else (names[0] if names else None)
        self._db_target = target
        self._remember(target)
        self.state.open(db, suite)
        self._fill_suite_box(names)
        if old is not None and old is not db:
            old.close()
        if not names:
            self.ops.message.emit("this database holds no suite yet: File → Import suite, or drop a file here")
        QTimer.singleShot(0, self.say_fallbacks)  # after the opening's own message, which would hide it

    def _remember(self, target: str) -> None:
        settings = Settings()
        recent = [path for path in settings.texts(RECENT) if path != target]
        settings.set(RECENT, [target, *recent][:MAX_RECENT])
        settings.set(LAST, target)

    def _new_database(self) -> None:
        if not self.leave_drafts("creating another database"):  # before choosing a file for nothing
            return
        path, _ = QFileDialog.getSaveFileName(self, "tsqe — new database", "tsqe.sqlite", "SQLite (*.sqlite *.db)")
        if path:
            self.open_target(path, create=True)

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

    def _suite_changed(self) -> None:
        if self.state.db is not None and self.state.suite_name:
            Settings().set(f"suites/{self.state.db.url}", self.state.suite_name)
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
