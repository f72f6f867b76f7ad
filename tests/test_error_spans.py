"""suite.reading.error_spans: a segment's MQM errors as imported, and its output and source cut into the pieces
Review paints (the toy file of tests/test_mqm_import.py: two errors overlapping nothing, one in the source)."""
from __future__ import annotations

from pathlib import Path

from test_mqm_import import ROWS, write

from store import Database
from store.domain import ErrorSeverity
from suite.importers.mqm import import_mqm
from suite.reading.error_spans import segment_errors


def test_output_and_source_are_cut_at_every_span(db: Database, tmp_path: Path) -> None:
    import_mqm(db, write(tmp_path, ROWS), name="toy")
    first = segment_errors(db, "toy", "1", "sysA", "Hallo Erde.", 'Hello "world".')
    assert [(e.severity, e.category, e.start, e.end) for e in first.errors] == [
        (ErrorSeverity.MAJOR, "Accuracy/Mistranslation", 6, 10), (ErrorSeverity.MINOR, "Fluency/Punctuation", 10, 11)]
    assert [(p.text, p.severity) for p in first.output] == [
        ("Hallo ", None), ("Erde", ErrorSeverity.MAJOR), (".", ErrorSeverity.MINOR)]
    assert [p.text for p in first.source] == ['Hello "world".'] and first.unplaced == []
    omission = segment_errors(db, "toy", "2", "sysA", "Tschüss.", "Bye.")
    assert [(p.text, p.severity) for p in omission.source] == [("Bye", ErrorSeverity.MINOR), (".", None)]
    assert [(p.text, p.severity) for p in omission.output] == [("Tschüss.", None)]
    assert segment_errors(db, "toy", "1", "sysB", "Hallo Welt.", "").errors == []
