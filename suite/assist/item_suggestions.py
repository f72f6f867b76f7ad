"""Rule suggestions for an item of a database, each checked with the labelling engine and shown with what it
would do: the flips on the item and, through the scope preview, across its phenomenon.

``SuggestionSession`` keeps what the suite's other items teach (``SuggestionContext``, a second or two to
build on a suite of 14,000 outputs) between items, as the editor asks for one item after another; the item's
own outputs are read afresh every time, so a review or an edit of the item itself is always seen. A front-end
calls ``invalidate`` after writes that change other items' labels (reading them again costs that second).

Given the editor's unsaved draft, the suggestions are measured against it, not against the stored rules: what
each one decides "here" are the outputs still undecided under the draft, its flips are what it changes on top
of the draft, and one that decides nothing the draft leaves undecided is not offered. Measured against the
stored rules, the list kept saying "decides 6 here" after the linguist had typed a rule deciding those six
(issue 28). The evidence (which texts are decided) stays the stored one: an unsaved rule decides nothing yet.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select

from store import Database
from store.domain import Polarity
from store.models import Item
from suite.assist.context import SuggestionContext
from suite.assist.evidence import suite_evidence
from suite.assist.patterns import pattern_examples
from suite.assist.rule_suggestions import RuleSuggestion, matcher, suggest_rules
from suite.engine.preview import (
    Draft,
    DraftRule,
    ItemPreview,
    PreviewOutput,
    PreviewSession,
    ScopePreview,
    draft_of,
    ordered_flips,
    preview_scope,
)
from suite.engine.rules import RuleSpec
from suite.errors import TsqeError
from suite.tasks import TaskState, progress_of

DECIDED = ("pass", "fail")
SCOPE = "phenomenon"
"""Where the flips of a suggestion are counted beyond its item (``suite.engine.preview.SCOPES``)."""


@dataclass(frozen=True)
class OfferedSuggestion:
    suggestion: RuleSuggestion
    flips: dict[str, int]
    """What adding it to the item's rules flips on the item (``unknown->pass``: n), from ``suite.engine.preview``."""
    scope: ScopePreview | None
    """What adding it to every item of the phenomenon would flip; None when the item has no phenomenon or the
    scope was not asked for."""


@dataclass(frozen=True)
class ItemSuggestions:
    item_id: int
    external_id: str
    category: str | None
    phenomenon: str | None
    passing: int
    """Decided texts (outputs, reviews, known translations) that pass: the evidence for positive rules."""
    failing: int
    undecided: int
    suggestions: list[OfferedSuggestion]

    def to_json(self) -> dict[str, Any]:
        return {
            "item_id": self.external_id, "category": self.category, "phenomenon": self.phenomenon,
            "passing": self.passing, "failing": self.failing, "undecided": self.undecided,
            "suggestions": [{
                "rank": rank, "polarity": offered.suggestion.polarity, "pattern": offered.suggestion.pattern,
                "ignore_case": offered.suggestion.ignore_case, "found_by": list(offered.suggestion.found_by),
                "decides": list(offered.suggestion.decides), "matches": offered.suggestion.matches,
                "of": offered.suggestion.of, "contradicts": 0, "against": offered.suggestion.against,
                "confidence": round(offered.suggestion.confidence, 4), "reasons": list(offered.suggestion.reasons),
                "flips": offered.flips,
                "scope": None if offered.scope is None else {
                    "scope": offered.scope.scope, "outputs": offered.scope.outputs, "flips": offered.scope.flips,
                    "items": [{"item_id": item.external_id, "flips": item.flips} for item in offered.scope.items]},
            } for rank, offered in enumerate(self.suggestions, 1)],
        }


