"""Rules proposed for an item from its decided outputs, each with what it would decide.

For each polarity two kinds of evidence give a part of a pattern, and a suggestion is one part or both:

- *variants*: undecided outputs that differ from a decided output of the label only by changes the suite's
  items show never to change a label (``suite.assist.variants``) get a template: the decided output with those
  stretches as choices, ``\\bShe(?: would|'d) have run\\.``. An undecided output that is as much a variant of
  an output of the other label is left alone.
- *markers*: word sequences found in no decided text of the other label and judged by the phenomenon's items to
  mark the label with a confidence of at least ``CONFIDENT`` (``suite.assist.markers``), as few as cover the
  undecided outputs they are found in, up to ``MAX_MARKERS``: ``\\b(?:had to|was forced to)\\b``. A sequence
  with a word copied from the source (a name, a number: ``suite.assist.tokens.copied_words``) is never one.

An item nobody has decided an output of yet (a new item) still gets markers, its phenomenon's evidence alone.
Every suggestion is checked with the labelling engine against the item's decided texts: one that would match
a text of the other label (a reviewer's decision, a label its rules gave, a known translation) is never
offered. Case is ignored only when the outputs write a word in more than one case, and only when ignoring it
contradicts nothing. Suggestions come most useful first: by the undecided outputs they decide, then by their
confidence (the weakest evidence behind them).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from store.domain import Polarity
from suite.assist.context import SuggestionContext
from suite.assist.evidence import ItemEvidence, Label
from suite.assist.markers import MarkerEvidence, Z, wilson_lower_bound
from suite.assist.patterns import alternatives, template_union, variant_templates
from suite.assist.tokens import copied_words, ngram_surfaces, ngrams
from suite.assist.variants import ChangeKey
from suite.engine.rules import ItemMatcher, ItemRule, RuleSpec

CONFIDENT = 0.85
"""The least confidence (a lower bound on its precision, see ``suite.assist.markers``) a marker needs: on DFKI
de-en the best suggestion is then right 97 % of the time, decides 47 % of the held-out outputs and contradicts a
known translation of its item for 0.9 % of the items (``bench/suggest.py``, seeds 1-3); 0.87 gave 97.8 %, 45.7 %
and 0.7 %, 0.83 contradicted 1.3 % (issue 28). Before markers of passing were checked against known bad
translations (``suite.assist.markers``), 0.87 gave 96 % and half."""
MAX_MARKERS = 3
"""Word sequences one suggestion may list: more make a rule that nobody reads."""
POLARITY_LABEL: dict[str, Label] = {"positive": "pass", "negative": "fail"}
OTHER_LABEL: dict[Label, Label] = {"pass": "fail", "fail": "pass"}
VARIANTS, MARKERS = "variants", "markers"


@dataclass(frozen=True)
class RuleSuggestion:
    polarity: str
    pattern: str
    ignore_case: bool
    found_by: tuple[str, ...]
    """``variants``, ``markers`` or both."""
    decides: tuple[int, ...]
    """The undecided outputs it would decide (their ids), in the item's order."""
    matches: int
    """Decided texts of its label it matches."""
    of: int
    """Decided texts of its label."""
    against: int
    """Decided texts of the other label, none of which it matches."""
    confidence: float
    """The weakest evidence behind it, as a lower bound on the share of its decisions that are right."""
    reasons: tuple[str, ...]

    @property
    def label(self) -> Label:
        return POLARITY_LABEL[self.polarity]


@dataclass(frozen=True)
class _Part:
    kind: str
    exact: str
    """The pattern with every way the outputs write it."""
    folded: str | None
    """The pattern with case ignored, when the outputs write a word in more than one case."""
    covers: frozenset[int]
    """Indexes into the item's undecided outputs."""
    confidence: float
    reason: str


def matcher(polarity: str, pattern: str, ignore_case: bool) -> Callable[[str], bool]:
    """Whether the labelling engine, given only this rule, decides a text (a search that times out counts as
    deciding, so that such a pattern is never offered as contradicting nothing)."""
    engine = ItemMatcher([ItemRule(-1, RuleSpec(Polarity(polarity), pattern, ignore_case))], ())
    return lambda text: engine.decide(text).label != "unknown"


def suggest_rules(item: ItemEvidence, context: SuggestionContext) -> list[RuleSuggestion]:
    """Positive and negative rules for ``item`` from its decided outputs and what ``context`` (its suite, less
    the item itself) teaches; most useful first."""
    context = context.without([item.item_id])
    found: list[RuleSuggestion] = []
    for polarity in POLARITY_LABEL:
        found.extend(_suggestions(item, context, polarity))
    found.sort(key=lambda s: (-len(s.decides), -s.confidence, len(s.pattern)))
    return found


def _suggestions(item: ItemEvidence, context: SuggestionContext, polarity: str) -> list[RuleSuggestion]:
    label = POLARITY_LABEL[polarity]
    same, against = item.texts(label), item.texts(OTHER_LABEL[label])
    if not item.undecided:
        return []
    parts = [part for part in (_variants(item, context, label, same, against),
                               _markers(item, context, label, same, against)) if part is not None]
    offered: list[RuleSuggestion] = []
    for combination in ([part] for part in parts) if len(parts) < 2 else ([parts[0]], [parts[1]], parts):
        suggestion = _checked(item, polarity, combination, same, against)
        if suggestion is not None and suggestion.decides and suggestion.pattern not in {s.pattern for s in offered}:
            offered.append(suggestion)
    return offered


