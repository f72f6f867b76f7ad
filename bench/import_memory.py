"""Peak memory of every importer at its size limit, against issue 27's target: at most 4x the file or 600 MB.

Usage: PYTHONPATH=$PWD python bench/import_memory.py [--scale F] [--only NAME ...] [--baseline DIR] [--dir DIR]

Generates (deterministically, in a temporary folder unless ``--dir``) an input at the limit of each importer
(``suite.importers.limits``: 200,000 items of a suite file, 10,000,000 rows of a table of outputs, QE scores,
reviews or segment scores, 256 MiB of a file read whole such as WMT XML, ...), runs ``tsqe import ...`` on it in a
child process and reads its peak resident memory from the kernel (``wait4``). The imports build on each other in
one database (the suite, then its outputs, then scores and reviews of those outputs), as a user's would. ``--scale``
multiplies every row count (0.1 for a quick look: the target is then measured against the smaller files);
``--only`` measures the named steps (the suite and outputs they need are imported unmeasured). With ``--baseline
DIR`` (a checkout of other code, e.g. ``git archive main | tar -x -C DIR``) each step also runs with that code into
a database of its own, in the same run, so that the ratio holds under the same load.

Two inputs are hostile rather than large: a 40 MB WMT XML of empty elements (1.6 GB before issue 27) and a
workbook whose shared strings come near ``MAX_SHARED_STRINGS_BYTES``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ITEMS = 200_000
"""``MAX_SUITE_ITEMS``."""
TABLE_ROWS = 10_000_000
"""``MAX_TABLE_ROWS``: outputs, QE scores, reviews and segment scores."""
WMT_XML_BYTES = 256 * 1024 * 1024
"""``MAX_WHOLE_FILE_BYTES``."""
EMPTY_ELEMENTS_BYTES = 40 * 1000 * 1000
WORDS = ("the bench was painted green by the old man while the children watched from the window of the house "
         "across a quiet street in the morning light").split()
HERE = Path(__file__).resolve().parents[1]
TARGET_FLOOR_MB = 600
TARGET_FACTOR = 4


def _sentence(rng: random.Random, words: int = 18) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def write_lines(path: Path, lines: Iterator[str]) -> None:
    with path.open("w", encoding="utf-8") as file:
        for line in lines:
            file.write(line + "\n")


def _rows(count: int, row: Callable[[int, random.Random], str], seed: int, header: str | None = None) -> Iterator[str]:
    rng = random.Random(seed)
    if header is not None:
        yield header
    for n in range(count):
        yield row(n, rng)


def item(n: int) -> str:
    return f"b-{n:06d}"


def write_workbook(path: Path, rows: int, items: int) -> None:
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
                sheet.write(f'<row r="{line}"><c r="A{line}" t="inlineStr"><is><t>b-{n % items:06d}</t></is></c>'
                            f'<c r="B{line}" t="inlineStr"><is><t>Workbook-{n // items:02d}</t></is></c>'
                            f'<c r="C{line}" t="s"><v>{n}</v></c></row>'.encode())
            sheet.write(b"</sheetData></worksheet>")


@dataclass
class Inputs:
    """The sizes of one run (row counts scaled by ``--scale``)."""

    items: int
    rows: int
    systems: int

    @classmethod
    def scaled(cls, scale: float) -> Inputs:
        items = max(100, int(ITEMS * scale))
        rows = max(items, int(TABLE_ROWS * scale))
        return cls(items, rows, max(1, rows // items))


def generate(folder: Path, sizes: Inputs, scale: float, wanted: set[str]) -> dict[str, list[Path]]:
    """The input files of the steps ``wanted`` (made once per folder and size), by step name."""
    made = _Made(wanted)

    def once(name: str, writer: Callable[[Path], None]) -> Path:
        path = folder / name
        if not path.exists():
            writer(path)
        return path

    n, rows, systems = sizes.items, sizes.rows, sizes.systems
    system = [f"System-{s:02d}" for s in range(systems)]
    made["suite TSV"] = lambda: [once(f"suite-{n}.tsv", lambda p: write_lines(p, _rows(
        n, lambda i, rng: f"{item(i)}\tCategory {i % 10}\tPhenomenon {i % 100}\t{_sentence(rng)}\t\\bbench\\b", 1,
        "id\tcategory\tphenomenon\tsource\tpositive_regex")))]
    made["suite JSON (DFKI)"] = lambda: [once(f"suite-{n}.json", lambda p: _dfki(p, n))]
    made["outputs TSV"] = lambda: [once(f"outputs-{rows}.tsv", lambda p: write_lines(p, _rows(
        rows, lambda i, rng: f"{item(i % n)}\t{system[i // n]}\t{_sentence(rng)}", 2, "item_id\tsystem\toutput")))]
    made["outputs plain text"] = lambda: [once(f"plain-{n}.txt", lambda p: write_lines(p, _rows(
        n, lambda i, rng: _sentence(rng), 3)))]
    made["QE scores"] = lambda: [once(f"qe-{rows}.tsv", lambda p: write_lines(p, _rows(
        rows, lambda i, rng: f"{item(i % n)}\t{system[i // n]}\t{rng.random():.4f}", 4, "item_id\tsystem\tscore")))]
    made["reviews"] = lambda: [once(f"reviews-{rows}.tsv", lambda p: write_lines(p, _rows(
        rows, lambda i, rng: f"{item(i % n)}\t{system[i // n]}\t{rng.choice(('pass', 'fail'))}\tann", 5,
        "item_id\tsystem\tlabel\treviewer")))]
    made["references TSV"] = lambda: [once(f"references-{n}.tsv", lambda p: write_lines(p, _rows(
        n, lambda i, rng: f"{item(i)}\t{_sentence(rng)}", 6, "item_id\ttext")))]
    made["human scores per system"] = lambda: [once(f"human-{systems}.csv", lambda p: write_lines(p, _rows(
        systems, lambda s, rng: f"de-en {rng.uniform(-1, 1):.4f} {system[s]}", 7, "LP HUMAN SYSTEM")))]
    made["human scores per segment"] = lambda: [once(f"segments-{rows}.tsv", lambda p: write_lines(p, _rows(
        rows, lambda i, rng: f"{system[i // n]}\t{item(i % n)}\t{rng.uniform(-2, 2):.4f}", 8,
        "system\titem_id\tscore")))]
    made["WMT XML"] = lambda: [once(f"wmt-{scale}.xml", lambda p: _wmt_xml(p, int(WMT_XML_BYTES * min(scale, 1.0))))]
    made["WMT XML of empty elements"] = lambda: [once("wmt-empty-elements.xml", _empty_elements)]
    made["WMT plain text"] = lambda: _wmt_text(folder, n)
    made["challenge set DEMETR"] = lambda: [once(f"demetr-{n}.json", lambda p: _demetr(p, n))]
    made["challenge set contrastive TSV"] = lambda: [once(f"contrastive-{n}.tsv", lambda p: write_lines(p, _rows(
        n, lambda i, rng: f"{_sentence(rng)}\t{_sentence(rng)}\t{_sentence(rng)}\t{_sentence(rng)}\tmajor\ttense", 9,
        "source\treference\tgood\tbad\tcategory\tphenomenon")))]
    made["challenge set ACES"] = lambda: [once(f"aces-{n}.tsv", lambda p: write_lines(p, _rows(
        n, lambda i, rng: f"{_sentence(rng)}\t{_sentence(rng)}\t{_sentence(rng)}\t{_sentence(rng)}\taddition\tde-en",
        16, "source\tgood-translation\tincorrect-translation\treference\tphenomena\tlangpair")))]
    made["MQM annotations"] = lambda: [once(f"mqm-{scale}.tsv", lambda p: _mqm(
        p, int(WMT_XML_BYTES * min(scale, 1.0))))]
    made["mt-metrics-eval"] = lambda: [_mtme(folder / f"mtme-{n}", n, systems)]
    made["outputs XLSX"] = lambda: [once(f"outputs-{int(900_000 * min(scale, 1.0))}.xlsx",
                                 lambda p: write_workbook(p, int(900_000 * min(scale, 1.0)), n))]
    return made.paths


class _Made:
    """Step name -> its files, made only for the steps wanted."""

    def __init__(self, wanted: set[str]) -> None:
        self.wanted = wanted
        self.paths: dict[str, list[Path]] = {}

    def __setitem__(self, name: str, make: Callable[[], list[Path]]) -> None:
        if name in self.wanted:
            self.paths[name] = make()


STEPS = ("suite TSV", "outputs TSV", "outputs plain text", "QE scores", "reviews", "references TSV",
         "human scores per system", "human scores per segment", "submission (returned XML)", "outputs XLSX",
         "suite JSON (DFKI)", "WMT XML", "WMT XML of empty elements", "WMT plain text", "challenge set DEMETR",
         "challenge set contrastive TSV", "challenge set ACES", "MQM annotations", "mt-metrics-eval")


def _dfki(path: Path, count: int) -> None:
    rng = random.Random(10)
    with path.open("w", encoding="utf-8") as file:
        file.write('{"items": [\n')
        for i in range(count):
            record = {"id": item(i), "langpair": "de-en", "category": f"Category {i % 10}",
                      "phenomenon": f"Phenomenon {i % 100}", "source_sentence": _sentence(rng),
                      "positive_regex": "\\bbench\\b", "negative_regex": "\\bbank\\b"}
            file.write(("," if i else "") + json.dumps(record) + "\n")
        file.write("]}\n")


def _demetr(path: Path, count: int) -> None:
    rng = random.Random(11)
    with path.open("w", encoding="utf-8") as file:
        file.write("[\n")
        for i in range(count):
            record = {"id": i, "src_sent": _sentence(rng), "eng_sent": _sentence(rng), "mt_sent": _sentence(rng),
                      "pert_sent": _sentence(rng), "lang_tag": "german", "data_source": "WMT", "pert_check": True,
                      "severity": "minor", "pert_id": 14, "pert_desc": "word swap", "pert_name": "minor_id14_swap"}
            file.write(("," if i else "") + json.dumps(record) + "\n")
        file.write("]\n")


def _wmt_xml(path: Path, size: int) -> None:
    """A test set near ``size`` bytes: documents of ten segments, each with its source, a reference and eight
    systems' outputs, as wmt-format-tools writes them."""
    rng = random.Random(12)
    with path.open("w", encoding="utf-8") as file:
        file.write("<?xml version='1.0' encoding='utf-8'?>\n<dataset id=\"bench\">\n")
        doc = 0
        while file.tell() < size - 64 * 1024:  # a whole document more stays within the size
            doc += 1
            sides = [("src", 'lang="de"'), ("ref", 'lang="en" translator="A"')] + [
                ("hyp", f'system="sys{s}" language="en"') for s in range(8)]
            file.write(f'<doc id="d{doc}" origlang="de">\n')
            for tag, attributes in sides:
                segs = "".join(f'<seg id="{k}">{_sentence(rng)}</seg>\n' for k in range(1, 11))
                file.write(f"<{tag} {attributes}><p>\n{segs}</p></{tag}>\n")
            file.write("</doc>\n")
        file.write("</dataset>\n")


