"""Values the command line's options show at definition (defaults, choices in their help), copied from the core.

``tsqe --help`` builds every command's options, and importing the core modules that define these values would
import SQLAlchemy and NumPy, most of a second of start-up (issue 16); the commands import the core when they run.
``tests/test_startup_imports.py`` checks that each value here equals the core's, so a copy cannot drift.
"""
from __future__ import annotations

PREVIEW_TIMEOUT = 0.1  # suite.preview.PREVIEW_TIMEOUT
PREVIEW_SCOPES = ("item", "phenomenon", "category", "suite")  # suite.preview.SCOPES
HUMAN = "human"  # filters.systems.HUMAN: rank systems by their human scores
REFERENCE_COMBINATIONS = ("multi", "max", "mean")  # suite.references.COMBINATIONS
STANDARD_REFERENCE = "standard"  # store.models.STANDARD_REFERENCE
CHALLENGE_FORMATS = ("demetr", "aces", "contrastive-tsv")  # store.models.CHALLENGE_FORMATS
RULE_HEALTH_SORTS = ("item", "matches", "decisions", "overridden", "precision")  # suite.assist.rule_health.SORTS
KNOWN_GOOD = "known-good"  # suite.references.KNOWN_GOOD
ACCURACY_ROWS = ("category", "phenomenon")  # qe.accuracy.BY
BOOTSTRAP_RESAMPLES = 1000  # filters.metrics.statistics.RESAMPLES
BOOTSTRAP_SEED = 0  # filters.metrics.statistics.SEED
