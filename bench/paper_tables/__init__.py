"""The five papers' tables, one module a paper, for ``bench/papers.py``.

Each module has ``PAPER`` (the key) and ``TABLES``: table key -> a function of the :class:`Data` that returns the
table's :class:`Record` s, with the paper's own row and column labels and its printed figure beside tsqe's
(``published`` None where the paper prints none: a cell of a figure, a dataset it did not use). Figures the papers
type in are quoted from the texts in ``../shared/papers`` (README there), never from memory.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

Value = float | int | str | None


@dataclass(frozen=True)
class Record:
    paper: str
    table: str
    row: str
    column: str
    tsqe: Value
    published: Value

    def to_json(self) -> dict[str, Value]:
        return asdict(self)
