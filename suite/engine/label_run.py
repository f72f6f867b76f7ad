"""What a labelling run changed, in numbers a person reads when it ends ("1,204 new outputs labelled").

A run reads each item's stored automatic counts (``item_label_counts``, milliseconds for a whole suite) before it
writes and again once it has written: a labelling of the suite writes chunk by chunk, so an import or an edit
committed between its chunks counts too; labelling inside another writer's transaction (an import's) reads both
in that transaction, so the difference is exactly what it did. The counts say how labels moved per item, not
which output moved where: one output turning pass and another fail in the same item cancel out, so the summary
speaks of label totals and of items, never of a number of "outputs that changed label" it cannot know without
reading every old label (which would cost the run as much again on a million outputs).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from suite.changes import ANYWHERE, Changes
from suite.engine.label_counts import LabelCounts

LABEL_FIELDS = (("pass", "passed"), ("fail", "failed"), ("conflict", "conflict"), ("unknown", "unknown"),
                ("error", "error"))


@dataclass(frozen=True)
class LabelRun:
    counts: dict[str, int]
    """The suite's effective label counts after the run (what ``relabel`` returns)."""
    before: dict[int, LabelCounts] = field(default_factory=dict)
    """Each item's automatic label counts before the run (items without outputs left out)."""
    after: dict[int, LabelCounts] = field(default_factory=dict)

    @property
    def items_changed(self) -> frozenset[int]:
        """Items whose automatic label counts differ after the run."""
        empty = LabelCounts()
        return frozenset(item for item in self.before.keys() | self.after.keys()
                         if self.before.get(item, empty) != self.after.get(item, empty))

    @property
    def newly_labelled(self) -> int:
        """Outputs that had no automatic label and have one now (imported since the last run)."""
        return max(0, _total(self.before).unlabelled - _total(self.after).unlabelled)

    def moved(self) -> dict[str, int]:
        """Each automatic label's net change over the suite, labels that did not move left out."""
        before, after = _total(self.before), _total(self.after)
        return {label: getattr(after, name) - getattr(before, name) for label, name in LABEL_FIELDS
                if getattr(after, name) != getattr(before, name)}

    @property
    def changes(self) -> Changes:
        """Any item's labels may have moved: counting alone cannot say which outputs did."""
        return Changes(labels=ANYWHERE)

    def summary(self) -> str:
        """"1,204 new outputs labelled · pass +800 · fail +300 · unknown +104 · in 312 items"."""
        changed = self.items_changed
        if not changed:
            return "every label was up to date: nothing changed"
        parts = [f"{self.newly_labelled:,} new output{'s' if self.newly_labelled != 1 else ''} labelled"] \
            if self.newly_labelled else []
        parts += [f"{label} {n:+,}".replace("-", "−") for label, n in self.moved().items()]
        parts.append(f"in {len(changed):,} item{'s' if len(changed) != 1 else ''}")
        return " · ".join(parts)


def _total(counts: dict[int, LabelCounts]) -> LabelCounts:
    total = LabelCounts()
    for value in counts.values():
        total += value
    return total

