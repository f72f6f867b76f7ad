"""The list of command modules; each adds its commands to ``cli.main.app`` when imported."""
from __future__ import annotations

import cli.demo
import cli.discriminative
import cli.editing
import cli.export
import cli.filters
import cli.importing
import cli.labelling
import cli.qe_evaluation
import cli.qe_systems
import cli.report
import cli.rule_group
import cli.status
import cli.wmt  # noqa: F401
