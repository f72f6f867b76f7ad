"""``tsqe reviewers ...``: double review, control outputs, agreement and adjudication
(``suite.assist.double_review``, ``suite.assist.controls``, ``suite.assist.agreement``); ``tsqe neighbours``: the
suggestions for undecided outputs (``suite.assist.neighbours``)."""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import typer

from cli.app import app
from cli.context import app_context
from cli.table_output import emit_table, format_option, out_option
from store.domain import Label
from suite.errors import TsqeError

reviewers_app = typer.Typer(help="Check a team's reviewers: double review, controls, agreement, adjudication.",
                            no_args_is_help=True)
app.add_typer(reviewers_app, name="reviewers")

REVIEWER_HELP = "Who you are (default: $TSQE_USER, else the login name)."
ANSWERS = ("pass", "fail", "unknown", "clear")


def _reviewer(name: str | None) -> str:
    from suite.editing.item_edit import default_author

    return name or default_author()


def _answer(label: str) -> Label | None:
    label = label.strip().lower()
    if label not in ANSWERS:
        raise typer.BadParameter(f"the answer is one of {', '.join(ANSWERS)}, not {label!r}")
    return None if label == "clear" else Label(label)


@reviewers_app.command("plan")
def plan_command(
    ctx: typer.Context,
    share: float = typer.Option(..., "--share", help="Share of each category's reviewed outputs that a second "
                                                     "reviewer decides again, blind (0 < share <= 1)."),
    controls: float = typer.Option(0.0, "--controls", help="Share of each reviewer's assignments that are "
                                                           "controls: known good and bad translations, unmarked."),
    seed: int = typer.Option(1, "--seed", help="Seed of the choice: the same seed on the same decisions chooses "
                                               "the same outputs."),
    author: str = typer.Option(None, "--author", help="Who plans (default: $TSQE_USER, else the login name)."),
) -> None:
    """Plan double review and controls for the suite, or top the share up from outputs reviewed since."""
    from suite.assist.double_review import plan_review_checks

    context = app_context(ctx)
    planned = plan_review_checks(context.database, double_share=share, control_share=controls, seed=seed,
                                 author=_reviewer(author), suite_name=context.suite_name)
    typer.echo("\n".join(planned.lines()))


@reviewers_app.command("take")
def take_command(
    ctx: typer.Context,
    reviewer: str = typer.Option(None, "--reviewer", help=REVIEWER_HELP),
    limit: int = typer.Option(20, "--limit", min=1, help="Open assignments to hold at most."),
    as_json: bool = typer.Option(False, "--json", help="Print the assignments as JSON."),
) -> None:
    """Take your open assignments (and new ones up to --limit): outputs to decide without seeing anyone's
    decision. Answer each with `tsqe reviewers answer ID LABEL`."""
    from suite.assist.double_review import take_assignments

    context = app_context(ctx)
    given = take_assignments(context.database, _reviewer(reviewer), suite_name=context.suite_name, limit=limit)
    if as_json:
        typer.echo(json.dumps([asdict(a) for a in given], ensure_ascii=False, indent=2))
        return
    if not given:
        typer.echo("no assignment left for you")
    for assignment in given:
        typer.echo(f"{assignment.id}\t{assignment.external_id or '(removed item)'}\t{assignment.source or ''}\t"
                   f"{assignment.text}")


@reviewers_app.command("answer")
def answer_command(
    ctx: typer.Context,
    assignment_id: int = typer.Argument(..., help="The assignment's id (`tsqe reviewers take`)."),
    label: str = typer.Argument(..., help="pass, fail or unknown; clear takes the answer back."),
    comment: str = typer.Option(None, "--comment", help="Why."),
    reviewer: str = typer.Option(None, "--reviewer", help=REVIEWER_HELP),
) -> None:
    """Answer one of your assignments."""
    from suite.assist.double_review import Answer, answer_assignments

    context = app_context(ctx)
    who = _reviewer(reviewer)
    answer_assignments(context.database, [Answer(assignment_id, _answer(label), comment)], who)
    typer.echo(f"assignment {assignment_id}: {label.strip().lower()} by {who}")


