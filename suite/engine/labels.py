"""Reading labels back: the automatic label (a stored row, else ``unknown`` for an output its item's labelling
covered) and the effective label (a reviewer's manual label if there is one, else the automatic label).

Every query that shows or counts labels joins them with ``join_labels`` and reads them with
``automatic_label`` / ``effective_label``, so that how ``unknown`` is stored is known here only.
"""
from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    ScalarSelect,
    Select,
    SQLColumnExpression,
    String,
    and_,
    case,
    func,
    literal,
    or_,
    select,
    union_all,
)
from sqlalchemy.orm import aliased

from store.domain import Label
from store.models import (
    AUTO_LABELS,
    STORED_AUTO_LABELS,
    AutoLabel,
    Category,
    Item,
    LabelFingerprint,
    ManualLabel,
    Output,
    Phenomenon,
    Rule,
)

EFFECTIVE_LABELS = AUTO_LABELS

_Query = TypeVar("_Query", bound="Select[*tuple[Any, ...]]")


def join_labels(query: _Query, output_id: SQLColumnExpression[int], item_id: SQLColumnExpression[int]) -> _Query:
    """``query`` outer-joined to the labels of the output ``output_id`` of the item ``item_id``."""
    return (query
            .outerjoin(AutoLabel, AutoLabel.output_id == output_id)
            .outerjoin(ManualLabel, ManualLabel.output_id == output_id)
            .outerjoin(LabelFingerprint, LabelFingerprint.item_id == item_id))


def automatic_label(output_id: SQLColumnExpression[int]) -> ColumnElement[Label]:
    """The rule engine's label of ``output_id`` (joined by ``join_labels``); NULL when not labelled yet."""
    return func.coalesce(AutoLabel.label,
                         case((output_id <= LabelFingerprint.labelled_through, literal(Label.UNKNOWN.value, String))))


def effective_label(output_id: SQLColumnExpression[int]) -> ColumnElement[Label]:
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


def effective_label_candidates(label: Label) -> CompoundSelect[int] | None:
    """Ids of the outputs whose effective label may be ``label``, found from the label tables alone: a filter
    on a rare label then visits those outputs instead of every output of the suite. A superset (a review may
    override the automatic label), so the caller still tests ``effective_label``; None for ``unknown``, which
    is stored as no row."""
    if label not in STORED_AUTO_LABELS:
        return None
    return union_all(select(AutoLabel.output_id).where(AutoLabel.label == label),
                     select(ManualLabel.output_id).where(ManualLabel.label == label))


def automatic_label_candidates(label: Label) -> Select[int] | None:
    """Ids of the outputs whose automatic label is ``label`` (see ``effective_label_candidates``)."""
    if label not in STORED_AUTO_LABELS:
        return None
    return select(AutoLabel.output_id).where(AutoLabel.label == label)


def rule_number() -> ScalarSelect[int]:
    """SQL, in a query that selects from ``Rule`` (outer-joined to the label that names it): the rule's number as
    the editor shows it, 1, 2, … among its item's rules of its polarity in order (0 where no rule is joined).
    Labels and histories name rules by it (``suite.engine.rules.describe``); the id stays in the data for machines."""
    other = aliased(Rule)
    return (select(func.count()).where(other.item_id == Rule.item_id, other.polarity == Rule.polarity,
                                       or_(other.position < Rule.position,
                                           and_(other.position == Rule.position, other.id <= Rule.id)))
            .scalar_subquery())
