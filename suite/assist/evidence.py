"""What an item's outputs say about it: the decided ones with their label and who decided it, and the ones still
undecided, read for a whole suite at once (the assistants learn from an item's neighbours too).

An output is decided when its effective label is pass or fail: a reviewer's label, else the automatic label its
item's rules or known translations gave. Known good and bad translations are decided texts as well, though no
system produced them. Outputs whose automatic label is ``unknown`` (or not labelled yet) and that no reviewer
decided are the undecided ones a new rule could decide; conflicts and errors are neither, as one more rule
cannot settle them, and a reviewer's ``unknown`` is a decision that no rule overrides.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from store.models import AutoLabel, Category, Item, KnownTranslation, ManualLabel, Output, Phenomenon
from suite.engine.labels import automatic_label, join_labels
from suite.engine.rules import normalise

Label = Literal["pass", "fail"]
Origin = Literal["review", "rule", "known translation", "known good", "known bad"]
"""Who decided a text: a reviewer, one of the item's rules, its being a known translation (an output), or the
known translation itself (a text no system produced)."""
KNOWN_LABEL: dict[str, Label] = {"good": "pass", "bad": "fail"}
DECIDED: dict[str | None, Label] = {"pass": "pass", "fail": "fail"}
"""The stored labels that decide an output, as ``Label`` values."""


@dataclass(frozen=True)
class DecidedText:
    text: str
    label: Label
    origin: Origin
    output_id: int | None
    """None for a known translation that is no output of the item."""


@dataclass(frozen=True)
class UndecidedOutput:
    output_id: int
    text: str


@dataclass(frozen=True)
class ItemEvidence:
    item_id: int
    external_id: str
    source: str
    category: str | None
    phenomenon: str | None
    decided: tuple[DecidedText, ...]
    undecided: tuple[UndecidedOutput, ...]

    @property
    def group(self) -> tuple[str | None, str | None]:
        """The phenomenon the item belongs to, named with its category (two categories may share a name)."""
        return self.category, self.phenomenon

    def texts(self, label: Label) -> list[str]:
        return [decided.text for decided in self.decided if decided.label == label]

    def decided_outputs(self) -> list[DecidedText]:
        """Decided texts that some system produced (not known translations alone)."""
        return [decided for decided in self.decided if decided.output_id is not None]

    @property
    def contrasts(self) -> bool:
        """Whether its outputs hold both a passing and a failing one: the items whose outputs show what tells
        the two apart."""
        labels = {decided.label for decided in self.decided_outputs()}
        return len(labels) == 2


def suite_evidence(session: Session, suite_id: int, item_ids: Collection[int] | None = None) -> list[ItemEvidence]:
    """Every item of the suite (or only ``item_ids``) with its decided and undecided outputs, in suite order."""
    items = (select(Item.id, Item.external_id, Item.source, Category.name, Phenomenon.name)
             .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
             .outerjoin(Category, Category.id == Phenomenon.category_id)
             .where(Item.suite_id == suite_id).order_by(Item.position, Item.id))
    outputs = join_labels(select(Output.item_id, Output.id, Output.text, automatic_label(Output.id),
                                 AutoLabel.rule_id, ManualLabel.label), Output.id, Output.item_id) \
        .join(Item, Item.id == Output.item_id).where(Item.suite_id == suite_id).order_by(Output.id)
    known = select(KnownTranslation.item_id, KnownTranslation.kind, KnownTranslation.text) \
        .join(Item, Item.id == KnownTranslation.item_id).where(Item.suite_id == suite_id) \
        .order_by(KnownTranslation.id)
    if item_ids is not None:
        items = items.where(Item.id.in_(item_ids))
        outputs = outputs.where(Output.item_id.in_(item_ids))
        known = known.where(KnownTranslation.item_id.in_(item_ids))
    decided: dict[int, list[DecidedText]] = defaultdict(list)
    undecided: dict[int, list[UndecidedOutput]] = defaultdict(list)
    seen: dict[int, set[str]] = defaultdict(set)
    for item_id, output_id, text, auto, rule_id, manual in session.execute(outputs):
        if manual is not None:
            if manual in DECIDED:
                decided[item_id].append(DecidedText(text, DECIDED[manual], "review", output_id))
                seen[item_id].add(normalise(text))
        elif auto in DECIDED:
            decided[item_id].append(DecidedText(text, DECIDED[auto],
                                                "rule" if rule_id is not None else "known translation", output_id))
            seen[item_id].add(normalise(text))
        elif auto in (None, "unknown"):
            undecided[item_id].append(UndecidedOutput(output_id, text))
    for item_id, kind, text in session.execute(known):
        if text.strip() and normalise(text) not in seen[item_id]:
            seen[item_id].add(normalise(text))
            decided[item_id].append(DecidedText(text.strip(), KNOWN_LABEL[kind],
                                                "known good" if kind == "good" else "known bad", None))
    return [ItemEvidence(item_id, external_id, source, category, phenomenon, tuple(decided[item_id]),
                         tuple(undecided[item_id]))
            for item_id, external_id, source, category, phenomenon in session.execute(items)]
