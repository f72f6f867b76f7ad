"""Importers for suites, MT outputs, QE scores, reviewed labels, WMT test sets and human scores.

Each one reads and checks the whole file first and writes it in one transaction: a file with any error
is rejected with every problem listed as ``FILE:LINE: what is wrong`` and the database stays as it was.
"""
from __future__ import annotations

from suite.importers.human_scores import import_human_scores
from suite.importers.outputs import import_outputs
from suite.importers.qe_scores import import_qe_scores
from suite.importers.result import ImportResult
from suite.importers.reviews import import_reviews
from suite.importers.suite_import import default_suite_name, import_suite
from suite.importers.wmt import import_wmt

__all__ = ["ImportResult", "default_suite_name", "import_human_scores", "import_outputs", "import_qe_scores",
           "import_reviews", "import_suite", "import_wmt"]