def _mqm(path: Path, size: int) -> None:
    """Google's MQM layout near ``size`` bytes (``MAX_WHOLE_FILE_BYTES``: the file is read whole): segments of ten
    documents, each translated by a human (``ref``) and nine systems, one error or ``No-error`` a row."""
    rng = random.Random(17)
    errors = (("Accuracy/Mistranslation", "Major"), ("Fluency/Punctuation", "Minor"), ("No-error", "No-error"))
    with path.open("w", encoding="utf-8") as file:
        file.write("system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity\n")
        segment = 0
        while file.tell() < size - 64 * 1024:  # a whole document more stays within the size
            segment += 1
            source = _sentence(rng)
            for system in ["ref", *(f"sys{s}" for s in range(9))]:
                words = _sentence(rng).split()
                category, severity = rng.choice(errors)
                if category != "No-error":
                    words[2] = f"<v>{words[2]}</v>"
                file.write(f"{system}\tdoc{segment // 10}\t{segment // 10}\t{segment}\trater1\t{source}\t"
                           f"{' '.join(words)}\t{category}\t{severity}\n")


def _empty_elements(path: Path) -> None:
    """One segment, then 40 MB of empty ``<p/>`` in its document: each was an element of the tree held whole."""
    with path.open("w", encoding="utf-8") as file:
        file.write("<?xml version='1.0' encoding='utf-8'?>\n<dataset id=\"empty\">\n<doc id=\"d1\" origlang=\"de\">"
                   '<src lang="de"><p><seg id="1">Ein Satz.</seg></p>\n')
        line = "<p/>" * 25 + "\n"
        for _ in range(EMPTY_ELEMENTS_BYTES // len(line)):
            file.write(line)
        file.write('</src><hyp system="s" language="en"><p><seg id="1">A sentence.</seg></p></hyp></doc>\n'
                   "</dataset>\n")


def _wmt_text(folder: Path, count: int) -> list[Path]:
    """WMT's plain-text layout: sources, a reference, and a folder of eight systems' outputs."""
    src, ref, systems = folder / f"newstest-{count}.de-en.src.de", folder / f"newstest-{count}.de-en.ref.A.en", \
        folder / f"wmt-systems-{count}"
    if not systems.exists():
        write_lines(src, _rows(count, lambda i, rng: f"{_sentence(rng)} {i}", 13))
        write_lines(ref, _rows(count, lambda i, rng: _sentence(rng), 14))
        systems.mkdir()
        for s in range(8):
            write_lines(systems / f"newstest-{count}.sys{s}.de-en", _rows(count, lambda i, rng: _sentence(rng), 15 + s))
    return [src, ref, systems]


def _mtme(root: Path, count: int, systems: int) -> Path:
    """An mt-metrics-eval folder: sources, documents, a reference, the systems' outputs (at most 20), system and
    segment human scores and one metric's segment scores."""
    if root.exists():
        return root
    names = [f"sys{s}" for s in range(min(systems, 20))]
    for sub in ("sources", "documents", "references", "system-outputs/de-en", "human-scores", "metric-scores/de-en"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    write_lines(root / "sources/de-en.txt", _rows(count, lambda i, rng: f"{_sentence(rng)} {i}", 20))
    write_lines(root / "documents/de-en.docs", (f"news doc{i // 10}" for i in range(count)))
    write_lines(root / "references/de-en.refA.txt", _rows(count, lambda i, rng: _sentence(rng), 21))
    for s, name in enumerate(names):
        write_lines(root / f"system-outputs/de-en/{name}.txt", _rows(count, lambda i, rng: _sentence(rng), 22 + s))
    rng = random.Random(40)
    write_lines(root / "human-scores/de-en.mqm.sys.score", (f"{name} {rng.uniform(-5, 0):.3f}" for name in names))
    write_lines(root / "human-scores/de-en.mqm.seg.score", (f"{name} {rng.choice((0, -1, -5, -0.5))}"
                                                              for name in names for _ in range(count)))
    write_lines(root / "metric-scores/de-en/BLEU-refA.seg.score", (f"{name} {rng.uniform(0, 100):.2f}"
                                                                     for name in names for _ in range(count)))
    return root


def _size(paths: list[Path]) -> int:
    return sum(sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir() else p.stat().st_size
               for p in paths)


def steps(files: dict[str, list[Path]], db: Path, submission: Path) -> list[tuple[str, list[Path], list[str]]]:
    """(name, input files, tsqe arguments) in the order they build on each other."""
    present = set(files) | {"submission (returned XML)"}
    f = defaultdict(list, {name: [str(p) for p in paths] for name, paths in files.items()})
    wmt_src, wmt_ref, wmt_systems = f.get("WMT plain text", ["", "", ""])
    files = {**{name: [] for name in STEPS}, **files}
    every = [
        ("suite TSV", files["suite TSV"], ["import", "suite", *f["suite TSV"], "--source-lang", "de",
                                           "--target-lang", "en"]),
        ("outputs TSV", files["outputs TSV"], ["import", "outputs", *f["outputs TSV"]]),
        ("outputs plain text", files["outputs plain text"], ["import", "outputs", *f["outputs plain text"],
                                                             "--system", "Plain-MT"]),
        ("QE scores", files["QE scores"], ["import", "qe", *f["QE scores"], "--name", "bench-qe"]),
        ("reviews", files["reviews"], ["import", "labels", *f["reviews"]]),
        ("references TSV", files["references TSV"], ["import", "references", *f["references TSV"], "--name", "r2"]),
        ("human scores per system", files["human scores per system"],
         ["import", "human-scores", *f["human scores per system"], "--lp", "de-en"]),
        ("human scores per segment", files["human scores per segment"],
         ["import", "human-scores", "--segments", *f["human scores per segment"]]),
        ("submission (returned XML)", [submission], ["import", "outputs", str(submission), "--map",
                                                     str(submission.with_name("map.tsv"))]),
        ("outputs XLSX", files["outputs XLSX"], ["import", "outputs", *f["outputs XLSX"]]),
        ("suite JSON (DFKI)", files["suite JSON (DFKI)"], ["import", "suite", *f["suite JSON (DFKI)"], "--name",
                                                           "dfki-bench"]),
        ("WMT XML", files["WMT XML"], ["import", "wmt", "--xml", *f["WMT XML"], "--name", "wmt-xml"]),
        ("WMT XML of empty elements", files["WMT XML of empty elements"],
         ["import", "wmt", "--xml", *f["WMT XML of empty elements"], "--name", "wmt-empty"]),
        ("WMT plain text", files["WMT plain text"], ["import", "wmt", "--src", wmt_src, "--ref", wmt_ref,
                                                     "--systems", wmt_systems, "--name", "wmt-text"]),
        ("challenge set DEMETR", files["challenge set DEMETR"],
         ["import", "challenge", *f["challenge set DEMETR"], "--format", "demetr", "--name", "demetr-bench"]),
        ("challenge set contrastive TSV", files["challenge set contrastive TSV"],
         ["import", "challenge", *f["challenge set contrastive TSV"], "--format", "contrastive-tsv", "--name",
          "contrastive-bench"]),
        ("challenge set ACES", files["challenge set ACES"],
         ["import", "challenge", *f["challenge set ACES"], "--format", "aces", "--name", "aces-bench"]),
        ("MQM annotations", files["MQM annotations"], ["import", "mqm", *f["MQM annotations"], "--name", "mqm-bench",
                                                         "--source-lang", "en", "--target-lang", "de"]),
        ("mt-metrics-eval", files["mt-metrics-eval"], ["import", "mtme", *f["mt-metrics-eval"], "--lp", "de-en",
                                                       "--name", "mtme-bench"]),
    ]
    return [step for step in every if step[0] in present]


def write_submission(code: Path, db: Path, folder: Path) -> Path:
    """A returned XML translation of the suite's submitted file, with its map: every segment translated."""
    sent = folder / "sent"
    if sent.exists():
        shutil.rmtree(sent)
    measured(code, "--db", str(db), "export", "testsuite-submission", str(sent))
    [map_file] = sent.glob("*.map.tsv")
    [source] = sent.glob("*.src.xml")
    returned = folder / "returned.xml"
    text = source.read_text(encoding="utf-8")
    rng = random.Random(50)
    pieces = text.split("</src>")
    out = [pieces[0]]
    for piece in pieces[1:]:
        out.append(f'</src>\n<hyp system="Returned-MT" language="en"><p><seg id="1">{_sentence(rng)}</seg></p></hyp>'
                   + piece)
    returned.write_text("".join(out), encoding="utf-8")
    shutil.copy(map_file, returned.with_name("map.tsv"))
    return returned


def measured(code: Path, *args: str, check: bool = True) -> tuple[float, float, str]:
    """Run ``tsqe ARGS`` with the code in ``code``; (seconds, peak RSS in MB, last line of its output)."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=code, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0 and check:
        raise SystemExit(f"tsqe {' '.join(args)} failed with the code in {code}:\n{output[-3000:]}")
    last = (output.strip().splitlines() or [""])[-1]
    return seconds, usage.ru_maxrss / 1024, last if status == 0 else f"FAILED: {last}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every row count (1: the limits)")
    parser.add_argument("--only", nargs="*", default=None, help="the steps to measure (default: all)")
    parser.add_argument("--baseline", type=Path, help="another checkout to measure in the same run")
    parser.add_argument("--dir", type=Path, help="where the generated files go (default: a temporary folder)")
    parser.add_argument("--reuse", action="store_true",
                        help="keep the database of an earlier run in --dir (its suite and outputs)")
    options = parser.parse_args()
    sizes = Inputs.scaled(options.scale)
    with tempfile.TemporaryDirectory() as temporary:
        folder = options.dir or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        # --reuse imports nothing unmeasured: the suite and outputs the others build on are in its database
        wanted = set(options.only or STEPS) | (set() if options.reuse else {"suite TSV", "outputs TSV"})
        files = generate(folder, sizes, options.scale, wanted)
        print(f"inputs: {sizes.items:,} items, {sizes.rows:,} table rows ({sizes.systems} systems), generated in "
              f"{time.perf_counter() - started:.0f} s; load {os.getloadavg()}")
        codes = [("this checkout", HERE)] + ([("baseline", options.baseline)] if options.baseline else [])
        print(f"{'importer':<32}{'file MB':>9}{'target MB':>11}" + "".join(f"{name + ' MB':>17}{'s':>7}"
                                                                         for name, _ in codes) + "  result")
        databases = {name: folder / f"{name.replace(' ', '-')}.sqlite" for name, _ in codes}
        for db in databases.values():
            if not options.reuse:
                db.unlink(missing_ok=True)
        submission: dict[str, Path] = {}
        for name, paths, args in steps(files, next(iter(databases.values())), folder / "returned.xml"):
            measure = options.only is None or name in options.only
            if not measure and (options.reuse or name not in ("suite TSV", "outputs TSV")):
                continue
            size_mb = _size(paths) / 1e6 if name != "submission (returned XML)" else 0.0
            row = ""
            peaks: list[float] = []
            for code_name, code in codes:
                db = databases[code_name]
                run_args = list(args)
                if name == "submission (returned XML)":
                    submission[code_name] = write_submission(code, db, folder / code_name.replace(" ", "-"))
                    run_args = ["import", "outputs", str(submission[code_name]), "--map",
                                str(submission[code_name].with_name("map.tsv"))]
                    size_mb = submission[code_name].stat().st_size / 1e6
                seconds, peak, last = measured(code, "--db", str(db), *run_args, check=False)
                peaks.append(peak)
                row += f"{peak:>17,.0f}{seconds:>7.0f}"
                if last.startswith("FAILED"):
                    row += f"  ({last[:120]})"
            target = max(TARGET_FLOOR_MB, TARGET_FACTOR * size_mb)
            verdict = "meets" if peaks[0] <= target else "OVER"
            if measure:
                print(f"{name:<32}{size_mb:>9,.0f}{target:>11,.0f}{row}  {verdict}", flush=True)
        print(f"load at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
