"""``tsqe rule ...``: the command group that editing (add, edit, remove) and previewing (test) both extend."""
from __future__ import annotations

import typer

from cli.app import app

rule_app = typer.Typer(help="Add, change, remove and test an item's rules.", no_args_is_help=True)
app.add_typer(rule_app, name="rule")
