"""What an unsaved change of an item's rules or known translations would do to its labels, before it is saved.

The editor's live preview calls this on every debounced keystroke and ``tsqe rule test`` once. Nothing is
written. Drafts are decided by the labelling engine itself (``suite.engine.rules.ItemMatcher``, timed per search),
so a preview shows exactly the labels that saving and labelling would store, except that its searches are
allowed ``PREVIEW_TIMEOUT`` rather than labelling's ``DEFAULT_TIMEOUT``: a keystroke must not wait a second
per output for a pattern that is still being typed.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Integer, Select, bindparam, func, select
from sqlalchemy.orm import Session

from store import Database
from store.domain import Label, Polarity, TranslationKind
from store.models import (
    AutoLabel,
    Category,
    ConstructedLabel,
    Item,
    KnownTranslation,
    LabelFingerprint,
    ManualLabel,
    Output,
    OutputPlaceholder,
    Phenomenon,
    Rule,
    StoredOutputPolicy,
    System,
    SystemOutput,
)
from suite.engine.labels import automatic_label, join_labels, rule_number
from suite.engine.output_policy import read_policy
from suite.engine.rules import (
    CONSTRUCTED,
    Decision,
    ItemMatcher,
    ItemRule,
    KnownSpec,
    PatternProblem,
    RuleSpec,
    describe,
    pattern_problem,
)
from suite.errors import TsqeError
from suite.tasks import TaskState, progress_of

PREVIEW_TIMEOUT = 0.1
"""Seconds one search of a preview may take before its output is shown as ``error`` (timed out)."""

SCOPES = ("item", "phenomenon", "category", "suite")
"""How far ``preview_scope`` spreads the added rules: the item alone, or every item of its phenomenon,
category or suite."""

UNLABELLED = "unlabelled"
"""How a flip names the label of an output that no labelling has covered yet (a stored label of None)."""

_SCOPE_CHUNK = 200
"""Items read and decided at a time by ``preview_scope``, between two progress reports (and cancel checks)."""


@dataclass(frozen=True)
class DraftRule:
    """A rule of a draft: not yet checked, so without a validity, and perhaps not stored yet."""

    spec: RuleSpec
    rule_id: int | None = None
    """The stored rule this draft edits; None for a new rule."""


@dataclass(frozen=True)
class DraftKnown:
    kind: str
    text: str


@dataclass(frozen=True)
class Draft:
    """An item's FULL rule list (in order) and known translations as they would be saved."""

    rules: tuple[DraftRule, ...] = ()
    known: tuple[DraftKnown, ...] = ()


@dataclass(frozen=True)
class PreviewSpan:
    start: int
    end: int
    polarity: Polarity
    rule_index: int
    """Index into ``Draft.rules``: which rule of the draft matched here."""


@dataclass(frozen=True)
class StoredOutput:
    """An item's output as stored, with what a preview shows of it beside the draft's label: its systems, its
    automatic label (and in words what decided it), its review, and its label by a challenge set's construction,
    which labelling gives it whatever the rules say."""

    output_id: int
    text: str
    systems: tuple[str, ...]
    label: str | None
    """The stored automatic label (None: never labelled)."""
    decided_by: str | None
    manual: str | None
    reviewer: str | None
    constructed: str | None


@dataclass(frozen=True)
class PreviewOutput:
    """An output under a draft: as stored, and as the draft would label it."""

    stored: StoredOutput
    label_after: str
    """The automatic label the draft would give."""
    decided_by_after: str
    spans: tuple[PreviewSpan, ...]
    timed_out: bool

    @property
    def effective_after(self) -> str:
        """What the output would count as: a reviewer's label always wins over the automatic one."""
        return self.stored.manual if self.stored.manual is not None else self.label_after


@dataclass(frozen=True)
class RuleProblem:
    rule_index: int
    problem: PatternProblem


def ordered_flips(flips: Counter[str]) -> dict[str, int]:
    """The most frequent flip first, ties by name: what a linguist reads first is what changes most."""
    return dict(sorted(flips.items(), key=lambda flip: (-flip[1], flip[0])))


@dataclass(frozen=True)
class ItemPreview:
    item_id: int
    outputs: list[PreviewOutput]
    problems: list[RuleProblem]
    flips: dict[str, int]
    """``"unknown->pass": n`` over automatic labels (the stored label -> label_after), changed ones only; the most
    frequent first (``ordered_flips``), as every screen and command lists them."""


