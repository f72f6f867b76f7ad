"""``tsqe rule test``: what one more rule would do to an item's labels (or its phenomenon's, category's,
suite's), without saving it."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.text import Text

from cli.choices import PREVIEW_SCOPES, PREVIEW_TIMEOUT
from cli.context import app_context
from cli.progress import progress_bar
from cli.rule_group import rule_app
from store.domain import Polarity
from suite.errors import TsqeError

if TYPE_CHECKING:
    from suite.engine.preview import ItemPreview, ScopePreview

PASS_COLOUR = "#009E73"
FAIL_COLOUR = "#D55E00"
_POLARITY_STYLE = {"positive": f"bold {PASS_COLOUR}", "negative": f"bold {FAIL_COLOUR}"}
_LABEL_STYLE = {"pass": PASS_COLOUR, "fail": FAIL_COLOUR}


@rule_app.command("test")
def test_command(
    ctx: typer.Context,
    external_id: str = typer.Argument(..., metavar="ITEM_ID", help="The item's id in the suite."),
    positive: str = typer.Option(None, "--positive", metavar="PATTERN", help="Try this positive rule."),
    negative: str = typer.Option(None, "--negative", metavar="PATTERN", help="Try this negative rule."),
    ignore_case: bool = typer.Option(False, "--ignore-case", help="Match the pattern regardless of case."),
    scope: str = typer.Option("item", "--scope", metavar="|".join(PREVIEW_SCOPES),
                              help="Also show what adding the rule to every item of the item's phenomenon, "
                                   "category or suite would change."),
    timeout: float = typer.Option(PREVIEW_TIMEOUT, "--timeout", min=0.001, metavar="SECONDS",
                                  help="Longest one regex search may take; slower ones show 'error'."),
    as_json: bool = typer.Option(False, "--json", help="Print the preview as one JSON object."),
) -> None:
    """Show what adding a rule to the item's stored rules would label each of its outputs; nothing is saved."""
    from suite.editing.api import find_item
    from suite.engine.preview import SCOPES, Draft, DraftRule, draft_of, preview_item, preview_scope
    from suite.engine.rules import RuleSpec

    if (positive is None) == (negative is None):
        raise typer.BadParameter("give exactly one of --positive PATTERN and --negative PATTERN")
    if scope not in SCOPES:
        raise typer.BadParameter(f"--scope is one of {', '.join(SCOPES)}, not {scope!r}")
    polarity, pattern = (Polarity.POSITIVE, positive) if positive is not None else (Polarity.NEGATIVE, negative)
    context = app_context(ctx)
    db = context.database
    item_id = find_item(db, external_id, context.suite_name)
    added = DraftRule(RuleSpec(polarity, pattern, ignore_case))
    stored = draft_of(db, item_id)
    preview = preview_item(db, item_id, Draft((*stored.rules, added), stored.known), timeout=timeout)
    for problem in preview.problems:
        if problem.rule_index == len(stored.rules):
            raise TsqeError(str(problem.problem))
    wider = None
    if scope != "item":
        with progress_bar("previewing") as task:
            wider = preview_scope(db, item_id, [added], scope, timeout=timeout, task=task)
    if as_json:
        typer.echo(json.dumps(_as_json(preview, wider), ensure_ascii=False))
    else:
        _show(preview, wider)


def _as_json(preview: ItemPreview, wider: ScopePreview | None) -> dict[str, object]:
    shown: dict[str, object] = {
        "outputs": [{"output_id": output.stored.output_id, "text": output.stored.text,
                     "label_now": output.stored.label, "manual": output.stored.manual,
                     "label_after": output.label_after,
                     "spans": [[span.start, span.end, span.polarity] for span in output.spans]}
                    for output in preview.outputs],
        "flips": preview.flips,
    }
    if wider is not None:
        shown.update({"scope": wider.scope, "outputs_examined": wider.outputs,
                      "items": [{"item_id": item.external_id, "flips": item.flips} for item in wider.items],
                      "scope_flips": wider.flips})
    return shown


def _label(label: str | None) -> Text:
    return Text(label or "unlabelled", style=_LABEL_STYLE.get(label or "", ""))


def _show(preview: ItemPreview, wider: ScopePreview | None) -> None:
    console = Console(highlight=False, soft_wrap=True)
    for output in preview.outputs:
        text = Text(output.stored.text)
        for span in output.spans:
            text.stylize(_POLARITY_STYLE[span.polarity], span.start, span.end)
        change = Text.assemble(_label(output.stored.label), " → ", _label(output.label_after))
        if output.timed_out:
            change.append(" (timed out)")
        if output.stored.manual is not None:
            change.append(f"   reviewed: {output.stored.manual} by {output.stored.reviewer}")
        console.print(Text.assemble(f"{output.stored.output_id:>7}  ", change, "\n         ", text))
    console.print(_flips("flips on this item", preview.flips))
    if wider is not None:
        for item in wider.items:
            console.print(_flips(f"  {item.external_id}", item.flips))
        console.print(_flips(f"flips over the {wider.scope} ({wider.outputs} outputs, {len(wider.items)} items "
                             f"changed)", wider.flips))


def _flips(title: str, flips: dict[str, int]) -> str:
    return f"{title}: " + (", ".join(f"{flip} {n}" for flip, n in flips.items()) or "none")
