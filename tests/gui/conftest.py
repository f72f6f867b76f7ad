"""Fixtures for the desktop application's tests: a demo database and the headless state the screens share."""
from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from gui.operations import Operations
from gui.state import AppState
from store import Database, open_database
from suite.demo import DEMO_SUITE, create_demo

if TYPE_CHECKING:  # the fixtures import them when they run, as they did
    from gui.editor.screen import ItemEditorScreen
    from gui.main_window import MainWindow


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo suite built once; each test gets its own copy, so edits never leak between tests."""
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    database = open_database(path)
    create_demo(database)
    database.close()
    return path


@pytest.fixture
def demo_db(demo_template: Path, tmp_path: Path) -> Iterator[Database]:
    path = tmp_path / "demo.sqlite"
    shutil.copyfile(demo_template, path)
    database = open_database(path)
    yield database
    database.close()


@pytest.fixture
def colleague(demo_db: Database) -> Iterator[Database]:
    """A second connection to the test's database: another reviewer's or linguist's window, or a command."""
    other = open_database(demo_db.url)
    yield other
    other.close()


@pytest.fixture(autouse=True)
def private_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Keep the tests' remembered windows, reviewers, databases and autosaved drafts out of the user's own."""
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    yield


@pytest.fixture
def state(demo_db: Database) -> AppState:
    app_state = AppState()
    app_state.open(demo_db, DEMO_SUITE)
    app_state.reviewer = "Test Reviewer"
    return app_state


@pytest.fixture
def ops(qtbot: QtBot, state: AppState) -> Iterator[Operations]:
    parent = QWidget()
    qtbot.addWidget(parent)
    operations = Operations(state, parent)
    yield operations
    operations.wait_idle()


@contextmanager
def first_call_held(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> Iterator[threading.Event]:
    """``owner.name`` does its work and then, the first time, waits until the block ends: a background read held
    past what the test does meanwhile (a write), as a busy machine may hold it. Yields an event set once it waits.
    """
    real = getattr(owner, name)
    waiting, release = threading.Event(), threading.Event()

    def held(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        if not waiting.is_set():
            waiting.set()
            release.wait()
        return result

    monkeypatch.setattr(owner, name, held)
    try:
        yield waiting
    finally:
        release.set()


def make_active(qtbot: QtBot, window: QWidget) -> None:
    """Make the window the active one, as a click on it does: shortcuts reach only the active window. A progress
    dialog that came and went (the opening's, on a busy machine) leaves none active on the offscreen platform,
    which has no window manager to give activation back to the window under it."""
    from PySide6.QtWidgets import QApplication

    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)


def shown_errors() -> list[QMessageBox]:
    """The error dialogs open right now (they are opened window-modally, never with a blocking exec)."""
    from PySide6.QtWidgets import QApplication

    return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]


def close_quietly(window: Any) -> None:
    """What pytest-qt runs before it closes a main window: its jobs finished (or cancelled), its drafts dropped.
    pytest-qt closes the test's widgets before the fixtures' own teardown runs, and a window closed while a
    background read or write still ran asked "A job is still running. Cancel it and quit?" in a modal box that
    nobody answers: the test run hung there on a loaded machine (2026-12-03)."""
    if not window.ops.wait_idle():
        window.ops.cancel()
        window.ops.wait_idle()
    window.editor.discard_all()


@pytest.fixture
def window(qtbot: QtBot, demo_db: Database) -> Iterator[MainWindow]:
    """The main window on a copy of the demo, shown (offscreen), with the tree and first review page filled."""
    from gui.main_window import MainWindow

    main = MainWindow()
    qtbot.addWidget(main, before_close_func=close_quietly)  # else closing would ask
    main.state.reviewer = "Test Reviewer"
    main.resize(1400, 860)
    main.show()
    main.open_target(str(demo_db.engine.url.database))
    qtbot.waitUntil(lambda: main.state.tree is not None and main.review.model.rowCount() > 0, timeout=10000)
    main.tabs.setCurrentWidget(main.review)
    qtbot.waitUntil(lambda: main.review.model.all_cached(0, 20), timeout=10000)
    make_active(qtbot, main)
    yield main
    main.ops.wait_idle()
    for box in shown_errors():
        box.close()


def model_tested(model: Any) -> Any:
    """Qt's own checker of a model's answers, failing the test at the first wrong one (keep it while testing)."""
    from PySide6.QtTest import QAbstractItemModelTester

    return QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)


@pytest.fixture
def screen(qtbot: QtBot, state: AppState, ops: Operations) -> Iterator[ItemEditorScreen]:
    """The Item & rules screen on its own, shown (offscreen) at a size where every pane has room."""
    from gui.editor.screen import ItemEditorScreen

    editor = ItemEditorScreen(state, ops)
    qtbot.addWidget(editor)
    editor.resize(1400, 900)
    editor.show()
    yield editor
    ops.wait_idle()