@dataclass(frozen=True)
class ItemFlips:
    item_id: int
    external_id: str
    category: str | None
    phenomenon: str | None
    flips: dict[str, int]
    output_ids: tuple[int, ...]
    """The outputs whose automatic label would change."""


@dataclass(frozen=True)
class ScopePreview:
    scope: str
    items: list[ItemFlips]
    """Only the items where something would flip, in suite order."""
    flips: dict[str, int]
    outputs: int
    """Outputs examined."""


def _item(session: Session, item_id: int) -> Item:
    item = session.get(Item, item_id)
    if item is None:
        raise TsqeError(f"no item with id {item_id}")
    return item


def draft_of(db: Database, item_id: int) -> Draft:
    """The item's stored rules, in labelling's order, and known translations: the draft an editor starts from."""
    with db.session() as session:
        _item(session, item_id)
        rules = session.execute(select(Rule.id, Rule.polarity, Rule.pattern, Rule.ignore_case)
                                .where(Rule.item_id == item_id).order_by(Rule.position, Rule.id)).all()
        known = session.execute(select(KnownTranslation.kind, KnownTranslation.text)
                                .where(KnownTranslation.item_id == item_id).order_by(KnownTranslation.id)).all()
    return Draft(tuple(DraftRule(RuleSpec(polarity, pattern, ignore_case), rule_id)
                       for rule_id, polarity, pattern, ignore_case in rules),
                 tuple(DraftKnown(kind, text) for kind, text in known))


_SpanCache = dict[tuple[str, bool, float], tuple[tuple[tuple[int, int], ...], ...]]
"""(pattern, ignore case, timeout) -> per output of an item, the (start, end) of every match."""

_SPAN_PATTERNS = 512
"""Patterns whose matches a session keeps per item; typing a pattern leaves one behind per keystroke."""


@dataclass(frozen=True)
class _Cached:
    stamp: tuple[object, ...]
    outputs: tuple[StoredOutput, ...]
    spans: _SpanCache
    decided: dict[str, Decision]
    """What the suite's output policy decides for this item's outputs."""


class _DraftMatcher:
    """A draft compiled by the labelling engine, with its rules told apart by their index in the draft.

    A new rule has no id yet; it is given a negative one (minus its 1-based position), which stored ids never are.
    Rules are named by their number in their list as the editor shows it, whatever their id. A new rule whose
    pattern is still blank (just added, nothing typed) is not a rule yet, and saving leaves it out
    (``suite.editing.item_draft.RuleRow.blank``): it matches nothing and is no problem, where it made every output an
    ``error`` the moment it was added (issue 16). ``decided`` is what the suite's output policy decides
    (``suite.engine.output_policy``), before any rule, as labelling does.
    """

    def __init__(self, rules: Sequence[DraftRule], known: Iterable[DraftKnown], timeout: float,
                 decided: Mapping[str, Decision] | None = None) -> None:
        specs: list[ItemRule] = []
        taken: set[int] = set()
        self.rule_ids: list[int | None] = []
        numbers: Counter[str] = Counter()
        for index, rule in enumerate(rules):
            numbers[rule.spec.polarity] += 1
            if rule.rule_id is None and not rule.spec.pattern.strip():
                self.rule_ids.append(None)
                continue
            rule_id = rule.rule_id if rule.rule_id is not None and rule.rule_id not in taken else -(index + 1)
            taken.add(rule_id)
            self.rule_ids.append(rule_id)
            specs.append(ItemRule(rule_id, rule.spec, number=numbers[rule.spec.polarity]))
        self.rules = tuple(rules)
        self.timeout = timeout
        self.problems = [RuleProblem(index, problem) for index, (rule, rule_id) in enumerate(zip(rules, self.rule_ids))
                         if rule_id is not None
                         and (problem := pattern_problem(rule.spec.pattern, rule.spec.ignore_case))]
        self.matcher = ItemMatcher(specs, [KnownSpec(TranslationKind(k.kind), k.text) for k in known], timeout, decided)

    def decide(self, text: str, constructed: str | None = None) -> tuple[Decision, bool]:
        """The draft's decision on ``text`` (an output labelled by construction keeps that label, as labelling
        gives it) and whether it is an ``error`` because a search timed out (an engine whose rules all compile has
        no other way to reach ``error``)."""
        if constructed is not None:
            return CONSTRUCTED[Label(constructed)], False
        decision = self.matcher.decide(text)
        return decision, decision.label == "error" and not self.problems

    def spans(self, texts: Sequence[str], cache: _SpanCache) -> list[tuple[PreviewSpan, ...]]:
        """Per text, where each rule of the draft matches, in the order of ``ItemMatcher.spans``.

        Each rule's matches come from the engine's ``spans`` for that rule alone and are kept in ``cache``:
        a keystroke changes one rule, and finding every match of the others again was half a preview's time.
        A rule after an invalid one is highlighted too, although the engine would stop at the invalid one.
        """
        if len(cache) > _SPAN_PATTERNS:
            cache.clear()
        found: list[list[tuple[int, int, int, str, int]]] = [[] for _ in texts]
        for index, (rule, rule_id) in enumerate(zip(self.rules, self.rule_ids)):
            if rule_id is None:
                continue
            key = (rule.spec.pattern, rule.spec.ignore_case, self.timeout)
            matches = cache.get(key)
            if matches is None:
                alone = ItemMatcher([ItemRule(rule_id, rule.spec)], (), self.timeout)
                matches = cache[key] = tuple(tuple((span.start, span.end) for span in alone.spans(text))
                                             for text in texts)
            for spans, matched in zip(found, matches):
                spans.extend((start, end, rule_id, rule.spec.polarity, index) for start, end in matched)
        return [tuple(PreviewSpan(start, end, Polarity(polarity), index)
                      for start, end, _, polarity, index in sorted(spans)) for spans in found]


