"""``tsqe check``: are the database file's pages intact?"""
from __future__ import annotations

import typer

from cli.app import app
from cli.context import app_context

SHOWN = 20
"""Problems printed; a damaged file can have thousands, which would scroll its summary away."""


@app.command("check")
def check_command(
    ctx: typer.Context,
    quick: bool = typer.Option(False, "--quick", help="Check the pages only, not every index against its table "
                                                      "(SQLite's quick_check: faster on a large file)."),
) -> None:
    """Check the database file for damage (SQLite's integrity_check) without changing it.

    Lists what is damaged and exits with status 2, or says the file is intact. The file is opened read-only and
    nothing is written, the result included. A PostgreSQL server checks its own pages; there the check confirms,
    in a read-only transaction, that the server answers.
    """
    from store.integrity import check_database

    report = check_database(app_context(ctx).db, quick=quick)
    if report.ok:
        typer.echo(f"{report.database}: intact ({report.kind})")
        return
    typer.echo(f"error: {report.database} is damaged ({report.kind} found {len(report.problems)} "
               f"problem{'s' if len(report.problems) != 1 else ''}); restore it from a backup:", err=True)
    for problem in report.problems[:SHOWN]:
        typer.echo(f"  {problem}", err=True)
    if len(report.problems) > SHOWN:
        typer.echo(f"  … and {len(report.problems) - SHOWN:,} more", err=True)
    raise typer.Exit(2)
