"""Sentence-level QE training data in the MLQE-PE layout (Fomicheva et al., 2020).

Two layouts are read, both as MLQE-PE distributes them:

* post-editing: ``PREFIX.src``, ``PREFIX.mt`` and ``PREFIX.hter``, one sentence (or score) per line,
  aligned by line number (target ``hter``; lower is better);
* direct assessment: a tab-separated ``*.df.short.tsv`` with a header naming at least ``original``,
  ``translation`` and ``mean`` (target ``da``, the mean 0-100 rating) or ``z_mean`` (target ``da-z``);
  higher is better.

A ``--data`` path may be such a ``.tsv`` file, a prefix (``.../en-de/train`` for ``train.src`` etc.), or a
directory, which means its ``train`` prefix (or its single DA table). Several paths are concatenated.
Misaligned or malformed files are rejected as a whole with ``FILE:LINE`` problems.
"""
from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from suite.errors import InputFileError, Problem, TsqeError

TARGETS = {"hter": False, "da": True, "da-z": True}  # target -> higher is better
_DA_COLUMNS = {"da": "mean", "da-z": "z_mean"}


@dataclass
class QEDataset:
    sources: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    targets: list[float] = field(default_factory=list)
    target: str = "hter"
    files: list[dict[str, object]] = field(default_factory=list)  # path and lines read, for the model's meta

    @property
    def higher_is_better(self) -> bool:
        return TARGETS[self.target]

    def __len__(self) -> int:
        return len(self.targets)


def _lines(path: Path) -> list[str]:
    """Lines split on newlines only: MT text may hold U+2028 or U+0085, which ``splitlines`` would split on."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise InputFileError([Problem(str(path), _text_line(path, error.start), "not valid UTF-8")]) from None
    if text.endswith("\n"):
        text = text[:-1]
    return [line.removesuffix("\r") for line in text.split("\n")] if text else []


def _text_line(path: Path, byte_offset: int) -> int:
    return path.read_bytes()[:byte_offset].count(b"\n") + 1


def _number(value: str, path: Path, line: int, problems: list[Problem]) -> float:
    try:
        number = float(value)
    except ValueError:
        problems.append(Problem(str(path), line, f"not a number: {value!r}"))
        return float("nan")
    if number != number or number in (float("inf"), float("-inf")):
        problems.append(Problem(str(path), line, f"not a finite number: {value!r}"))
    return number


def _read_post_editing(prefix: Path, dataset: QEDataset) -> None:
    paths = {ext: prefix.with_name(f"{prefix.name}.{ext}") for ext in ("src", "mt", "hter")}
    missing = [str(p) for p in paths.values() if not p.is_file()]
    if missing:
        raise TsqeError(f"missing QE data file(s): {', '.join(missing)}")
    columns = {ext: _lines(path) for ext, path in paths.items()}
    problems: list[Problem] = []
    n = len(columns["src"])
    for ext in ("mt", "hter"):
        m = len(columns[ext])
        if m < n:
            problems.append(Problem(str(paths[ext]), m + 1, f"file ends here but {paths['src']} has {n} lines"))
        elif m > n:
            problems.append(Problem(str(paths[ext]), n + 1, f"line beyond the {n} lines of {paths['src']}"))
    if problems:
        raise InputFileError(problems)
    scores = []
    for number, (src, _mt, hter) in enumerate(zip(columns["src"], columns["mt"], columns["hter"]), start=1):
        if not src.strip():
            problems.append(Problem(str(paths["src"]), number, "empty source sentence"))
        scores.append(_number(hter.strip(), paths["hter"], number, problems))
    if problems:
        raise InputFileError(problems)
    dataset.sources += columns["src"]
    dataset.outputs += columns["mt"]
    dataset.targets += scores
    dataset.files.append({"path": str(prefix) + ".{src,mt,hter}", "lines": n})


def _read_direct_assessment(path: Path, dataset: QEDataset) -> None:
    column = _DA_COLUMNS[dataset.target]
    lines = _lines(path)
    if not lines:
        raise InputFileError([Problem(str(path), 1, "empty file")])
    header = lines[0].split("\t")
    wanted = ["original", "translation", column]
    absent = [name for name in wanted if name not in header]
    if absent:
        raise InputFileError([Problem(str(path), 1, f"header lacks column(s) {', '.join(absent)}")])
    index = [header.index(name) for name in wanted]
    problems: list[Problem] = []
    rows = []
    for number, fields in enumerate(csv.reader(lines[1:], delimiter="\t", quoting=csv.QUOTE_NONE), start=2):
        if len(fields) != len(header):
            problems.append(Problem(str(path), number, f"{len(fields)} fields, the header has {len(header)}"))
            continue
        src, mt, value = (fields[i] for i in index)
        if not src.strip():
            problems.append(Problem(str(path), number, "empty source sentence"))
        rows.append((src, mt, _number(value.strip(), path, number, problems)))
    if problems:
        raise InputFileError(problems)
    for src, mt, target in rows:
        dataset.sources.append(src)
        dataset.outputs.append(mt)
        dataset.targets.append(target)
    dataset.files.append({"path": str(path), "lines": len(rows), "column": column})


def _resolve(path: Path, target: str) -> tuple[str, Path]:
    """Which layout a ``--data`` path is in and the file or prefix to read."""
    if target == "hter":
        if path.is_dir():
            path = path / "train"
        return "pe", path
    if path.is_dir():
        tables = sorted(path.glob("train*.df.short.tsv")) or sorted(path.glob("*.df.short.tsv"))
        if len(tables) != 1:
            raise TsqeError(f"{path}: expected one train*.df.short.tsv DA table, found {len(tables)}; name the file")
        return "da", tables[0]
    if not path.is_file():
        tables = sorted(path.parent.glob(f"{path.name}*.df.short.tsv"))
        if len(tables) != 1:
            raise TsqeError(f"no DA table {path}*.df.short.tsv (found {len(tables)})")
        return "da", tables[0]
    return "da", path


def load_qe_dataset(paths: Sequence[str | Path], target: str = "hter") -> QEDataset:
    """Read and concatenate QE data; nothing is returned unless every file is well-formed."""
    if target not in TARGETS:
        raise TsqeError(f"unknown QE target {target!r} (known: {', '.join(TARGETS)})")
    if not paths:
        raise TsqeError("no QE data given")
    dataset = QEDataset(target=target)
    for raw in paths:
        layout, path = _resolve(Path(raw), target)
        if layout == "pe":
            _read_post_editing(path, dataset)
        else:
            _read_direct_assessment(path, dataset)
    if len(dataset) < 2:
        raise TsqeError("QE data holds fewer than two sentences")
    return dataset