def _flip(now: str | None, after: str) -> str | None:
    """The name of the change ``now`` -> ``after`` of an automatic label, None when it does not change."""
    before = UNLABELLED if now is None else now
    return None if before == after else f"{before}->{after}"


class PreviewSession:
    """Previews of one item after another, reading each item's outputs and stored labels once.

    Keystrokes preview the same item many times; between two of them only the draft changes. Before reusing
    what it read, every ``preview`` compares a stamp of the item's stored state (its labelling fingerprint and
    coverage, its outputs, their systems and reviews; a few index lookups, none of the outputs' texts) with the
    one taken when it read them, so a relabelling, an import or a review in between is noticed. ``invalidate``
    drops what was read, for a caller that knows better. One session serves one thread at a time.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self._cache: dict[int, _Cached] = {}

    def invalidate(self, item_id: int | None = None) -> None:
        """Forget what was read of ``item_id`` (of every item when None)."""
        if item_id is None:
            self._cache.clear()
        else:
            self._cache.pop(item_id, None)

    def preview(self, item_id: int, draft: Draft, *, timeout: float = PREVIEW_TIMEOUT) -> ItemPreview:
        """What ``draft``, saved in place of the item's rules and known translations, would label each output."""
        cached = self._read(item_id)
        matcher = _DraftMatcher(draft.rules, draft.known, timeout, cached.decided)
        spans = matcher.spans([stored.text for stored in cached.outputs], cached.spans)
        previews: list[PreviewOutput] = []
        flips: Counter[str] = Counter()
        for stored, output_spans in zip(cached.outputs, spans):
            decision, timed_out = matcher.decide(stored.text, stored.constructed)
            previews.append(PreviewOutput(stored, decision.label, decision.decided_by, output_spans, timed_out))
            if (flip := _flip(stored.label, decision.label)) is not None:
                flips[flip] += 1
        return ItemPreview(item_id, previews, matcher.problems, ordered_flips(flips))

    def _read(self, item_id: int) -> _Cached:
        with self.db.session() as session:
            stamp = tuple(session.execute(_STAMP, {"item_id": item_id}).one())
            cached = self._cache.get(item_id)
            if cached is not None and cached.stamp == stamp:
                return cached
            item = _item(session, item_id)
            decided = read_policy(session, item.suite_id).decisions(item.source)
            cached = self._cache[item_id] = _Cached(stamp, _stored_outputs(session, item_id), {}, decided)
        return cached


