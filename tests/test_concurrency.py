"""Several processes on one database, as a team on a shared PostgreSQL (and a linguist's GUI and command line
on one SQLite file) use it: label coverage stays exact while outputs are imported and labelled at once.

The processes are spawned, not forked, so each one opens the database as a separate program would.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from import_helpers import write
from store import Database, open_database
from store.models import AutoLabel, LabelFingerprint, Output, System
from suite.importers import import_outputs, import_suite
from suite.labelling import relabel

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
            import_outputs(database, write(Path(directory) / f"{name}-{number}.tsv", "item_id\tsystem\toutput\n" + rows))
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
                if session.scalar(select(func.count(System.id))) >= systems:
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
            futures = [submit(labelling, url, systems, time.monotonic() + 240)]
            futures += [submit(importing, url, str(tmp_path), f"r{round_}{name}") for name in "ab"]
            runs, *_ = results(futures)
        lost, covered = lost_labels(any_db)
        assert lost == [], f"round {round_}: covered but never labelled: {lost}"
        assert runs >= 1 and covered > 0
    assert relabel(any_db)["pass"] == 2 * ITEMS * IMPORTS * SYSTEMS * rounds
