"""Build small suites straight into the database for filter tests, independent of the importers."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from sqlalchemy import CursorResult, insert, select
from sqlalchemy.orm import Session

from store import Database
from store.models import Item, Output, Reference, Suite, System, SystemOutput


def build_suite(db: Database, name: str, references: Sequence[Sequence[str]],
                outputs: Mapping[str, Sequence[str | None]], sources: Sequence[str] | None = None) -> None:
    """Items ``1..N`` with the given references; ``outputs[system][i]`` is item i+1's output (None: none);
    ``sources[i]`` item i+1's source (default ``source i+1``)."""
    with db.transaction() as session:
        suite = Suite(name=name, source_lang="de", target_lang="en")
        session.add(suite)
        session.flush()
        session.execute(insert(Item), [{"suite_id": suite.id, "external_id": str(i + 1), "position": i,
                                        "source": sources[i] if sources else f"source {i + 1}"}
                                       for i in range(len(references))])
        item_ids = dict(session.execute(select(Item.position, Item.id).where(Item.suite_id == suite.id)).all())
        reference_rows = [{"item_id": item_ids[i], "text": ref} for i, refs in enumerate(references) for ref in refs]
        if reference_rows:
            session.execute(insert(Reference), reference_rows)
        add_systems(session, suite.id, item_ids, outputs)


def add_systems(session: Session, suite_id: int, item_ids: Mapping[int, int],
                outputs: Mapping[str, Sequence[str | None]]) -> None:
    for system_name, texts in outputs.items():
        system = System(suite_id=suite_id, name=system_name)
        session.add(system)
        session.flush()
        for position, text in enumerate(texts):
            if text is None:
                continue
            item_id = item_ids[position]
            output_id = session.scalar(select(Output.id).where(Output.item_id == item_id, Output.text == text))
            if output_id is None:
                inserted = cast("CursorResult[Any]", session.execute(insert(Output).values(item_id=item_id, text=text)))
                assert inserted.inserted_primary_key is not None
                output_id = inserted.inserted_primary_key[0]
            session.execute(insert(SystemOutput).values(system_id=system.id, item_id=item_id, output_id=output_id))


def add_system(db: Database, suite_name: str, system_name: str, texts: Sequence[str | None]) -> None:
    with db.transaction() as session:
        suite_id = session.scalar(select(Suite.id).where(Suite.name == suite_name))
        assert suite_id is not None
        item_ids = dict(session.execute(select(Item.position, Item.id).where(Item.suite_id == suite_id)).all())
        add_systems(session, suite_id, item_ids, {system_name: texts})


def add_reference_set(db: Database, name: str, kind: str, texts: Sequence[str | None]) -> None:
    """The reference set ``name`` on the database's one suite: ``texts[i]`` for item i+1 (None: no reference)."""
    from suite.references import add_reference_set as add

    with db.transaction() as session:
        suite_id = session.scalar(select(Suite.id))
        assert suite_id is not None
        ids = dict(session.execute(select(Item.position, Item.id).where(Item.suite_id == suite_id)).all())
        add(session, suite_id, name, kind, {ids[i]: [text] for i, text in enumerate(texts) if text is not None})
