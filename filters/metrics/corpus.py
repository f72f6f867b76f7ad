"""The segments a corpus-level score runs over: the items every compared system translated."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlalchemy import select

from store import Database
from store.models import Item, Output, System, SystemOutput
from suite.errors import TsqeError
from suite.references import RefChoice, references_of
from suite.suites import find_suite


@dataclass(frozen=True)
class CorpusInputs:
    items: list[int]
    hypotheses: dict[str, list[str]]
    """Each system's outputs of ``items``, in order."""
    references: list[list[str]]


def corpus_inputs(db: Database, systems: Sequence[str], refs: RefChoice, suite_name: str | None = None
                  ) -> CorpusInputs:
    """Each system's outputs and each item's references under ``refs``, over the items every system
    translated and ``refs`` gives a reference.

    Corpus scores need the same segments for every system; an item some system lacks is left out for all.
    """
    with db.session() as session:
        suite = find_suite(session, suite_name)
        rows = session.execute(
            select(Item.id, System.name, Output.text)
            .join(SystemOutput, SystemOutput.item_id == Item.id).join(System, System.id == SystemOutput.system_id)
            .join(Output, Output.id == SystemOutput.output_id)
            .where(Item.suite_id == suite.id, System.name.in_(systems)).order_by(Item.position, Item.id)).all()
        references = references_of(session, suite.id, refs)
    by_item: dict[int, dict[str, str]] = {}
    for item_id, system, text in rows:
        by_item.setdefault(item_id, {})[system] = text
    items = [item for item, outputs in by_item.items() if len(outputs) == len(systems) and item in references]
    if not items:
        raise TsqeError(f"no item has a reference ({refs.describe()}) and an output of every chosen system")
    return CorpusInputs(items, {system: [by_item[item][system] for item in items] for system in systems},
                        [references[item] for item in items])


@dataclass
class CorpusReads:
    """:func:`corpus_inputs` kept for one table: its metrics read each reference entry once, not once each
    (a table of three metrics against ten entries read the same 43,934 WMT19 outputs thirty times)."""

    db: Database
    suite_name: str | None
    _read: dict[tuple[tuple[str, ...], RefChoice], CorpusInputs] = field(default_factory=dict)

    def inputs(self, systems: Sequence[str], refs: RefChoice) -> CorpusInputs:
        key = (tuple(systems), refs)
        found = self._read.get(key)
        if found is None:
            found = self._read[key] = corpus_inputs(self.db, systems, refs, self.suite_name)
        return found
