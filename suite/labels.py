"""Reading labels back: the automatic label (a stored row, else ``unknown`` for an output its item's labelling
covered) and the effective label (a reviewer's manual label if there is one, else the automatic label).

Every query that shows or counts labels joins them with ``join_labels`` and reads them with
``automatic_label`` / ``effective_label``, so that how ``unknown`` is stored is known here only.
"""
from __future__ import annotations

from typing import Any, TypeVarTuple

from sqlalchemy import ColumnElement, Select, case, func, literal, select
from sqlalchemy.orm import QueryableAttribute

from store.models import AUTO_LABELS, AutoLabel, Category, Item, LabelFingerprint, ManualLabel, Output, Phenomenon

EFFECTIVE_LABELS = AUTO_LABELS


Columns = TypeVarTuple("Columns")
IdColumn = ColumnElement[int] | QueryableAttribute[int]
"""An id column: a mapped attribute (``Output.id``) or any SQL expression."""


def join_labels(query: Select[*Columns], output_id: IdColumn, item_id: IdColumn
                ) -> Select[*Columns]:
    """``query`` outer-joined to the labels of the output ``output_id`` of the item ``item_id``."""
    return (query
            .outerjoin(AutoLabel, AutoLabel.output_id == output_id)
            .outerjoin(ManualLabel, ManualLabel.output_id == output_id)
            .outerjoin(LabelFingerprint, LabelFingerprint.item_id == item_id))


def automatic_label(output_id: IdColumn) -> ColumnElement[str]:
    """The rule engine's label of ``output_id`` (joined by ``join_labels``); NULL when not labelled yet."""
    return func.coalesce(AutoLabel.label, case((output_id <= LabelFingerprint.labelled_through, literal("unknown"))))


def effective_label(output_id: IdColumn) -> ColumnElement[str]:
    """The manual label, else the automatic one; NULL when the output has been neither labelled nor reviewed."""
    return func.coalesce(ManualLabel.label, automatic_label(output_id))


def effective_labels_select(suite_id: int) -> Select[*tuple[Any, ...]]:
    """One row per distinct output of the suite: output, item, category, phenomenon and labels."""
    query = (
        select(
            Output.id.label("output_id"),
            Output.item_id,
            Item.external_id,
            Category.name.label("category"),
            Phenomenon.name.label("phenomenon"),
            automatic_label(Output.id).label("auto_label"),
            ManualLabel.label.label("manual_label"),
            effective_label(Output.id).label("effective_label"),
        )
        .join(Item, Item.id == Output.item_id)
        .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
        .outerjoin(Category, Category.id == Phenomenon.category_id)
    )
    return join_labels(query, Output.id, Output.item_id).where(Item.suite_id == suite_id)