def _checked(item: ItemEvidence, polarity: str, parts: Sequence[_Part], same: list[str], against: list[str]
             ) -> RuleSuggestion | None:
    """The parts as one rule, case ignored if they ask for it and it contradicts nothing; None when even the
    exact rule would match a decided text of the other label."""
    tries = []
    if any(part.folded is not None for part in parts):
        tries.append(("|".join(part.folded or part.exact for part in parts), True))
    tries.append(("|".join(part.exact for part in parts), False))
    for pattern, ignore_case in tries:
        decides = matcher(polarity, pattern, ignore_case)
        if any(decides(text) for text in against):
            continue
        return RuleSuggestion(
            polarity, pattern, ignore_case, tuple(part.kind for part in parts),
            tuple(output.output_id for output in item.undecided if decides(output.text)),
            sum(1 for text in same if decides(text)), len(same), len(against),
            min(part.confidence for part in parts), tuple(part.reason for part in parts))
    return None


def _variants(item: ItemEvidence, context: SuggestionContext, label: Label, same: list[str],
              against: list[str]) -> _Part | None:
    """Undecided outputs that differ from a decided one of ``label`` (or, in turn, from such an output) only by
    safe changes, and from none of the other label, as templates of those outputs."""
    stats, group, excluded = context.variants, item.group, context.excluded

    def changes_from(text: str, bases: Sequence[str]) -> tuple[str, list[tuple[ChangeKey, int]]] | None:
        for base in bases:
            found = stats.variant_changes(group, text, base, excluded)
            if found is not None:
                return base, found
        return None

    accepted: dict[int, tuple[str, list[tuple[ChangeKey, int]]]] = {}
    bases = list(same)
    while bases:
        new: dict[int, tuple[str, list[tuple[ChangeKey, int]]]] = {}
        for index, output in enumerate(item.undecided):
            if index in accepted:
                continue
            found = changes_from(output.text, bases)
            if found is not None and changes_from(output.text, against) is None:
                new[index] = found
        accepted.update(new)
        bases = [item.undecided[index].text for index in new]
    if not accepted:
        return None
    by_base: dict[str, list[str]] = {}
    for index, (base, _) in accepted.items():
        by_base.setdefault(base, []).append(item.undecided[index].text)
    templates = [template for base, texts in by_base.items() for template in variant_templates(base, texts)]
    kept = [(key, count) for _, found in accepted.values() for key, count in found]
    weakest = min(kept, key=lambda pair: pair[1], default=None)
    confidence = 1.0 if weakest is None else wilson_lower_bound(weakest[1], weakest[1], Z)
    examples = sorted({key for key, _ in kept}, key=lambda key: -dict(kept)[key])[:2]
    said = "; ".join(f"{_words(a)} ↔ {_words(b)} kept it {dict(kept)[a, b]} times" for a, b in examples)
    reason = (f"{len(accepted)} undecided output{'s differ' if len(accepted) != 1 else ' differs'} from {label}ing "
              f"ones only by changes that never changed a label elsewhere in the phenomenon or the suite"
              + (f" ({said})" if said else ""))
    return _Part(VARIANTS, template_union(templates), None, frozenset(accepted), confidence, reason)


def _words(sequence: tuple[str, ...]) -> str:
    return "“" + " ".join(sequence) + "”" if sequence else "nothing"


def _markers(item: ItemEvidence, context: SuggestionContext, label: Label, same: list[str],
             against: list[str]) -> _Part | None:
    """The fewest confident markers of ``label`` that cover the undecided outputs they are found in."""
    undecided_grams = [ngrams(output.text) for output in item.undecided]
    against_grams = frozenset().union(*(ngrams(text) for text in against))
    same_grams = [ngrams(text) for text in same]
    judged: dict[tuple[str, ...], MarkerEvidence] = {}
    copied = copied_words(item.source)
    for ngram in frozenset().union(*undecided_grams) - against_grams:
        if copied.intersection(ngram):
            continue
        own = sum(1 for grams in same_grams if ngram in grams)
        evidence = context.markers.judge(item, ngram, label, own, context.excluded, CONFIDENT)
        if evidence is not None and evidence.confidence >= CONFIDENT:
            judged[ngram] = evidence
    covers = {ngram: frozenset(i for i, grams in enumerate(undecided_grams) if ngram in grams) for ngram in judged}
    chosen: list[tuple[str, ...]] = []
    covered: frozenset[int] = frozenset()
    while len(chosen) < MAX_MARKERS and judged:
        best = max(judged, key=lambda ngram: (len(covers[ngram] - covered), judged[ngram].confidence,
                                             -len(ngram), ngram))
        if not covers[best] - covered:
            break
        chosen.append(best)
        covered |= covers[best]
    if not chosen:
        return None
    written: list[str] = []
    for ngram in chosen:
        for text in [*same, *(output.text for output in item.undecided)]:
            for form in ngram_surfaces(text, ngram):
                if form not in written:
                    written.append(form)
    folded: list[str] = []
    for form in written:
        if form.lower() not in {f.lower() for f in folded}:
            folded.append(form)
    reason = "; ".join(_marker_reason(ngram, judged[ngram]) for ngram in chosen)
    return _Part(MARKERS, alternatives(written), alternatives(folded) if len(folded) < len(written) else None,
                 covered, min(judged[ngram].confidence for ngram in chosen), reason)


def _marker_reason(ngram: tuple[str, ...], evidence: MarkerEvidence) -> str:
    where = "in this category" if evidence.in_category else "in this phenomenon"
    if evidence.source_word is not None:
        where += f" where the source has “{evidence.source_word}”"
    return (f"{_words(ngram)} is in {evidence.same} {evidence.label}ing and {evidence.other} "
            f"{OTHER_LABEL[evidence.label]}ing outputs {where}")