def _stamp() -> Select[Any]:
    """Everything a change of an item's stored outputs, labels, systems or reviews changes, in one query.

    Labelling rewrites the item's fingerprint row (its fingerprint, coverage and time) whenever it writes any
    of its labels; importing outputs changes their count or largest id; a review set, changed or cleared
    changes the reviews' count, latest time or versions; a system's output replaced changes the sums over
    ``system_outputs``; the suite's output policy is read too (a new policy is stored before the labelling that
    follows it). Built once: building the statement took ten times as long as running it.
    """
    item_id = bindparam("item_id", type_=Integer)
    fingerprint = LabelFingerprint.item_id == item_id
    reviews = select().select_from(ManualLabel).join(Output, Output.id == ManualLabel.output_id) \
        .where(Output.item_id == item_id)
    # system_outputs is keyed by system first: reached through its index on output ids, not scanned
    produced = SystemOutput.output_id.in_(select(Output.id).where(Output.item_id == item_id))
    suite_id = select(Item.suite_id).where(Item.id == item_id).scalar_subquery()
    placeholders = select().select_from(OutputPlaceholder).where(OutputPlaceholder.suite_id == suite_id)
    return select(*(query.scalar_subquery() for query in (
        select(LabelFingerprint.fingerprint).where(fingerprint),
        select(LabelFingerprint.labelled_through).where(fingerprint),
        select(LabelFingerprint.labelled_at).where(fingerprint),
        select(func.count(Output.id)).where(Output.item_id == item_id),
        select(func.max(Output.id)).where(Output.item_id == item_id),
        reviews.add_columns(func.count()),
        reviews.add_columns(func.max(ManualLabel.reviewed_at)),
        reviews.add_columns(func.sum(ManualLabel.version)),
        select(func.count()).where(produced),
        select(func.sum(SystemOutput.output_id + SystemOutput.system_id)).where(produced),
        select(StoredOutputPolicy.empty_output).where(StoredOutputPolicy.suite_id == suite_id),
        select(StoredOutputPolicy.untranslated_output).where(StoredOutputPolicy.suite_id == suite_id),
        placeholders.add_columns(func.count()),
        placeholders.add_columns(func.min(OutputPlaceholder.text)),
        placeholders.add_columns(func.max(OutputPlaceholder.text)),
        select(Item.source).where(Item.id == item_id),
    )))


_STAMP = _stamp()


def _stored_outputs(session: Session, item_id: int) -> tuple[StoredOutput, ...]:
    """The item's outputs with their systems, stored automatic labels (in words too) and reviews."""
    systems: dict[int, list[str]] = defaultdict(list)
    for output_id, name in session.execute(
            select(SystemOutput.output_id, System.name).join(System, System.id == SystemOutput.system_id)
            .where(SystemOutput.output_id.in_(select(Output.id).where(Output.item_id == item_id)))
            .order_by(System.name)):
        systems[output_id].append(name)
    rows = session.execute(
        join_labels(select(Output.id, Output.text, automatic_label(Output.id), rule_number(), Rule.polarity,
                           Rule.pattern, AutoLabel.reason, ManualLabel.label, ManualLabel.reviewer,
                           ConstructedLabel.label),
                    Output.id, Output.item_id)
        .outerjoin(Rule, Rule.id == AutoLabel.rule_id)
        .outerjoin(ConstructedLabel, ConstructedLabel.output_id == Output.id)
        .where(Output.item_id == item_id).order_by(Output.id))
    return tuple(StoredOutput(output_id, text, tuple(systems[output_id]), label,
                               None if label is None else describe(label, number, polarity, pattern, reason),
                               manual, reviewer, constructed)
                 for output_id, text, label, number, polarity, pattern, reason, manual, reviewer, constructed in rows)


def preview_item(db: Database, item_id: int, draft: Draft, *, timeout: float = PREVIEW_TIMEOUT) -> ItemPreview:
    """What ``draft`` would label each of the item's outputs (``PreviewSession.preview`` without a cache)."""
    return PreviewSession(db).preview(item_id, draft, timeout=timeout)


