"""What every report, accuracy table and export says while outputs are not labelled yet (a ``tsqe label`` that
was stopped part-way, new outputs, rules changed since): one line on standard error, printed before the table, so
that the table (or a TSV, a JSON document on standard output) stays as it is; JSON gets a field of its own
(``emit_table``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from store import Database
    from suite.reading.status import Unlabelled

RESUME = "run tsqe label"


def say_unlabelled(database: Database, suite_name: str | None) -> Unlabelled:
    """Count the suite's unlabelled outputs and say so when there are any."""
    from suite.reading.status import unlabelled_outputs  # here: a command that prints no report needs none of it

    unlabelled = unlabelled_outputs(database, suite_name)
    if unlabelled.notice is not None:
        typer.echo(f"note: {unlabelled.notice}: {RESUME}", err=True)
    return unlabelled
