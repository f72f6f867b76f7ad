"""``tsqe rule suggest``: positive and negative rules proposed for an item from its decided outputs, with what
each would decide and flip; nothing is saved (``tsqe rule add`` saves one)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from suite.assist.item_suggestions import ItemSuggestions

from cli.context import app_context
from cli.progress import progress_bar
from cli.rule_group import rule_app
from cli.rule_test import FAIL_COLOUR, PASS_COLOUR

_POLARITY_STYLE = {"positive": f"bold {PASS_COLOUR}", "negative": f"bold {FAIL_COLOUR}"}


@rule_app.command("suggest")
def suggest_command(
    ctx: typer.Context,
    external_id: str = typer.Argument(..., metavar="ITEM_ID", help="The item's id in the suite."),
    scope: bool = typer.Option(True, "--scope/--no-scope",
                               help="Also count what each rule would flip across the item's phenomenon."),
    as_json: bool = typer.Option(False, "--json", help="Print the suggestions as one JSON object."),
) -> None:
    """Suggest rules for an item from its decided outputs; none of them contradicts a decided output."""
    from suite.assist.item_suggestions import item_suggestions
    from suite.editing import find_item

    context = app_context(ctx)
    db = context.database
    item_id = find_item(db, external_id, context.suite_name)
    with progress_bar("suggesting") as task:
        found = item_suggestions(db, item_id, scope=scope, task=task)
    if as_json:
        typer.echo(json.dumps(found.to_json(), ensure_ascii=False))
    else:
        _show(found)


def _flips(flips: dict[str, int]) -> str:
    return ", ".join(f"{flip.replace('->', '→')} {n}" for flip, n in flips.items()) or "nothing"


def _show(found: ItemSuggestions) -> None:
    console = Console(highlight=False, soft_wrap=True)
    place = " / ".join(part for part in (found.category, found.phenomenon) if part)
    console.print(f"{found.external_id}" + (f" ({place})" if place else "") +
                  f": {found.passing} passing and {found.failing} failing decided texts, "
                  f"{found.undecided} undecided output{'s' if found.undecided != 1 else ''}")
    if not found.suggestions:
        console.print("no suggestion: no pattern both decides undecided outputs and contradicts nothing, "
                      "with enough evidence")
        return
    for rank, offered in enumerate(found.suggestions, 1):
        rule = offered.suggestion
        console.print(Text.assemble(f"{rank}. ", (f"{rule.polarity:<8}", _POLARITY_STYLE[rule.polarity]), "  ",
                                    (rule.pattern, "bold"), "  (ignore case)" if rule.ignore_case else ""))
        console.print(f"   decides {len(rule.decides)} of the {found.undecided} undecided outputs: "
                      f"{_flips(offered.flips)}")
        other = "failing" if rule.label == "pass" else "passing"
        console.print(f"   matches {rule.matches} of {rule.of} {rule.label}ing texts and "
                      + (f"none of the {rule.against} {other} ones" if rule.against else f"there is no {other} one")
                      + f"; confidence {rule.confidence:.2f}")
        if offered.scope is not None:
            console.print(f"   across the {offered.scope.scope} ({offered.scope.outputs} outputs): "
                          f"{_flips(offered.scope.flips)}")
        for reason in rule.reasons:
            console.print(f"   why: {reason}")
