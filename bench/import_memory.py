"""Peak memory and time of importing a 2,000,000-row outputs TSV and a workbook at the limits.

Usage: PYTHONPATH=$PWD python bench/import_memory.py [--baseline DIR] [--rows N] [--workbook-rows N] [--dir DIR]

Generates (deterministically) a suite of 100,000 items and an outputs TSV of ``--rows`` rows (20 systems, outputs
of about 100 characters: 2,000,000 rows are about 250 MB), imports the suite, then times the outputs import in a
child process and reads its peak resident memory from the kernel (``wait4``). With ``--baseline DIR`` (a checkout
of other code, e.g. ``git archive main | tar -x -C DIR``) the same import runs with that code too, in the same
run, so that the ratio holds under the same load. Then it writes an outputs workbook of ``--workbook-rows`` rows
whose shared strings come near ``MAX_SHARED_STRINGS_BYTES`` and measures its import the same way. Targets
(issue 22): peak RSS of the TSV import under 1 GB, and no slower than the 1 min 50 s it took before.
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ITEMS = 100_000
SYSTEMS = 20
WORDS = ("the bench was painted green by the old man while the children watched from the window of the house "
         "across a quiet street in the morning light").split()
HERE = Path(__file__).resolve().parents[1]


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(18)).capitalize() + "."


def write_suite(path: Path) -> None:
    rng = random.Random(1)
    with path.open("w", encoding="utf-8") as file:
        file.write("id\tcategory\tphenomenon\tsource\tpositive_regex\n")
        for n in range(ITEMS):
            file.write(f"b-{n:06d}\tCategory {n % 10}\tPhenomenon {n % 100}\t{_sentence(rng)}\t\\bbench\\b\n")


def write_outputs(path: Path, rows: int) -> None:
    rng = random.Random(2)
    with path.open("w", encoding="utf-8") as file:
        file.write("item_id\tsystem\toutput\n")
        for n in range(rows):
            file.write(f"b-{n % ITEMS:06d}\tSystem-{n // ITEMS:02d}\t{_sentence(rng)}\n")


def write_workbook(path: Path, rows: int) -> None:
    from openpyxl import Workbook

    rng = random.Random(3)
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("outputs")
    sheet.append(["item_id", "system", "output"])
    for n in range(rows):
        sheet.append([f"b-{n % ITEMS:06d}", f"Workbook-{n // ITEMS:02d}", _sentence(rng)])
    workbook.save(path)


def measured(code: Path, *args: str) -> tuple[float, float, str]:
    """Run ``tsqe ARGS`` with the code in ``code``; (seconds, peak RSS in MB, last line of its output)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=code, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"tsqe {' '.join(args)} failed with the code in {code}:\n{output[-3000:]}")
    return seconds, usage.ru_maxrss / 1024, (output.strip().splitlines() or [""])[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", type=Path, help="another checkout to measure in the same run")
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--workbook-rows", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, help="where the generated files go (default: a temporary folder)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = options.dir or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        suite, outputs, workbook = folder / "suite.tsv", folder / f"outputs-{options.rows}.tsv", \
            folder / f"outputs-{options.workbook_rows}.xlsx"
        if not suite.exists():
            write_suite(suite)
        if not outputs.exists():
            write_outputs(outputs, options.rows)
        print(f"outputs TSV: {options.rows:,} rows, {outputs.stat().st_size / 1e6:,.0f} MB; load {os.getloadavg()}")
        codes = [("this checkout", HERE)] + ([("baseline", options.baseline)] if options.baseline else [])
        for name, code in codes:
            db = folder / f"{name.replace(' ', '-')}.sqlite"
            db.unlink(missing_ok=True)
            measured(code, "--db", str(db), "import", "suite", str(suite), "--source-lang", "de", "--target-lang", "en")
            seconds, peak, last = measured(code, "--db", str(db), "import", "outputs", str(outputs))
            print(f"{name}: import outputs {seconds:.1f} s, peak RSS {peak:,.0f} MB  ({last[:100]})")
        if options.workbook_rows:
            if not workbook.exists():
                write_workbook(workbook, options.workbook_rows)
            import zipfile

            with zipfile.ZipFile(workbook) as archive:
                strings = sum(m.file_size for m in archive.infolist() if m.filename.endswith("sharedStrings.xml"))
                sheet = sum(m.file_size for m in archive.infolist() if "worksheets/" in m.filename)
            print(f"workbook: {options.workbook_rows:,} rows, {workbook.stat().st_size / 1e6:,.0f} MB, shared strings "
                  f"{strings / 2 ** 20:,.0f} MiB, sheet {sheet / 2 ** 20:,.0f} MiB unpacked")
            db = folder / "this-checkout.sqlite"
            seconds, peak, last = measured(HERE, "--db", str(db), "import", "outputs", str(workbook))
            print(f"this checkout: import workbook {seconds:.1f} s, peak RSS {peak:,.0f} MB  ({last[:100]})")


if __name__ == "__main__":
    main()
