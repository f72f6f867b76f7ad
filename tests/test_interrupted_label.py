"""An interrupted job says so (issue 27): a ``tsqe label`` killed part-way leaves part of the suite labelled (it
commits chunk by chunk so that reviews are not held up); every report, accuracy table and export computed
meanwhile says how many outputs are not labelled yet, above the table, and ``tsqe status`` says how to resume."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app
from store import open_database
from suite.importers.wmt import import_wmt
from suite.reading.status import unlabelled_outputs

ROOT = Path(__file__).resolve().parent.parent
ITEMS = 6_000
SYSTEMS = ("A", "B", "C")


def wmt_suite(folder: Path) -> Path:
    """A generated test set of ``ITEMS`` lines and three systems, imported (outputs not labelled yet)."""
    (folder / "src.de").write_text("".join(f"Satz {i}.\n" for i in range(ITEMS)), encoding="utf-8")
    (folder / "ref.en").write_text("".join(f"Sentence {i}.\n" for i in range(ITEMS)), encoding="utf-8")
    systems = folder / "systems"
    systems.mkdir()
    for n, name in enumerate(SYSTEMS):
        (systems / f"newstest2099.{name}.de-en").write_text(
            "".join(f"Sentence {i}{'.' * (n + 1)}\n" for i in range(ITEMS)), encoding="utf-8")
    db_path = folder / "t.sqlite"
    db = open_database(db_path)
    import_wmt(db, src=folder / "src.de", refs=[folder / "ref.en"], systems=[systems], name="nt")
    db.close()
    return db_path


def labelled_items(db_path: Path) -> int:
    with closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=5)) as connection:
        return connection.execute("SELECT count(*) FROM label_fingerprints").fetchone()[0]


def kill_label_part_way(db_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen([sys.executable, "-m", "cli", "--db", str(db_path), "label"], env=env, cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and process.poll() is None:
            try:
                if 0 < labelled_items(db_path) < ITEMS:
                    break
            except sqlite3.OperationalError:
                pass  # the labeller holds the write lock at this moment
            time.sleep(0.005)
        if process.poll() is not None:
            pytest.fail("tsqe label finished before it could be killed part-way")
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=60)


def tsqe(db_path: Path, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db_path), *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_killed_label_run_is_said_by_every_report_and_status(tmp_path: Path) -> None:
    db_path = wmt_suite(tmp_path)
    db = open_database(db_path)
    assert unlabelled_outputs(db).outputs == ITEMS * len(SYSTEMS)
    db.close()
    kill_label_part_way(db_path)
    done = labelled_items(db_path)
    assert 0 < done < ITEMS
    db = open_database(db_path)
    left = unlabelled_outputs(db).outputs
    db.close()
    assert left == (ITEMS - done) * len(SYSTEMS)  # every item's three outputs differ
    notice = f"note: {left:,} outputs are not labelled yet: run tsqe label"

    code, stdout, stderr = tsqe(db_path, "report", "systems")
    assert code == 0 and stderr.startswith(notice), stderr
    assert notice not in stdout
    code, stdout, stderr = tsqe(db_path, "report", "systems", "--format", "json")
    assert code == 0 and json.loads(stdout)["unlabelled_outputs"] == left
    code, stdout, stderr = tsqe(db_path, "pairs")
    assert code == 0 and stderr.startswith(notice) and stdout.startswith("item_id")  # the TSV stays a TSV
    code, _, stderr = tsqe(db_path, "export", "labels", str(tmp_path / "labels.tsv"))
    assert code == 0 and stderr.startswith(notice)
    code, stdout, _ = tsqe(db_path, "status")
    assert code == 0 and f"{left:,} outputs are not labelled yet: run tsqe label" in stdout
    code, stdout, _ = tsqe(db_path, "status", "--json")
    assert json.loads(stdout)["unlabelled_outputs"] == left

    code, _, _ = tsqe(db_path, "label")  # resumes
    assert code == 0
    code, stdout, stderr = tsqe(db_path, "report", "systems")
    assert code == 0 and "not labelled yet" not in stderr + stdout


def test_changed_rules_make_their_items_outputs_not_labelled(tmp_path: Path) -> None:
    """An item whose rules changed after its labelling (an update of the suite's file) has stale labels."""
    from import_helpers import SUITE_JSON, small_suite

    from suite.engine.labelling import label_suite
    from suite.importers import import_suite

    db = open_database(tmp_path / "t.sqlite")
    small_suite(db, tmp_path)
    assert unlabelled_outputs(db).outputs == 7  # imported, not labelled yet
    label_suite(db)
    assert unlabelled_outputs(db).outputs == 0
    changed = SUITE_JSON.replace('"positive_regex": "husband"', '"positive_regex": "husband|spouse"')
    (tmp_path / "de-en" / "items.json").write_text(changed, encoding="utf-8")
    import_suite(db, tmp_path / "de-en" / "items.json", update=True)
    found = unlabelled_outputs(db)
    assert (found.stale_items, found.outputs) == (1, 2)  # item 1's two distinct outputs (A and B agree)
    label_suite(db)
    assert unlabelled_outputs(db).outputs == 0
    db.close()
