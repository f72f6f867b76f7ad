"""``tsqe matched-ngrams``: the n-grams of a system's output that match a reference set most (Freitag et al. 2020
§7.2)."""
from __future__ import annotations

from pathlib import Path

import typer

from cli.app import app
from cli.context import app_context
from cli.table_output import emit_result, format_option, out_option


@app.command("matched-ngrams")
def matched_ngrams_command(
    ctx: typer.Context,
    system: str = typer.Option(..., "--system", help="The system whose output is matched."),
    refs: str = typer.Option(None, "--refs", help="The reference set or joined entry (default: standard)."),
    n: int = typer.Option(4, "--n", help="The n-gram order."),
    top: int = typer.Option(10, "--top", help="How many n-grams to show, most matched first."),
    tokenize: str = typer.Option("13a", "--tokenize", help="sacrebleu's tokenizer, as BLEU's (the paper: intl)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """The n-grams of a system's output that match the references most, each match clipped per segment as BLEU
    clips it."""
    import json

    from filters.matched_ngrams import matched_ngrams
    from suite.references import RefChoice

    context = app_context(ctx)
    result = matched_ngrams(context.database, system, refs=RefChoice.parse(refs) if refs else None, n=n, top=top,
                            tokenize=tokenize, suite_name=context.suite_name)
    document = json.dumps(result.to_dict(), indent=2, ensure_ascii=False)
    emit_result(result.to_table(), document, as_json, fmt, out)
