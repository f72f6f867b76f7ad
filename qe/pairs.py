"""Pass/fail pairs: for every item, every (passing output, failing output) combination of distinct outputs.

Pairs are the unit of QE evaluation (Avramidis et al.): a QE system is right on a pair when it prefers the
passing output. Outputs are distinct texts per item, so a translation produced by several MT systems takes
part once and the pair remembers every system behind each side. Only EFFECTIVE labels count (a reviewer's
label wins); unknown, conflict, error and unlabelled outputs take no part.

The pair table is held as numpy arrays of indices (pair -> item, pair -> output) rather than as rows, because
a suite with many systems easily yields a million pairs and accuracy, bootstrap and stability all work on
per-item aggregates of those arrays. Reading the database (:func:`read_labelled_outputs`) is kept apart
from building the pairs (:func:`pairs_from_outputs`) so the pure part can be benchmarked and reused.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import Row, select

from store import Database
from store.models import Item, Output, System, SystemOutput
from suite.engine.labels import effective_labels_select
from suite.suites import find_suite

if TYPE_CHECKING:
    import pandas as pd

PAIR_COLUMNS = ("item_id", "category", "phenomenon", "pass_output", "fail_output", "pass_systems", "fail_systems")


@dataclass(frozen=True)
class LabelledOutputs:
    """The distinct outputs of a suite with their effective labels, as parallel arrays.

    Items are in suite order; ``output_item`` indexes into the item arrays. ``output_systems`` holds the
    comma-joined names of the MT systems that produced each output (empty when none is recorded).
    """

    item_ids: np.ndarray  # external id per item (object)
    item_categories: np.ndarray  # category name or None per item (object)
    item_phenomena: np.ndarray  # phenomenon name or None per item (object)
    output_ids: np.ndarray  # int64
    output_item: np.ndarray  # intp, index into the item arrays
    labels: np.ndarray  # effective label or None (object)
    output_texts: np.ndarray  # object
    output_systems: np.ndarray  # object

    def categories(self) -> list[str]:
        """The items' category names, sorted (the choices of a table restricted to one category)."""
        return sorted({c for c in self.item_categories if c is not None})


@dataclass(frozen=True)
class PairTable:
    """All pass/fail pairs of a suite as index arrays into its items and outputs."""

    outputs: LabelledOutputs
    pair_item: np.ndarray  # intp, index into outputs.item_* arrays
    pass_index: np.ndarray  # intp, index into outputs.output_* arrays
    fail_index: np.ndarray  # intp, index into outputs.output_* arrays

    def __len__(self) -> int:
        return int(self.pair_item.size)

    @property
    def pass_output_ids(self) -> np.ndarray:
        return np.asarray(self.outputs.output_ids[self.pass_index])

    @property
    def fail_output_ids(self) -> np.ndarray:
        return np.asarray(self.outputs.output_ids[self.fail_index])

    def subset(self, mask: np.ndarray) -> PairTable:
        """The pairs selected by a boolean mask over pairs (same items and outputs)."""
        return PairTable(self.outputs, self.pair_item[mask], self.pass_index[mask], self.fail_index[mask])

    def frame(self) -> pd.DataFrame:
        """The pairs as a table with the exported columns (texts and system names, no database ids)."""
        import pandas as pd  # only an export needs it; every command imports this module (issue 16's start-up)

        out = self.outputs
        return pd.DataFrame({
            "item_id": out.item_ids[self.pair_item],
            "category": out.item_categories[self.pair_item],
            "phenomenon": out.item_phenomena[self.pair_item],
            "pass_output": out.output_texts[self.pass_index],
            "fail_output": out.output_texts[self.fail_index],
            "pass_systems": out.output_systems[self.pass_index],
            "fail_systems": out.output_systems[self.fail_index],
        }, columns=list(PAIR_COLUMNS))


