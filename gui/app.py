"""``tsqe-gui [DB]``: the desktop application.

With no database named it reopens the last one, or on first start offers the demo, a new database or an
existing one. ``--smoke OUT.png`` opens the window, waits until the tree and the first page of the review
table are filled, grabs the screen and exits: 0 when the picture shows a drawn window, 1 otherwise.
"""
from __future__ import annotations

import argparse
import gc
import sys
import time

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from gui.check_platform import window_system_problem
from gui.main_window import MainWindow
from gui.review.reviewer import SETTINGS_REVIEWER
from gui.settings import Settings
from gui.stall_watch import watch_stalls
from gui.window.files import LAST, gone

SMOKE_TIMEOUT_S = 60


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="tsqe-gui", description="tsqe desktop application")
    parser.add_argument("database", nargs="?", help="database file path or SQLAlchemy URL")
    parser.add_argument("--db", help="the same, as an option")
    parser.add_argument("--smoke", metavar="OUT.png", help="grab the screen once the window is filled, then quit")
    return parser.parse_args(argv)


def application() -> QApplication:
    """The application object, with what was loaded so far left out of the cyclic garbage collector's walks.

    Modules, classes and functions live as long as the process, and there are about 250,000 of them: each full
    collection walked them all and paused the window for 0.2-0.5 s (measured while scrolling a million-output
    table). Frozen, a full collection walks only what the window made since (tens of milliseconds).
    """
    QCoreApplication.setOrganizationName("tsqe")
    QCoreApplication.setApplicationName("tsqe")
    app = QApplication.instance()
    app = app if isinstance(app, QApplication) else QApplication(sys.argv[:1])
    gc.freeze()
    return app


def remembered(last: str) -> str | None:
    """The database opened last, unless it was a file that is gone since (moved, deleted): then the window begins
    as on a first start rather than with a refusal."""
    return None if not last or gone(last) else last


def first_start(window: MainWindow) -> None:
    """No database named and none remembered: the three ways to begin."""
    box = QMessageBox(QMessageBox.Icon.Question, "tsqe", "Welcome to tsqe. Where would you like to begin?",
                      QMessageBox.StandardButton.NoButton, window)
    demo = box.addButton("Open the demo suite", QMessageBox.ButtonRole.AcceptRole)
    new = box.addButton("New database…", QMessageBox.ButtonRole.ActionRole)
    existing = box.addButton("Open a database…", QMessageBox.ButtonRole.ActionRole)
    box.setDefaultButton(demo)
    box.exec()
    clicked = box.clickedButton()
    if clicked is demo:
        window.open_demo()
    elif clicked is new:
        path, _ = QFileDialog.getSaveFileName(window, "tsqe — new database", "tsqe.sqlite", "SQLite (*.sqlite)")
        if path:
            window.open_target(path, create=True)
    elif clicked is existing:
        path, _ = QFileDialog.getOpenFileName(window, "tsqe — open database", "", "SQLite (*.sqlite *.db)")
        if path:
            window.open_target(path)


def window_is_drawn(image: QImage) -> bool:
    """More than a handful of colours on a grid over the picture: text, lines and labels, not a blank."""
    if image.isNull() or image.width() < 100 or image.height() < 100:
        return False
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    return len(colours) > 16


def smoke(window: MainWindow, out: str, app: QApplication) -> None:
    """Wait until the window shows the suite, then grab the real screen (not a widget render)."""
    started = time.monotonic()

    def grab(filled: bool) -> None:
        image = QGuiApplication.primaryScreen().grabWindow(0).toImage()
        if image.isNull():
            image = window.grab().toImage()
        image.save(out)
        ok = filled and window_is_drawn(image) and window.windowTitle().startswith("tsqe — ")
        print(f"smoke: {'ok' if ok else 'FAILED'}: {window.windowTitle()!r}, {image.width()}x{image.height()} "
              f"-> {out}" + ("" if filled else " (the window was not filled in time)"))
        app.exit(0 if ok else 1)

    def check() -> None:
        model = window.review.model
        filled = (not window.ops.busy() and window.state.tree is not None and model.rowCount() > 0
                  and model.all_cached(0, 10))
        if not filled and time.monotonic() - started < SMOKE_TIMEOUT_S:
            QTimer.singleShot(20, check)
            return
        if filled:
            window.repaint()  # painted now, not at the next event: bench/startup.py times the start to this line
            print(f"smoke: painted with the tree and the first review page, {time.monotonic() - started:.2f} s "
                  "after the window was made", flush=True)
        QTimer.singleShot(300, lambda: grab(filled))  # the status bar and the table lay out and repaint first

    QTimer.singleShot(0, check)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    problem = window_system_problem()
    if problem is not None:  # Qt would abort with its raw message about plugins
        print(problem, file=sys.stderr)
        return 1
    app = application()
    watch_stalls(app)
    window = MainWindow()
    settings = Settings()
    window.state.reviewer = settings.text(SETTINGS_REVIEWER) or None
    window.restore_settings()
    window.show()
    target = args.database or args.db or (None if args.smoke else remembered(settings.text(LAST)))
    if target:
        window.open_target(target)
    elif args.smoke:
        window.open_demo()
    else:
        QTimer.singleShot(0, lambda: first_start(window))
    if args.smoke:
        smoke(window, args.smoke, app)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