class SuggestionSession:
    """Suggestions for one item after another of a database; one session serves one thread at a time."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._contexts: dict[int, SuggestionContext] = {}

    def invalidate(self) -> None:
        """Read the suites' items again before the next suggestion (their labels changed)."""
        self._contexts.clear()

    def suggestions(self, item_id: int, *, draft: Draft | None = None, scope: bool = True,
                    task: TaskState | None = None) -> ItemSuggestions:
        """The rules suggested for the item, most useful first, each checked and with its flips; against the
        unsaved ``draft`` of its rules when one is given (see the module docstring)."""
        progress = progress_of(task)
        with self.db.session() as session:
            suite_id = session.scalar(select(Item.suite_id).where(Item.id == item_id))
            if suite_id is None:
                raise TsqeError(f"no item with id {item_id}")
            context = self._contexts.get(suite_id)
            if context is None:
                progress.progress(0, 1, "reading the suite's decided outputs")
                context = self._contexts[suite_id] = SuggestionContext.of(suite_evidence(session, suite_id))
            item = suite_evidence(session, suite_id, [item_id])[0]
        found = suggest_rules(item, context)
        offered: list[OfferedSuggestion] = []
        previews = PreviewSession(self.db)
        base = draft_of(self.db, item_id) if draft is None else draft
        under_draft = None if draft is None else previews.preview(item_id, draft)
        undecided = len(item.undecided) if under_draft is None else len(_undecided(under_draft))
        for index, suggestion in enumerate(found):
            progress.progress(index, len(found), "trying the suggestions")
            if under_draft is not None:
                still = _undecided(under_draft)
                suggestion = replace(suggestion, decides=tuple(i for i in suggestion.decides if i in still))
                if not suggestion.decides:
                    continue  # the draft decides them already
            rule = DraftRule(RuleSpec(Polarity(suggestion.polarity), suggestion.pattern, suggestion.ignore_case))
            preview = previews.preview(item_id, Draft((*base.rules, rule), base.known))
            if _contradicts(suggestion, preview.outputs, under_draft) or _against_rules(suggestion, base.rules):
                continue
            wider = preview_scope(self.db, item_id, [rule], SCOPE) if scope and item.phenomenon is not None \
                else None
            flips = preview.flips if under_draft is None else _flips(under_draft, preview)
            offered.append(OfferedSuggestion(suggestion, flips, wider))
        progress.progress(len(found), len(found), "trying the suggestions")
        return ItemSuggestions(item.item_id, item.external_id, item.category, item.phenomenon,
                               len(item.texts("pass")), len(item.texts("fail")), undecided, offered)


def _undecided(preview: ItemPreview) -> set[int]:
    return {output.stored.output_id for output in preview.outputs if output.effective_after not in DECIDED}


def _flips(before: ItemPreview, after: ItemPreview) -> dict[str, int]:
    """What ``after`` changes on top of ``before`` (both previews of the same item)."""
    was = {output.stored.output_id: output.label_after for output in before.outputs}
    return ordered_flips(Counter(f"{was[output.stored.output_id]}->{output.label_after}" for output in after.outputs
                                 if was.get(output.stored.output_id, output.label_after) != output.label_after))


def _contradicts(suggestion: RuleSuggestion, outputs: Sequence[PreviewOutput],
                 under_draft: ItemPreview | None = None) -> bool:
    """Whether, added to the item's rules (or the draft's), the suggestion would go against a reviewer (deciding an
    output they decided otherwise) or change a decided automatic label (a fail its rules gave turned into a
    conflict)."""
    decides = matcher(suggestion.polarity, suggestion.pattern, suggestion.ignore_case)
    was = {output.stored.output_id: output.stored.label for output in outputs} if under_draft is None else \
        {output.stored.output_id: output.label_after for output in under_draft.outputs}
    for output in outputs:
        before = was.get(output.stored.output_id)
        if output.stored.manual in DECIDED:
            if output.stored.manual != suggestion.label and decides(output.stored.text):
                return True
        elif before in DECIDED and output.label_after != before:
            return True
    return False


def _against_rules(suggestion: RuleSuggestion, rules: Sequence[DraftRule]) -> bool:
    """Whether the suggestion matches a text that one of the item's rules of the other polarity spells out: a
    negative ``\\bTim\\b`` against the positive ``You (baked|were baking) (a cake for Tim|Tim a cake)\\.``
    (DFKI de-en 00087003), whose every passing translation it would fail. Rules with classes, wildcards or
    repetition spell out no texts (``suite.assist.patterns.pattern_examples``)."""
    decides = matcher(suggestion.polarity, suggestion.pattern, suggestion.ignore_case)
    for rule in rules:
        if rule.spec.polarity == suggestion.polarity:
            continue
        if any(decides(text) for text in pattern_examples(rule.spec.pattern) or ()):
            return True
    return False


def item_suggestions(db: Database, item_id: int, *, scope: bool = True,
                     task: TaskState | None = None) -> ItemSuggestions:
    """``SuggestionSession.suggestions`` for a single item."""
    return SuggestionSession(db).suggestions(item_id, scope=scope, task=task)

