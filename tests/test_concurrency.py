"""Several processes on one database, as a team on a shared PostgreSQL (and a linguist's GUI and command line
on one SQLite file) use it: label coverage stays exact while outputs are imported and labelled at once.

The processes are spawned, not forked, so each one opens the database as a separate program would.
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any, cast

import pytest
from import_helpers import write
from reviewing import review_output
from sqlalchemy import func, select
from test_label_counts import assert_consistent

from store import Database, open_database
from store.domain import Label
from store.models import AutoLabel, HistoryEntry, LabelFingerprint, ManualLabel, Output, Rule, System
from suite.demo import create_demo
from suite.editing.api import change_rule
from suite.engine.labelling import relabel
from suite.errors import EditConflict
from suite.importers import import_outputs, import_suite

ITEMS = 150
IMPORTS = 3
SYSTEMS = 8
"""Each importing process imports ``IMPORTS`` files, each of ``SYSTEMS`` new systems' outputs of every item: big
enough that one import is still open while the other's commits and labelling reads."""


def suite_json() -> str:
    """Items whose one rule matches every output, so an output that labelling covered has a label row: a
    covered output without one is a label lost."""
    items = ",\n".join(f'{{"id": "{item}", "langpair": "deen", "category": "C", "phenomenon": "P", '
                        f'"source_sentence": "Satz {item}.", "positive_regex": "."}}' for item in range(ITEMS))
    return f'{{"items": [\n{items}\n]}}\n'


def url_of(database: Database) -> str:
    return database.engine.url.render_as_string(hide_password=False)


def spawned(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))


def importing(url: str, directory: str, name: str) -> int:
    """Import ``IMPORTS`` files of new outputs into every item, one transaction each."""
    database = open_database(url)
    try:
        for number in range(IMPORTS):
            rows = "".join(f"{item}\t{name}-{number}-{system}\t{name} {number} {system} of {item}\n"
                           for system in range(SYSTEMS) for item in range(ITEMS))
            path = write(Path(directory) / f"{name}-{number}.tsv", "item_id\tsystem\toutput\n" + rows)
            import_outputs(database, path)
        return IMPORTS
    finally:
        database.close()


def labelling(url: str, systems: int, deadline: float) -> int:
    """Label the suite again and again until ``systems`` systems have been imported; how often it labelled."""
    database = open_database(url)
    try:
        runs = 0
        while time.monotonic() < deadline:
            relabel(database)
            runs += 1
            with database.session() as session:
                if cast(int, session.scalar(select(func.count(System.id)))) >= systems:
                    return runs
        raise TimeoutError("the imports did not finish in time")
    finally:
        database.close()


def lost_labels(database: Database) -> tuple[list[int], int]:
    """Outputs that their item's labelling covered but that have no label row, and how many are covered."""
    with database.session() as session:
        rows = session.execute(
            select(Output.id, AutoLabel.output_id.is_not(None))
            .join(LabelFingerprint, LabelFingerprint.item_id == Output.item_id)
            .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
            .where(Output.id <= LabelFingerprint.labelled_through)).all()
    return [output_id for output_id, labelled in rows if not labelled], len(rows)


def results(futures: list[Future[Any]]) -> list[Any]:
    return [future.result(timeout=300) for future in futures]


@pytest.mark.parametrize("rounds", [2])
def test_outputs_imported_while_labelling_are_labelled_or_not_yet_covered(any_db: Database, tmp_path: Path,
                                                                         rounds: int) -> None:
    """Two processes import into the same items while a third labels the suite over and over; afterwards
    every output is labelled or lies above its item's coverage, so the next labelling takes it."""
    import_suite(any_db, write(tmp_path / "de-en" / "items.json", suite_json()))
    url = url_of(any_db)
    submit: Callable[..., Future[Any]]
    for round_ in range(rounds):
        with spawned(3) as pool:
            submit = pool.submit
            systems = 2 * IMPORTS * SYSTEMS * (round_ + 1)
            labeller = submit(labelling, url, systems, time.monotonic() + 240)
            importers = [submit(importing, url, str(tmp_path), f"r{round_}{name}") for name in "ab"]
            results(importers)  # an importer's own error first: the labeller would only wait for it in vain
            runs = labeller.result(timeout=300)
        lost, covered = lost_labels(any_db)
        assert lost == [], f"round {round_}: covered but never labelled: {lost}"
        assert runs >= 1 and covered > 0
        assert_consistent(any_db, f"round {round_}", "de-en")  # the counts too
    assert relabel(any_db)["pass"] == 2 * ITEMS * IMPORTS * SYSTEMS * rounds


# Two people saving the same thing at the same moment, each from their own process: exactly one save wins and
# the other is refused with who changed it, when, and what it holds now; nothing is silently overwritten.

RACES = 5
"""Rounds of each race; every round both saves are released together by a barrier."""

_barrier: Any = None