def pair_indices(output_item: np.ndarray, passing: np.ndarray,
                 failing: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (passing, failing) combination within each item, without a Python loop.

    Returns ``(pair_item, pass_index, fail_index)``: pairs sorted by item, then passing output, then failing
    output (each in the input order). Every passing output of an item is repeated once per failing output of
    that item and matched against the item's block of failing outputs.
    """
    output_item = np.asarray(output_item, dtype=np.intp)
    pass_pos = np.flatnonzero(passing)
    fail_pos = np.flatnonzero(failing)
    # Stable sorts keep the input order of outputs within an item.
    pass_pos = pass_pos[np.argsort(output_item[pass_pos], kind="stable")]
    fail_pos = fail_pos[np.argsort(output_item[fail_pos], kind="stable")]
    pass_item = output_item[pass_pos]
    fail_item = output_item[fail_pos]
    n_items = int(output_item.max()) + 1 if output_item.size else 0
    fails_per_item = np.bincount(fail_item, minlength=n_items)
    fail_start = np.concatenate(([0], np.cumsum(fails_per_item)[:-1])) if n_items else fails_per_item
    repeats = fails_per_item[pass_item]
    n_pairs = int(repeats.sum())
    pair_item = np.repeat(pass_item, repeats)
    pass_index = np.repeat(pass_pos, repeats)
    # Position of each pair within its passing output's run: 0..repeats-1.
    run_start = np.repeat(np.cumsum(repeats) - repeats, repeats)
    within = np.arange(n_pairs, dtype=np.intp) - run_start
    fail_index = fail_pos[fail_start[pair_item] + within]
    return pair_item, pass_index, fail_index


def pairs_from_outputs(outputs: LabelledOutputs) -> PairTable:
    """Build the pair table of labelled outputs (the pure part of :func:`build_pairs`)."""
    labels = outputs.labels
    pair_item, pass_index, fail_index = pair_indices(outputs.output_item, labels == "pass", labels == "fail")
    return PairTable(outputs, pair_item, pass_index, fail_index)


def read_labelled_outputs(db: Database, suite_name: str | None = None) -> LabelledOutputs:
    """Read a suite's items, distinct outputs, effective labels and producing systems from the database.

    The rows are streamed from the cursor into columns of plain values (ints and strings, which the garbage
    collector does not track) instead of being held as row objects: a list of 100,000 rows survived into the
    oldest generation and set off a full collection of every object of the process, which holds the GIL and
    stalled the window's main thread for 0.2-0.5 s while this read ran in the background (issue 21).
    """
    with db.session() as session:
        suite = find_suite(session, suite_name)
        connection = session.connection()
        item_rows = connection.execute(
            select(Item.id, Item.external_id).where(Item.suite_id == suite.id).order_by(Item.position, Item.id))
        item_position: dict[int, int] = {}
        external_ids: list[str] = []
        for item_id, external_id in item_rows:
            item_position[item_id] = len(external_ids)
            external_ids.append(external_id)
        item_categories = np.full(len(external_ids), None, dtype=object)
        item_phenomena = np.full(len(external_ids), None, dtype=object)
        ids: list[int] = []
        positions: list[int] = []
        labels: list[str | None] = []
        texts: list[str] = []
        labelled = effective_labels_select(suite.id).add_columns(Output.text.label("text")).order_by(Output.id)
        for row in connection.execute(labelled):
            position = item_position[row.item_id]
            item_categories[position] = row.category
            item_phenomena[position] = row.phenomenon
            ids.append(row.output_id)
            positions.append(position)
            labels.append(row.effective_label)
            texts.append(row.text)
        produced = connection.execute(
            select(SystemOutput.output_id, System.name)
            .join(System, System.id == SystemOutput.system_id)
            .where(System.suite_id == suite.id)
            .order_by(SystemOutput.output_id, System.name))
        systems_of = dict(_joined_names(produced))
    output_ids = np.array(ids, dtype=np.int64)
    return LabelledOutputs(
        item_ids=_object_array(external_ids),
        item_categories=item_categories,
        item_phenomena=item_phenomena,
        output_ids=output_ids,
        output_item=np.array(positions, dtype=np.intp),
        labels=_object_array(labels),
        output_texts=_object_array(texts),
        output_systems=_object_array([systems_of.get(output_id, "") for output_id in ids]),
    )


def build_pairs(db: Database, suite_name: str | None = None) -> PairTable:
    """All pass/fail pairs of a suite under its current effective labels."""
    return pairs_from_outputs(read_labelled_outputs(db, suite_name))


def _joined_names(produced: Iterable[Row[int, str]]) -> Iterator[tuple[int, str]]:
    """(output id, "sysA,sysB") from rows sorted by output id then system name."""
    current: int | None = None
    names: list[str] = []
    for output_id, name in produced:
        if output_id != current:
            if current is not None:
                yield current, ",".join(names)
            current, names = output_id, []
        names.append(name)
    if current is not None:
        yield current, ",".join(names)


def _object_array(values: list) -> np.ndarray:  # type: ignore[type-arg]
    """An object array even when the values are all strings (numpy would otherwise pick a fixed width)."""
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array
