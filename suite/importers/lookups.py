"""What the output, QE and review importers look up in a suite: items, systems and their outputs."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Integer, MetaData, Table, Text, delete, insert, select
from sqlalchemy.orm import Session

from store.models import Item, Output, System, SystemOutput
from suite.importers.result import Problems


@dataclass(frozen=True)
class SuiteIndex:
    """The suite's items, systems and system outputs keyed the way input files name them."""

    item_ids: dict[str, int]
    system_ids: dict[str, int]
    system_outputs: dict[tuple[int, int], int]
    """(system id, item id) -> output id."""

    @classmethod
    def load(cls, session: Session, suite_id: int) -> SuiteIndex:
        items = dict(session.execute(select(Item.external_id, Item.id)
                                     .where(Item.suite_id == suite_id)).all())
        systems = dict(session.execute(select(System.name, System.id)
                                       .where(System.suite_id == suite_id)).all())
        links = session.execute(select(SystemOutput.system_id, SystemOutput.item_id, SystemOutput.output_id)
                                .join(System, System.id == SystemOutput.system_id)
                                .where(System.suite_id == suite_id))
        return cls(items, systems, {(system, item): output for system, item, output in links})


def max_length(column: Any) -> int:
    """The length of a ``String(N)`` column: SQLite ignores it, PostgreSQL refuses longer values, so input
    files are checked against it before anything is written."""
    length = column.property.columns[0].type.length
    assert isinstance(length, int)
    return length


def check_length(value: str, column: Any, what: str, line: int, problems: Problems) -> None:
    limit = max_length(column)
    if len(value) > limit:
        problems.error(line, f"{what} {value[:30]!r}... has {len(value):,} characters; at most {limit} are stored")


def output_ids(session: Session, suite_id: int) -> dict[tuple[int, str], int]:
    """(item id, stripped text) -> id of every distinct output of the suite."""
    rows = session.execute(select(Output.item_id, Output.text, Output.id)
                           .join(Item, Item.id == Output.item_id).where(Item.suite_id == suite_id))
    return {(item_id, text): output_id for item_id, text, output_id in rows}


def resolve_item(item_ids: Mapping[str, int], external_id: str, line: int, problems: Problems) -> int | None:
    item_id = item_ids.get(external_id)
    if item_id is None:
        problems.error(line, f"unknown item id {external_id!r}" if external_id else "empty item_id")
    return item_id


def resolve_system_output(index: SuiteIndex, external_id: str, system: str, line: int,
                          problems: Problems) -> int | None:
    """The output id of ``system`` on an item, or None after reporting why there is none."""
    item_id = resolve_item(index.item_ids, external_id, line, problems)
    system_id = index.system_ids.get(system)
    if system_id is None:
        known = ", ".join(sorted(index.system_ids)) or "none imported yet"
        problems.error(line, f"unknown system {system!r} (systems of this suite: {known})" if system
                       else "empty system")
        return None
    if item_id is None:
        return None
    output_id = index.system_outputs.get((system_id, item_id))
    if output_id is None:
        problems.error(line, f"system {system!r} has no output for item {external_id!r}")
    return output_id


class StrippedIds:
    """Strips the ids and names an importer reads and says, once for the file, that it did: a leading or
    trailing space is invisible in a spreadsheet, and a stripped id that then matched a stored one (or did
    not) should not be a surprise."""

    def __init__(self, problems: Problems) -> None:
        self._problems = problems
        self.count = 0
        self._first: tuple[int, str] | None = None

    def strip(self, value: str, line: int) -> str:
        stripped = value.strip()
        if len(stripped) != len(value):
            self.count += 1
            if self._first is None:
                self._first = (line, value)
        return stripped

    def report(self) -> None:
        if self._first is not None:
            line, value = self._first
            self._problems.warn(line, f"{self.count:,} id(s) or name(s) had spaces around them, which were dropped "
                                      f"(the first: {value!r})")


LOOKUP_CHUNK = 5_000
"""Rows of a file resolved to their outputs at a time (``OutputLookup``)."""

_PAIRS = Table("tsqe_import_pairs", MetaData(), Column("row", Integer, primary_key=True), Column("item_id", Integer),
               Column("system_id", Integer), Column("text", Text), prefixes=["TEMPORARY"])


class OutputLookup:
    """The outputs a chunk of a file's rows name, by system (through the system outputs) or by text, found in one
    statement: the chunk's keys go to a temporary table of the import's transaction and are joined through the
    unique indexes. A file of millions of rows so never needs the suite's millions of system outputs in memory
    (``SuiteIndex`` holds them all), nor a list of pairs in an ``IN``, which SQLite answers with a scan."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._made = False

    def by_system(self, keys: list[tuple[int, int]]) -> list[int | None]:
        """Per (system id, item id): the output the system produced for the item, or None."""
        self._fill([{"row": n, "item_id": item, "system_id": system, "text": None}
                    for n, (system, item) in enumerate(keys)])
        return self._found(select(_PAIRS.c.row, SystemOutput.output_id).outerjoin(
            SystemOutput, (SystemOutput.system_id == _PAIRS.c.system_id) & (SystemOutput.item_id == _PAIRS.c.item_id)))

    def by_text(self, keys: list[tuple[int, str]]) -> list[int | None]:
        """Per (item id, stripped text): the item's output of that text, or None."""
        self._fill([{"row": n, "item_id": item, "system_id": None, "text": text}
                    for n, (item, text) in enumerate(keys)])
        return self._found(select(_PAIRS.c.row, Output.id).outerjoin(
            Output, (Output.item_id == _PAIRS.c.item_id) & (Output.text == _PAIRS.c.text)))

    def close(self) -> None:
        if self._made:
            _PAIRS.drop(self._session.connection())
            self._made = False

    def _fill(self, rows: list[dict[str, Any]]) -> None:
        connection = self._session.connection()
        if not self._made:
            _PAIRS.create(connection)
            self._made = True
        connection.execute(delete(_PAIRS))
        if rows:
            connection.execute(insert(_PAIRS), rows)

    def _found(self, query: Any) -> list[int | None]:
        return [output_id for _, output_id in self._session.connection().execute(query.order_by(_PAIRS.c.row))]