def preview_scope(db: Database, item_id: int, added: Sequence[DraftRule], scope: str, *,
                  timeout: float = PREVIEW_TIMEOUT, task: TaskState | None = None) -> ScopePreview:
    """What adding the rules ``added`` to every item of the scope (after each item's own stored rules) would
    flip, against the automatic labels stored now; ``scope`` is one of ``SCOPES``, around the item ``item_id``."""
    if scope not in SCOPES:
        raise TsqeError(f"a preview's scope is one of {', '.join(SCOPES)}, not {scope!r}")
    progress = progress_of(task)
    with db.session() as session:
        item = _item(session, item_id)
        items = _items_in_scope(session, item, scope)
        policy = read_policy(session, item.suite_id)
        flips: Counter[str] = Counter()
        flipped: list[ItemFlips] = []
        examined = 0
        for start in range(0, len(items), _SCOPE_CHUNK):
            progress.progress(start, len(items), "items")
            chunk = items[start:start + _SCOPE_CHUNK]
            rules, known, outputs = _stored_rules_and_outputs(session, [row[0] for row in chunk])
            sources = dict(session.execute(select(Item.id, Item.source).where(Item.id.in_([row[0] for row in chunk])))
                           .tuples()) if not policy.default else {}
            for chunk_item_id, external_id, category, phenomenon in chunk:
                matcher = _DraftMatcher((*rules[chunk_item_id], *added), known[chunk_item_id], timeout,
                                        policy.decisions(sources.get(chunk_item_id, "")))
                item_flips: Counter[str] = Counter()
                output_ids: list[int] = []
                for output_id, text, label_now, constructed in outputs[chunk_item_id]:
                    if (flip := _flip(label_now, matcher.decide(text, constructed)[0].label)) is not None:
                        item_flips[flip] += 1
                        output_ids.append(output_id)
                examined += len(outputs[chunk_item_id])
                if output_ids:
                    flips.update(item_flips)
                    flipped.append(ItemFlips(chunk_item_id, external_id, category, phenomenon,
                                             ordered_flips(item_flips), tuple(output_ids)))
        progress.progress(len(items), len(items), "items")
    return ScopePreview(scope, flipped, ordered_flips(flips), examined)


def _items_in_scope(session: Session, item: Item, scope: str) -> list[tuple[int, str, str | None, str | None]]:
    """(id, external id, category, phenomenon) of the scope's items, in suite order."""
    query = (select(Item.id, Item.external_id, Category.name, Phenomenon.name)
             .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
             .outerjoin(Category, Category.id == Phenomenon.category_id)
             .where(Item.suite_id == item.suite_id).order_by(Item.position, Item.id))
    if scope == "item":
        query = query.where(Item.id == item.id)
    elif scope != "suite":
        if item.phenomenon_id is None:
            raise TsqeError(f"item {item.external_id!r} belongs to no phenomenon, so it has no {scope}")
        if scope == "phenomenon":
            query = query.where(Item.phenomenon_id == item.phenomenon_id)
        else:
            query = query.where(Phenomenon.category_id == select(Phenomenon.category_id)
                                .where(Phenomenon.id == item.phenomenon_id).scalar_subquery())
    return [(item_id, external_id, category, phenomenon)
            for item_id, external_id, category, phenomenon in session.execute(query)]


_StoredLabels = tuple[int, str, str | None, str | None]
"""An output's id, text, stored automatic label and label by construction."""


def _stored_rules_and_outputs(session: Session, item_ids: list[int]) -> tuple[
        dict[int, list[DraftRule]], dict[int, list[DraftKnown]], dict[int, list[_StoredLabels]]]:
    """The items' stored rules (in labelling's order), known translations, and outputs with their stored
    automatic labels and labels by construction."""
    rules: dict[int, list[DraftRule]] = defaultdict(list)
    for item_id, rule_id, polarity, pattern, ignore_case in session.execute(
            select(Rule.item_id, Rule.id, Rule.polarity, Rule.pattern, Rule.ignore_case)
            .where(Rule.item_id.in_(item_ids)).order_by(Rule.item_id, Rule.position, Rule.id)):
        rules[item_id].append(DraftRule(RuleSpec(polarity, pattern, ignore_case), rule_id))
    known: dict[int, list[DraftKnown]] = defaultdict(list)
    for item_id, kind, text in session.execute(
            select(KnownTranslation.item_id, KnownTranslation.kind, KnownTranslation.text)
            .where(KnownTranslation.item_id.in_(item_ids))):
        known[item_id].append(DraftKnown(kind, text))
    outputs: dict[int, list[_StoredLabels]] = defaultdict(list)
    for item_id, output_id, text, label, constructed in session.execute(
            join_labels(select(Output.item_id, Output.id, Output.text, automatic_label(Output.id),
                               ConstructedLabel.label), Output.id, Output.item_id)
            .outerjoin(ConstructedLabel, ConstructedLabel.output_id == Output.id)
            .where(Output.item_id.in_(item_ids)).order_by(Output.id)):
        outputs[item_id].append((output_id, text, label, constructed))
    return rules, known, outputs
