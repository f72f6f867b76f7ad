"""Opening databases, importing, labelling and exporting (after Anki's ``operations/collection.py``).

Each factory returns a ``Write`` whose result says what changed (an import's ``ImportResult``, labelling's
``LabelRun``) and what it did, in the words the command line prints for the same call.
"""
from __future__ import annotations

from pathlib import Path

from gui.operations.runner import Write, changes_nothing
from store import Database, open_database
from suite.demo import DEMO_SUITE, create_demo
from suite.engine.label_run import LabelRun
from suite.engine.labelling import label_suite
from suite.exporters.labels_tsv import export_labels
from suite.exporters.suite_file import export_suite
from suite.importers import ImportResult, import_outputs, import_reviews, import_suite
from suite.reading.names import suite_names
from suite.tasks import TaskState

Opened = tuple[Database, list[str]]


def _opened(result: Opened) -> str:
    names = result[1]
    return f"{len(names)} suite{'s' if len(names) != 1 else ''}" if names else "no suite yet"


def open_target(target: str, *, create: bool = False) -> Write[Opened]:
    """Open (and migrate if needed) a database file or URL; opening changes no data, it replaces them
    (``AppState.open``). A file that does not exist is created only when ``create`` (File → New database): a
    recent or remembered file that was moved away, or a mistyped path, is refused, not made anew and empty."""
    def work(task: TaskState) -> Opened:
        db = open_database(target, create=create)
        return db, suite_names(db)

    name = Path(target).name if "://" not in target else target
    return Write(f"opening {name}", work, said=_opened, changes=changes_nothing)


def open_demo(path: Path) -> Write[Opened]:
    """The demo database in the user's data folder, built once and reused."""
    def work(task: TaskState) -> Opened:
        db = open_database(path)
        names = suite_names(db)
        if DEMO_SUITE not in names:
            create_demo(db, task=task)
            names = suite_names(db)
        return db, names

    return Write("building the demo suite", work, said=_opened, changes=changes_nothing)


def label_all(db: Database, suite: str) -> Write[LabelRun]:
    return Write("labelling", lambda task: label_suite(db, suite, task=task), said=LabelRun.summary)


def said_of_import(result: ImportResult) -> str:
    said = "; ".join(result.summary) or "done"
    if result.warnings:
        first = result.warnings[0]
        said += (f" — {len(result.warnings):,} warning{'s' if len(result.warnings) > 1 else ''}, the first: "
                 f"{first.location}: {first.message}")
    return said


def import_suite_file(db: Database, path: str, name: str, languages: tuple[str, str] | None) -> Write[ImportResult]:
    source, target = languages or (None, None)
    return Write(f"importing the suite {Path(path).name}", lambda task: import_suite(
        db, path, name=name, source_lang=source, target_lang=target, task=task), said=said_of_import)


def import_outputs_file(db: Database, suite: str | None, path: str) -> Write[ImportResult]:
    """Outputs and their labels in one transaction: outputs are of no use to a reviewer unlabelled, and a failure
    or a Cancel must not leave them imported but unlabelled."""
    return Write(f"importing outputs from {Path(path).name}", lambda task: import_outputs(
        db, path, suite_name=suite, label=True, task=task), said=said_of_import)


def import_reviews_file(db: Database, suite: str | None, path: str) -> Write[ImportResult]:
    return Write(f"importing labels from {Path(path).name}", lambda task: import_reviews(
        db, path, suite_name=suite, task=task), said=said_of_import)


def export_suite_file(db: Database, suite: str, path: str) -> Write[int]:
    """The suite as a file the importers read back (.xlsx, .tsv, .csv or DFKI .json)."""
    return Write("exporting the suite", lambda task: export_suite(db, path, suite_name=suite),
                 said=lambda items: f"wrote {items:,} items to {path}", changes=changes_nothing)


def export_labels_file(db: Database, suite: str, path: str) -> Write[int]:
    return Write("exporting labels", lambda task: export_labels(db, path, suite_name=suite),
                 said=lambda rows: f"wrote {rows:,} rows to {path}", changes=changes_nothing)
