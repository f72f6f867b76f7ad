"""``tsqe-gui``: the desktop front-end (a first window; the full GUI is its own issue)."""
from __future__ import annotations

import argparse
import sys

from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

from store import open_database


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tsqe-gui")
    parser.add_argument("--db", help="database file path or SQLAlchemy URL")
    args = parser.parse_args(argv)
    database = open_database(args.db)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = QMainWindow()
    window.setWindowTitle(f"tsqe — {database.url}")
    window.setCentralWidget(QLabel("tsqe"))
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