@reviewers_app.command("agreement")
def agreement_command(
    ctx: typer.Context,
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """Agreement of each pair of reviewers over the answered double reviews, overall and per category: Cohen's
    kappa, raw agreement and counts."""
    from suite.assist.agreement import reviewer_agreement

    context = app_context(ctx)
    agreement = reviewer_agreement(context.database, suite_name=context.suite_name)
    emit_table(agreement.to_table(), fmt, out, document=agreement.to_json())


@reviewers_app.command("controls")
def controls_command(
    ctx: typer.Context,
    fmt: str = format_option(),
    out: Path = out_option(),
) -> None:
    """Each reviewer's accuracy on the control outputs they answered (known good: pass; known bad: fail)."""
    from suite.assist.controls import control_accuracy, controls_table

    context = app_context(ctx)
    emit_table(controls_table(control_accuracy(context.database, suite_name=context.suite_name)), fmt, out)


@reviewers_app.command("disagreements")
def disagreements_command(
    ctx: typer.Context,
    everything: bool = typer.Option(False, "--all", help="Adjudicated ones too."),
    as_json: bool = typer.Option(False, "--json", help="Print them as JSON."),
) -> None:
    """Double reviews whose two decisions differ, to adjudicate with `tsqe reviewers adjudicate`."""
    from suite.assist.double_review import disagreements

    context = app_context(ctx)
    found = disagreements(context.database, suite_name=context.suite_name, open_only=not everything)
    if as_json:
        typer.echo(json.dumps([asdict(d) for d in found], ensure_ascii=False, indent=2))
        return
    if not found:
        typer.echo("no disagreement to adjudicate")
    for d in found:
        settled = f"\tadjudicated {d.adjudicated_label} by {d.adjudicated_by}" if d.adjudicated_by else ""
        typer.echo(f"{d.assignment_id}\t{d.external_id or '(removed item)'}\t{d.text}\t"
                   f"{d.first_label} by {d.first_reviewer}\t{d.second_label} by {d.second_reviewer}{settled}")


@reviewers_app.command("adjudicate")
def adjudicate_command(
    ctx: typer.Context,
    assignment_id: int = typer.Argument(..., help="The disagreement's assignment id (`tsqe reviewers "
                                                  "disagreements`)."),
    label: str = typer.Argument(..., help="pass, fail or unknown: the output's label from now on."),
    comment: str = typer.Option(None, "--comment", help="Why."),
    reviewer: str = typer.Option(None, "--reviewer", help=REVIEWER_HELP),
) -> None:
    """Settle a disagreement: the output gets your label as its manual label; its history names both decisions."""
    from suite.assist.double_review import adjudicate, disagreements

    context = app_context(ctx)
    answer = _answer(label)
    if answer is None:
        raise typer.BadParameter("an adjudication gives a label: pass, fail or unknown")
    found = {d.assignment_id: d for d in disagreements(context.database, suite_name=context.suite_name,
                                                       open_only=False)}
    if assignment_id not in found:
        raise TsqeError(f"assignment {assignment_id} is no disagreement of two reviewers")
    who = _reviewer(reviewer)
    decided = adjudicate(context.database, assignment_id, answer, who, comment=comment,
                         expected_version=found[assignment_id].manual_version)
    typer.echo(f"output {decided.reviews[0].output_id} adjudicated {answer} by {who}")


@app.command("neighbours")
def neighbours_command(
    ctx: typer.Context,
    item: str = typer.Option(None, "--item", help="Only this item's undecided outputs (its id in the suite file)."),
    category: str = typer.Option(None, "--category", help="Only this category's."),
    limit: int = typer.Option(50, "--limit", min=0, help="Outputs to print."),
    as_json: bool = typer.Option(False, "--json", help="Print them as JSON."),
) -> None:
    """For each undecided output, the decided output of its item most like it, and the label it suggests when
    every difference kept labels elsewhere in the suite."""
    from suite.assist.neighbours import neighbours, suite_context
    from suite.reading.browse import OutputFilter, output_ids

    context = app_context(ctx)
    database = context.database
    ids = [i for label in (Label.UNKNOWN, Label.CONFLICT, Label.ERROR) for i in output_ids(
        database, OutputFilter(label=label, item=item, category=category, reviewed=False),
        suite_name=context.suite_name)]
    found = neighbours(database, suite_context(database, context.suite_name), sorted(ids))
    shown = [found[i] for i in sorted(found)][:limit]
    if as_json:
        typer.echo(json.dumps([{"output_id": n.output_id, "nearest": n.nearest.output_id,
                                "nearest_label": n.nearest.label, "suggested": n.label,
                                "like": None if n.suggestion is None else n.suggestion.output_id,
                                "text": n.text()} for n in shown], ensure_ascii=False, indent=2))
        return
    for n in shown:
        typer.echo(f"{n.output_id}\t{n.text()}")
