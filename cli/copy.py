"""``tsqe copy``: copy a whole database into an empty one, e.g. a SQLite file to the team's PostgreSQL."""
from __future__ import annotations

import typer

from cli.app import app
from cli.progress import progress_bar


@app.command("copy")
def copy_command(
    source: str = typer.Option(..., "--from", metavar="DB", help="Database to copy: a file path or SQLAlchemy URL."),
    target: str = typer.Option(..., "--to", metavar="DB",
                               help="Empty database to copy into: a file path (created) or SQLAlchemy URL."),
) -> None:
    """Copy every suite, output, label, review, history entry, QE system, cached score and embedding, ids kept.

    The target must hold no rows; a failed copy leaves it as it was. --db is not used.
    """
    from store.copy import copy_database

    with progress_bar("copying") as task:
        result = copy_database(source, target, task)
    for table in result.tables:
        if table.rows:
            typer.echo(f"{table.name}\t{table.rows}")
    typer.echo(f"Copied {result.rows} rows in {sum(1 for t in result.tables if t.rows)} tables "
               f"from {result.source} to {result.target}.")
