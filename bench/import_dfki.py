"""Time the importers on the real DFKI de-en suite and the WMT21 systems' outputs on it.

Usage: PYTHONPATH=. python bench/import_dfki.py [SHARED_DATA_DIR]
Prints the wall time of each step on a fresh SQLite database in a temporary directory.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from store import open_database
from suite.exporters.labels_tsv import export_labels
from suite.importers import import_outputs, import_suite
from suite.reading.status import suite_status

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "external"


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DATA
    suite_file = data / "mt-testsuite" / "testset" / "de-en" / "items.json"
    outputs_file = data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv"
    with tempfile.TemporaryDirectory() as folder:
        db = open_database(Path(folder) / "bench.sqlite")
        steps = [
            ("import suite", lambda: import_suite(db, suite_file).counts),
            ("import outputs", lambda: import_outputs(db, outputs_file).counts),
            ("re-import suite (update, nothing changed)", lambda: import_suite(db, suite_file, update=True).counts),
            ("re-import outputs (nothing changed)", lambda: import_outputs(db, outputs_file).counts),
            ("status", lambda: {k: v for k, v in suite_status(db).items() if k != "labels"}),
            ("export labels", lambda: {"rows": export_labels(db, Path(folder) / "labels.tsv")}),
        ]
        for name, step in steps:
            start = time.perf_counter()
            counts = step()
            print(f"{name}: {time.perf_counter() - start:.2f} s  {counts}")
        db.close()


if __name__ == "__main__":
    main()
