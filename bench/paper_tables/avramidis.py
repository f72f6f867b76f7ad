from __future__ import annotations

from collections.abc import Callable

from bench.paper_tables import Record
from bench.paper_tables.data import Data

PAPER = "avramidis"
TABLES: dict[str, Callable[[Data], list[Record]]] = {}
