"""The command-line reference page, generated from the typer app itself: every command's usage, help and options.

The documentation site builds its ``reference/commands.md`` from this at every build (``docs/hooks/cli_reference.py``,
a MkDocs hook), so the page cannot drift from the commands; ``python -m cli.reference`` prints it. Typer keeps its
own copy of click, so the command tree is read by the attributes every click command has (``commands``,
``params``, ``param_type_name``), not by click's classes.
"""
from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

import typer

from cli.main import app


def _commands(group: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command under ``group``, depth first in name order; a group with a callback of its own (``tsqe
    references``) is a command too."""
    for name in sorted(group.commands):
        command = group.commands[name]
        if command.hidden:
            continue
        if hasattr(command, "commands"):
            if command.invoke_without_command:
                yield (*path, name), command
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


def _cell(text: str) -> str:
    return _text(" ".join(text.split())).replace("|", "\\|")


def _text(text: str) -> str:
    """Help text as Markdown shows it: ``<hyp system=...>`` is text, not an HTML tag."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _metavar(parameter: Any, context: Any) -> str:
    shown = str(parameter.metavar or parameter.display_type(context).strip("<>").upper())
    return shown.replace("|", "/")


def _row(parameter: Any, context: Any) -> str:
    if parameter.param_type_name == "argument":
        names = f"`{parameter.name.upper()}`"
    else:
        names = ", ".join(f"`{opt}`" for opt in [*parameter.opts, *parameter.secondary_opts])
        if not parameter.is_flag:
            names = names[:-1] + f" {_metavar(parameter, context)}`"
    default = parameter.default
    shown = "" if default is None or default is False or default in ((), []) or callable(default) else \
        f" Default: `{getattr(default, 'value', default)}`."
    required = " Required." if parameter.required and parameter.param_type_name == "option" else ""
    repeat = " Repeatable." if getattr(parameter, "multiple", False) else ""
    return f"| {names} | {_cell(getattr(parameter, 'help', None) or '')}{required}{repeat}{shown} |"


def _table(command: Any, heading: str) -> list[str]:
    shown = [p for p in command.params if not getattr(p, "hidden", False)]
    context = typer.Context(command)
    return [f"| {heading} | meaning |", "|---|---|", *(_row(p, context) for p in shown), ""] if shown else []


def reference_page() -> str:
    """The Markdown of the page: the global options, then one section per command."""
    root: Any = typer.main.get_command(app)
    lines = ["# Commands", "",
             "Generated from the command line itself whenever the site is built: what `tsqe COMMAND --help` says. "
             "Every command takes the global options `--db` and `--suite` before its name.", "",
             "## tsqe", "", inspect.cleandoc(root.help or ""), "", *_table(root, "option")]
    for path, command in _commands(root, ()):
        name = " ".join(("tsqe", *path))
        arguments = [p.name.upper() for p in command.params if p.param_type_name == "argument"]
        usage = " ".join([name, *(["[OPTIONS]"] if any(p.param_type_name == "option" for p in command.params)
                                  else []), *arguments])
        lines += [f"## {name}", "", "```", usage, "```", "", _text(inspect.cleandoc(command.help or "")), "",
                  *_table(command, "argument or option")]
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(reference_page(), end="")
