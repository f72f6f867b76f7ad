"""Avramidis et al.: the paper's Tables 2-4 are QE accuracies of its five QE systems, which are not available;
tsqe's form of them needs two QE systems trained on the DFKI suite (tens of minutes on the shared machine), so no
records are made here: docs/papers/avramidis.md gives the commands and how the form differs."""
from __future__ import annotations

from collections.abc import Callable

from bench.paper_tables import Record
from bench.paper_tables.data import Data

PAPER = "avramidis"
TABLES: dict[str, Callable[[Data], list[Record]]] = {}
