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
from collections.abc import Callable
from pathlib import Path

ITEMS = 100_000
SYSTEMS = 20
WORDS = ("the bench was painted green by the old man while the children watched from the window of the house "
         "across a quiet street in the morning light").split()
HERE = Path(__file__).resolve().parents[1]


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(18)).capitalize() + "."


def write_table(path: Path, header: str, rows: int, row: Callable[[int, random.Random], str], seed: int) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as file:
        file.write(header + "\n")
        for n in range(rows):
            file.write(row(n, rng) + "\n")


def write_suite(path: Path) -> None:
    write_table(path, "id\tcategory\tphenomenon\tsource\tpositive_regex", ITEMS,
                lambda n, rng: f"b-{n:06d}\tCategory {n % 10}\tPhenomenon {n % 100}\t{_sentence(rng)}\t\\bbench\\b", 1)


def write_outputs(path: Path, rows: int) -> None:
    write_table(path, "item_id\tsystem\toutput", rows,
                lambda n, rng: f"b-{n % ITEMS:06d}\tSystem-{n // ITEMS:02d}\t{_sentence(rng)}", 2)


def write_workbook(path: Path, rows: int) -> None:
    """An outputs workbook whose every output is a shared string, as spreadsheet programs save text (openpyxl's
    own writer saves inline strings), written part by part."""
    import zipfile
    from xml.sax.saxutils import escape

    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    relations = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    package = "http://schemas.openxmlformats.org/package/2006/relationships"
    rng = random.Random(3)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
            'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
            'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/'
            'workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-'
            'officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType='
            '"application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>'))
        archive.writestr("_rels/.rels", f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{package}">'
                                        f'<Relationship Id="rId1" Type="{relations}/officeDocument" '
                                        f'Target="xl/workbook.xml"/></Relationships>')
        archive.writestr("xl/workbook.xml", f'<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="{main}" '
                                            f'xmlns:r="{relations}"><sheets><sheet name="outputs" sheetId="1" '
                                            f'r:id="rId1"/></sheets></workbook>')
        archive.writestr("xl/_rels/workbook.xml.rels", (
            f'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{package}"><Relationship Id="rId1" '
            f'Type="{relations}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" '
            f'Type="{relations}/sharedStrings" Target="sharedStrings.xml"/></Relationships>'))
        with archive.open("xl/sharedStrings.xml", "w", force_zip64=True) as strings:
            strings.write(f'<?xml version="1.0" encoding="UTF-8"?><sst xmlns="{main}">'.encode())
            for _ in range(rows):
                strings.write(f"<si><t>{escape(_sentence(rng))}</t></si>".encode())
            strings.write(b"</sst>")
        with archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as sheet:
            sheet.write(f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{main}"><sheetData>'
                        '<row r="1"><c r="A1" t="inlineStr"><is><t>item_id</t></is></c><c r="B1" t="inlineStr"><is>'
                        '<t>system</t></is></c><c r="C1" t="inlineStr"><is><t>output</t></is></c></row>'.encode())
            for n in range(rows):
                line = n + 2
                sheet.write(f'<row r="{line}"><c r="A{line}" t="inlineStr"><is><t>b-{n % ITEMS:06d}</t></is></c>'
                            f'<c r="B{line}" t="inlineStr"><is><t>Workbook-{n // ITEMS:02d}</t></is></c>'
                            f'<c r="C{line}" t="s"><v>{n}</v></c></row>'.encode())
            sheet.write(b"</sheetData></worksheet>")


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
    parser.add_argument("--workbook-rows", type=int, default=900_000,
                        help="rows of the workbook; 900,000 outputs are 117 MiB of shared strings, near the limit")
    parser.add_argument("--dir", type=Path, help="where the generated files go (default: a temporary folder)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = options.dir or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        suite, outputs, workbook = folder / "suite.tsv", folder / f"outputs-{options.rows}.tsv", \
            folder / f"outputs-{options.workbook_rows}.xlsx"
        if not suite.exists():
            write_suite(suite)
        if options.rows and not outputs.exists():
            write_outputs(outputs, options.rows)
        codes = [("this checkout", HERE)] + ([("baseline", options.baseline)] if options.baseline else [])
        if not options.rows:  # the workbook alone, into a database of its own
            codes = []
            db = folder / "this-checkout.sqlite"
            db.unlink(missing_ok=True)
            measured(HERE, "--db", str(db), "import", "suite", str(suite), "--source-lang", "de", "--target-lang", "en")
        if options.rows:
            print(f"outputs TSV: {options.rows:,} rows, {outputs.stat().st_size / 1e6:,.0f} MB; load {os.getloadavg()}")
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
            seconds, peak, last = measured(HERE, "--db", str(folder / "this-checkout.sqlite"), "import", "outputs",
                                           str(workbook))
            print(f"this checkout: import workbook {seconds:.1f} s, peak RSS {peak:,.0f} MB  ({last[:100]})")


if __name__ == "__main__":
    main()
