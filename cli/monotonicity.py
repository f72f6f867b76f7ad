"""``tsqe monotonicity``: how closely each reference set follows the source's word order (Freitag et al. 2020
§7.1, Table 8)."""
from __future__ import annotations

from pathlib import Path

import typer

from cli.app import app
from cli.context import app_context
from cli.table_output import emit_result, format_option, out_option
from suite.lists import comma_list


@app.command("monotonicity")
def monotonicity_command(
    ctx: typer.Context,
    refs: str = typer.Option("default", "--refs",
                             help="Reference sets, comma-separated, one row each (default: the standard references)."),
    tokenize: str = typer.Option("13a", "--tokenize", help="sacrebleu's tokenizer for the aligned tokens."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """The average absolute distance per alignment point between the source and each reference set, the
    alignments made by eflomal trained on the suite itself (lower: a more word-by-word translation)."""
    import json

    from filters.monotonicity import monotonicity
    from suite.references import RefChoice

    context = app_context(ctx)
    result = monotonicity(context.database, [RefChoice.parse(entry) for entry in comma_list(refs)],
                          tokenize=tokenize, suite_name=context.suite_name)
    document = json.dumps(result.to_dict(), indent=2, ensure_ascii=False)
    emit_result(result.to_table(), document, as_json, fmt, out)
