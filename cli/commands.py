"""The list of command modules; each adds its commands to ``cli.app.app`` when imported.

``tsqe --help`` imports them all, so a command module imports the core (``store``, ``suite``, ``qe``, ``filters``)
inside its command functions, not at its top: at the top they brought SQLAlchemy and NumPy into every start, most of
``--help``'s time (issue 16). Light modules (``suite.errors``, ``suite.tables``, ``suite.tasks``,
``suite.engine.rules``, ``filters.metrics``) may stay at the top; values an option shows at definition come from
``cli/choices.py``. ``tests/test_startup_imports.py`` checks it.
"""
from __future__ import annotations

import cli.adversarial  # noqa: F401
import cli.browse  # noqa: F401
import cli.challenge  # noqa: F401
import cli.check  # noqa: F401
import cli.copy  # noqa: F401
import cli.demo  # noqa: F401
import cli.discriminative  # noqa: F401
import cli.editing  # noqa: F401
import cli.export  # noqa: F401
import cli.filters  # noqa: F401
import cli.importing  # noqa: F401
import cli.labelling  # noqa: F401
import cli.matched_ngrams  # noqa: F401
import cli.meta_eval  # noqa: F401
import cli.monotonicity  # noqa: F401
import cli.mtme  # noqa: F401
import cli.qe_evaluation  # noqa: F401
import cli.qe_systems  # noqa: F401
import cli.references  # noqa: F401
import cli.report  # noqa: F401
import cli.reviewers  # noqa: F401
import cli.rule_group  # noqa: F401
import cli.rule_suggest  # noqa: F401
import cli.rule_test  # noqa: F401
import cli.rules_health  # noqa: F401
import cli.status  # noqa: F401
import cli.suites  # noqa: F401
import cli.vat_properties  # noqa: F401
import cli.wmt  # noqa: F401
