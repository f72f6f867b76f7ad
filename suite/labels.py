"""Effective labels: a reviewer's manual label if there is one, else the automatic label."""
from __future__ import annotations

from sqlalchemy import Select, func, select

from store.models import AutoLabel, Category, Item, ManualLabel, Output, Phenomenon

EFFECTIVE_LABELS = ("pass", "fail", "conflict", "unknown", "error")


def effective_label_expression():  # type: ignore[no-untyped-def]
    """NULL when an output has been neither labelled automatically nor reviewed."""
    return func.coalesce(ManualLabel.label, AutoLabel.label).label("effective_label")


def effective_labels_select(suite_id: int) -> Select:  # type: ignore[type-arg]
    """One row per distinct output of the suite: output, item, category, phenomenon and labels."""
    return (
        select(
            Output.id.label("output_id"),
            Output.item_id,
            Item.external_id,
            Category.name.label("category"),
            Phenomenon.name.label("phenomenon"),
            AutoLabel.label.label("auto_label"),
            ManualLabel.label.label("manual_label"),
            effective_label_expression(),
        )
        .join(Item, Item.id == Output.item_id)
        .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
        .outerjoin(Category, Category.id == Phenomenon.category_id)
        .outerjoin(AutoLabel, AutoLabel.output_id == Output.id)
        .outerjoin(ManualLabel, ManualLabel.output_id == Output.id)
        .where(Item.suite_id == suite_id)
    )
