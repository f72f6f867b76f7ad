"""What a write changed, said by the core that made the change (after Anki's ``OpChanges``).

Every write the front-ends run returns a ``Changes`` value (or a result carrying one as ``.changes``): which
items' content, which automatic labels, which reviews, outputs, QE systems or scores it touched. A screen
decides from it alone whether what it shows is stale, and how much of it: a review decision names its
outputs, so the review table repaints those rows and keeps its order; an import reaches anywhere, so the
table reads its query again. The front-ends used to say this themselves at every call (26 hand-built
notices in 7 files of the window), and each guessed a little differently.

Values combine with ``|``: a step of several edits, or an import followed by its labelling, changed the
union of what each part changed.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Where:
    """The rows of one kind that changed: some, by id, or ``anywhere`` (a suite-wide write, such as an import,
    where listing every id would cost more than reading everything again)."""

    ids: frozenset[int] = frozenset()
    anywhere: bool = False

    @staticmethod
    def of(ids: Iterable[int]) -> Where:
        return Where(frozenset(ids))

    def __bool__(self) -> bool:
        return self.anywhere or bool(self.ids)

    def __or__(self, other: Where) -> Where:
        if self.anywhere or other.anywhere:
            return ANYWHERE
        return Where(self.ids | other.ids)

    def reaches(self, ids: Iterable[int]) -> bool:
        """Whether any of ``ids`` may have changed."""
        return self.anywhere or not self.ids.isdisjoint(ids)


NOWHERE = Where()
ANYWHERE = Where(anywhere=True)


@dataclass(frozen=True)
class Changes:
    """What one write changed. Item-keyed kinds hold item ids; ``reviews`` holds output ids (a reviewer decides
    outputs, and the review table finds its rows by output id)."""

    items: Where = NOWHERE
    """Items whose own content changed: source, comment, rules, known translations."""
    references: Where = NOWHERE
    """Items whose references changed (by item id): what reference-based metrics read."""
    labels: Where = NOWHERE
    """Items whose outputs' automatic labels may have changed."""
    reviews: Where = NOWHERE
    """Outputs whose manual label (a reviewer's decision or comment) was set, changed or cleared."""
    outputs: Where = NOWHERE
    """Items whose outputs were added, replaced or removed: lists of outputs have other rows."""
    taxonomy: bool = False
    """Items added, removed or moved; categories or phenomena renamed or merged; suites added or renamed."""
    qe_systems: bool = False
    """QE systems added, trained, scored or removed."""
    scores: bool = False
    """Cached metric scores or human scores."""
    assignments: bool = False
    """Reviewers' double-review and control assignments: planned, given, answered or adjudicated."""

    def __or__(self, other: Changes) -> Changes:
        return Changes(**{f.name: getattr(self, f.name) | getattr(other, f.name) for f in fields(self)})

    def __bool__(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    @property
    def item_content(self) -> Where:
        """Items whose content, references, labels or outputs changed: what an item's page shows."""
        return self.items | self.references | self.labels | self.outputs

    @property
    def label_state(self) -> bool:
        """Whether any output may show another label state (automatic or manual) or have come or gone: label
        counts, pass rates and pairs are stale."""
        return bool(self.labels or self.reviews or self.outputs or self.taxonomy)


NOTHING = Changes()


def item_changes(item_ids: Iterable[int], *, references: bool = False) -> Changes:
    """An edit of items' content, which relabels them (``suite.editing.item_edit``)."""
    where = Where.of(item_ids)
    return Changes(items=where, labels=where, references=where if references else NOWHERE)


def review_changes(output_ids: Iterable[int]) -> Changes:
    return Changes(reviews=Where.of(output_ids))


QE_SYSTEMS = Changes(qe_systems=True)
"""What a write of QE systems changes (a training, a prediction, a removal): their results are the QE modules' own
(a count, a summary), so the core says it here once rather than each front-end guessing."""

METRIC_SCORES = Changes(scores=True)
"""What scoring with a metric changes: its cached scores."""

ASSIGNMENTS = Changes(assignments=True)
"""What planning, taking or answering reviewers' assignments changes (an adjudication also changes a review)."""