def _wait_with(barrier: Any) -> None:
    global _barrier
    _barrier = barrier


def racing() -> ProcessPoolExecutor:
    """Two spawned processes that start each task's save together."""
    context = get_context("spawn")
    return ProcessPoolExecutor(max_workers=2, mp_context=context, initializer=_wait_with,
                               initargs=(context.Barrier(2),))


def deciding(url: str, output_id: int, label: Label, reviewer: str, seen: int) -> tuple[str, str]:
    """Review one output as ``reviewer``, who saw its manual label at version ``seen``: ("won", "") or
    ("refused", the conflict message)."""
    database = open_database(url)
    try:
        _barrier.wait(timeout=60)
        try:
            review_output(database, output_id, label, reviewer, expected_version=seen)
        except EditConflict as refused:
            return "refused", str(refused)
        return "won", ""
    finally:
        database.close()


def saving_rule(url: str, rule_id: int, pattern: str, author: str, seen: int) -> tuple[str, str]:
    """Save a rule's new pattern as ``author``, who read the rule at version ``seen``."""
    database = open_database(url)
    try:
        _barrier.wait(timeout=60)
        try:
            change_rule(database, rule_id, pattern=pattern, author=author, expected_version=seen)
        except EditConflict as refused:
            return "refused", str(refused)
        return "won", ""
    finally:
        database.close()


CONFLICT = r"changed by {who} at \d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d UTC: now {now}"


def one_winner(outcomes: list[tuple[str, str]], people: tuple[str, str]) -> tuple[str, str]:
    """The winner and the loser's message, checking that exactly one of the two saves won."""
    assert sorted(outcome for outcome, _ in outcomes) == ["refused", "won"], outcomes
    winner = people[[outcome for outcome, _ in outcomes].index("won")]
    return winner, next(message for outcome, message in outcomes if outcome == "refused")


def test_two_reviewers_deciding_one_output_at_once_never_overwrite_each_other(any_db: Database) -> None:
    """Both see the output (unreviewed at first, then reviewed) and decide differently at the same moment."""
    create_demo(any_db)
    with any_db.session() as session:
        outputs = session.scalars(select(Output.id).where(~Output.manual_label.has())
                                  .order_by(Output.id).limit(RACES)).all()
    url = url_of(any_db)
    people = ("Ann", "Bob")
    with racing() as pool:
        for round_, output_id in enumerate(outputs):
            seen = 0
            if round_ % 2:  # every other round the output has been reviewed once already
                seen = review_output(any_db, output_id, Label.UNKNOWN, "Cleo").version
            outcomes = [future.result(timeout=120) for future in
                        [pool.submit(deciding, url, output_id, label, person, seen)
                         for label, person in zip((Label.PASS, Label.FAIL), people)]]
            winner, message = one_winner(outcomes, people)
            label = "pass" if winner == "Ann" else "fail"
            named = rf"output {output_id} of item '[^']+' \('.+'\): "  # a decision may cover several outputs
            assert re.fullmatch(named + CONFLICT.format(who=winner, now=f"{label} by {winner}"), message), message
            with any_db.session() as session:
                review = session.get_one(ManualLabel, output_id)
                assert (review.label, review.reviewer, review.version) == (label, winner, seen + 1)
                assert session.scalars(select(HistoryEntry.author).where(
                    HistoryEntry.entity == "manual_label", HistoryEntry.entity_id == output_id)
                    .order_by(HistoryEntry.id)).all() == ["Cleo"] * (seen > 0) + [winner]


def test_two_linguists_saving_one_rule_at_once_never_overwrite_each_other(any_db: Database) -> None:
    """Both read the rule at the same version and save different patterns at the same moment."""
    create_demo(any_db)
    with any_db.session() as session:
        rule_id, seen, polarity = session.execute(
            select(Rule.id, Rule.version, Rule.polarity).where(Rule.valid).order_by(Rule.id).limit(1)).one()
    url = url_of(any_db)
    people = ("Dana", "Eli")
    with racing() as pool:
        for round_ in range(RACES):
            patterns = (f"dana{round_}", f"eli{round_}")
            outcomes = [future.result(timeout=120) for future in
                        [pool.submit(saving_rule, url, rule_id, pattern, person, seen)
                         for pattern, person in zip(patterns, people)]]
            winner, message = one_winner(outcomes, people)
            pattern = patterns[people.index(winner)]
            assert re.fullmatch(CONFLICT.format(who=winner, now=f"{polarity} '{pattern}'"), message), message
            with any_db.session() as session:
                rule = session.get_one(Rule, rule_id)
                assert (rule.pattern, rule.version) == (pattern, seen + 1)
                assert session.scalar(select(func.count()).select_from(HistoryEntry).where(
                    HistoryEntry.entity == "rule", HistoryEntry.entity_id == rule_id)) == round_ + 1
            seen += 1
