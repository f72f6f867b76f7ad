"""How each stored rule is doing: what it matches, what it decides, how often reviewers overrule it, and whether
it never fires, always fires together with a rule of the other polarity, or looks mistyped.

Matches are counted by searching every output of the rule's item with the rule alone (through the labelling
engine, so a search that runs out of time is counted as such, not as a miss); decisions are the automatic
labels the stored labelling attributes to the rule (pass or fail: for a conflict the engine names the positive
rule, and conflicts are counted from the matches instead). A reviewer overrode a decision when the output's
manual label differs from it; the rule's precision against reviews is the share of its reviewed decisions the
reviewers kept.
"""
from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from store import Database
from store.domain import Label, Polarity
from store.models import AutoLabel, Category, Item, ManualLabel, Output, Phenomenon, Rule
from suite.assist.pattern_slips import PatternSlip, pattern_slips
from suite.engine.labels import automatic_label, join_labels
from suite.engine.rules import DEFAULT_TIMEOUT, ItemMatcher, ItemRule, compiled_pattern
from suite.errors import TsqeError
from suite.suites import find_suite
from suite.tables import NO_CATEGORY, NO_PHENOMENON, Cell, Column, Table
from suite.tasks import TaskState, progress_of

SORTS = ("item", "matches", "decisions", "overridden", "precision")
"""Orders a report can be listed in: suite order, or by a count (most first; precision lowest first)."""


@dataclass(frozen=True)
class RuleHealth:
    rule_id: int
    item_id: int
    external_id: str
    category: str | None
    phenomenon: str | None
    polarity: Polarity
    number: int
    """Its place among the item's rules of its polarity, from 1, as the editor numbers them."""
    pattern: str
    ignore_case: bool
    error: str | None
    """Why the pattern does not compile; None when it does."""
    outputs: int
    """The item's outputs."""
    matches: int
    timed_out: int
    decisions: int
    """Automatic pass or fail labels the labelling attributes to this rule."""
    reviewed: int
    """Of those decisions, outputs a reviewer labelled."""
    overridden: int
    """Of those, outputs whose manual label differs from the rule's decision."""
    conflicts_with: tuple[int, ...]
    """The other polarity's rules (by id) it always fires together with: every output it matches is a
    conflict. Empty when it matches something alone (or nothing)."""
    slips: tuple[PatternSlip, ...]

    @property
    def precision(self) -> float | None:
        """The share of its reviewed decisions that reviewers kept; None when none was reviewed."""
        return (self.reviewed - self.overridden) / self.reviewed if self.reviewed else None

    @property
    def dead(self) -> bool:
        """It compiles, its item has outputs, and it matches none of them."""
        return self.error is None and self.outputs > 0 and self.matches == 0 and self.timed_out == 0

    def problems(self, rule_numbers: dict[int, str] | None = None) -> list[str]:
        """What is wrong with it, in words (other rules named by ``rule_numbers``: id -> "negative rule 2")."""
        names = rule_numbers or {}
        found: list[str] = []
        if self.error is not None:
            found.append(f"does not compile: {self.error}")
        if self.dead:
            found.append(f"matches none of the item's {self.outputs} outputs")
        if self.timed_out:
            found.append(f"timed out on {self.timed_out} output{'s' if self.timed_out != 1 else ''}")
        if self.conflicts_with:
            others = ", ".join(names.get(rule_id, f"rule {rule_id}") for rule_id in self.conflicts_with)
            found.append(f"always fires together with {others}: every match is a conflict")
        if self.overridden:
            found.append(f"reviewers overrode {self.overridden} of its {self.reviewed} reviewed decisions")
        found.extend(str(slip) for slip in self.slips)
        return found

    @property
    def serious(self) -> bool:
        """Whether something is wrong with it beyond matching nothing (which a negative rule guarding against an
        error no system made is expected to do)."""
        return bool(self.error or self.timed_out or self.conflicts_with or self.overridden or self.slips)


@dataclass(frozen=True)
class RuleHealthReport:
    suite: str
    scope: str
    """What the report covers, in words: "suite de-en", "category Ambiguity", ..."""
    rules: list[RuleHealth]
    names: dict[int, str] = field(default_factory=dict)
    """Every rule's name within its item (id -> "positive rule 1"), for the problems' words."""

    def problems(self, rule: RuleHealth) -> list[str]:
        return rule.problems(self.names)

    def sorted(self, by: str) -> list[RuleHealth]:
        if by not in SORTS:
            raise TsqeError(f"rules are listed by one of {', '.join(SORTS)}, not {by!r}")
        if by == "item":
            return list(self.rules)
        if by == "precision":
            return sorted(self.rules, key=lambda rule: (rule.precision is None, rule.precision or 0.0))
        return sorted(self.rules, key=lambda rule: -int(getattr(rule, by)))

    def to_table(self, rules: list[RuleHealth] | None = None) -> Table:
        shown = self.rules if rules is None else rules
        columns = [Column("item", "text"), Column("category", "text"), Column("phenomenon", "text"),
                   Column("rule", "text"), Column("pattern", "text"), Column("outputs", "count"),
                   Column("matches", "count"), Column("decisions", "count"), Column("reviewed", "count"),
                   Column("overridden", "count"), Column("precision", "fraction"), Column("problems", "text")]
        body = [[Cell(rule.external_id), Cell(rule.category or NO_CATEGORY), Cell(rule.phenomenon or NO_PHENOMENON),
                 Cell(self.names.get(rule.rule_id, str(rule.rule_id))),
                 Cell(rule.pattern + ("  (ignore case)" if rule.ignore_case else "")), Cell(rule.outputs),
                 Cell(rule.matches), Cell(rule.decisions), Cell(rule.reviewed), Cell(rule.overridden),
                 Cell(rule.precision), Cell("; ".join(self.problems(rule)))] for rule in shown]
        return Table(title=f"Rule health: {self.scope}", columns=columns, body=body, notes=self.notes(shown))

    def notes(self, rules: list[RuleHealth] | None = None) -> list[str]:
        """What the table's notes say of ``rules`` (all of them by default): the window shows the first without
        building the table, whose problems' words for 3,718 rules took 1.8 s of its main thread (issue 28)."""
        shown = self.rules if rules is None else rules
        dead = sum(rule.dead for rule in shown)
        conflicting = sum(bool(rule.conflicts_with) for rule in shown)
        slipped = sum(bool(rule.slips) for rule in shown)
        overridden = sum(rule.overridden > 0 for rule in shown)
        return [f"{len(shown)} rules: {_count(dead, 'matches', 'match')} nothing, "
                f"{_count(conflicting, 'always fires', 'always fire')} with a rule of the other polarity, "
                f"{_count(overridden, 'was', 'were')} overridden by reviewers, "
                f"{_count(slipped, 'looks', 'look')} mistyped.",
                "precision: the share of the rule's reviewed decisions that reviewers kept (– when none was "
                "reviewed)."]


def _count(count: int, one: str, more: str) -> str:
    return f"{count} {one if count == 1 else more}"


class _PlacedRule(NamedTuple):
    """A rule with the item it belongs to, where the report places it."""

    rule: ItemRule
    item_id: int
    external_id: str
    category: str | None
    phenomenon: str | None


class _CountedOutput(NamedTuple):
    """An output as a rule's health counts it: the rule its label is attributed to (by id, not in words as the
    preview's ``LabelledOutput`` says it), read for a whole suite at once."""

    text: str
    decided_by: int | None
    """The rule its automatic pass or fail label is attributed to."""
    label: Label | None
    manual: str | None


def rule_health(db: Database, suite_name: str | None = None, *, category: str | None = None,
                phenomenon: str | None = None, item_id: int | None = None,
                task: TaskState | None = None) -> RuleHealthReport:
    """The health of every rule of the suite, or of one category, phenomenon (of ``category``) or item."""
    progress = progress_of(task)
    with db.session() as session:
        suite = find_suite(session, suite_name)
        query = (select(Rule, Item.external_id, Category.name, Phenomenon.name)
                 .join(Item, Item.id == Rule.item_id)
                 .outerjoin(Phenomenon, Phenomenon.id == Item.phenomenon_id)
                 .outerjoin(Category, Category.id == Phenomenon.category_id)
                 .where(Item.suite_id == suite.id).order_by(Item.position, Item.id, Rule.position, Rule.id))
        scope = f"suite {suite.name}"
        if category is not None:
            query = query.where(Category.name == category)
            scope = f"category {category}"
        if phenomenon is not None:
            query = query.where(Phenomenon.name == phenomenon)
            scope = f"phenomenon {phenomenon}" + (f" of {category}" if category else "")
        if item_id is not None:
            query = query.where(Item.id == item_id)
        by_item: dict[int, list[_PlacedRule]] = defaultdict(list)
        for stored, external_id, category_name, phenomenon_name in session.execute(query):
            by_item[stored.item_id].append(_PlacedRule(ItemRule.of(stored), stored.item_id, external_id,
                                                       category_name, phenomenon_name))
        if item_id is not None and by_item:
            scope = f"item {by_item[item_id][0].external_id}"
        outputs = _outputs(session, sorted(by_item))
    names: dict[int, str] = {}
    found: list[RuleHealth] = []
    for done, (item, item_rules) in enumerate(by_item.items()):
        progress.progress(done, len(by_item), "rules")
        texts = [output.text for output in outputs[item]]
        matched: dict[int, list[bool | None]] = {}
        numbers = {"positive": 0, "negative": 0}
        for placed in item_rules:
            rule, spec = placed.rule, placed.rule.spec
            numbers[spec.polarity] += 1
            names[rule.id] = f"{spec.polarity} rule {numbers[spec.polarity]}"
            if rule.valid:
                engine = ItemMatcher([ItemRule(rule.id, spec)], (), DEFAULT_TIMEOUT)
                matched[rule.id] = [None if label == "error" else label != "unknown"
                                    for label in (engine.decide(text).label for text in texts)]
        for placed in item_rules:
            rule, spec = placed.rule, placed.rule.spec
            hits = matched.get(rule.id, [])
            decided = [output for output in outputs[item] if output.decided_by == rule.id]
            reviewed = [output for output in decided if output.manual is not None]
            found.append(RuleHealth(
                rule.id, item, placed.external_id, placed.category, placed.phenomenon, spec.polarity,
                int(names[rule.id].rsplit(" ", 1)[1]), spec.pattern, spec.ignore_case,
                None if rule.valid else rule.error or "marked invalid", len(texts),
                sum(hit is True for hit in hits), sum(hit is None for hit in hits), len(decided), len(reviewed),
                sum(output.manual != output.label for output in reviewed),
                _always_with(rule, [other.rule for other in item_rules], matched),
                tuple(pattern_slips(spec.pattern, spec.ignore_case, texts, hits)) if rule.valid else ()))
    progress.progress(len(by_item), len(by_item), "rules")
    return RuleHealthReport(suite.name, scope, found, names)


def compile_rules(db: Database, suite_name: str | None = None, *, task: TaskState | None = None) -> int:
    """Compile every valid rule of the suite as ``rule_health`` will (as it is, and case-folded for the case slip)
    into the rule engine's cache, and say how many patterns that took; the window does it in the background once a
    suite is open, so that the rule health it shows later does not wait for the compiler.

    On DFKI de-en (3,718 rules, 5,254 patterns) the regex package's parser takes 3-4 s of CPU in a new process, four
    fifths of the suite's first rule health. A pause of no time after each pattern lets the window's thread take
    the interpreter (a compiling thread kept it for up to 5 ms at a time, and a repaint asks for it a thousand
    times)."""
    progress = progress_of(task)
    with db.session() as session:
        suite = find_suite(session, suite_name)
        patterns = {(pattern, ignore_case) for pattern, ignore_case in session.execute(
            select(Rule.pattern, Rule.ignore_case).join(Item, Item.id == Rule.item_id)
            .where(Item.suite_id == suite.id, Rule.valid.is_(True)))}
    wanted = sorted({(pattern, True) for pattern, _ in patterns} | set(patterns))
    for done, (pattern, ignore_case) in enumerate(wanted):
        if done % 100 == 0:
            progress.progress(done, len(wanted), "compiling the rules")
        compiled_pattern(pattern, ignore_case)
        time.sleep(0)
    progress.progress(len(wanted), len(wanted), "compiling the rules")
    return len(wanted)


def _outputs(session: Session, item_ids: list[int]) -> dict[int, list[_CountedOutput]]:
    outputs: dict[int, list[_CountedOutput]] = defaultdict(list)
    for start in range(0, len(item_ids), 500):
        query = join_labels(select(Output.item_id, Output.text, automatic_label(Output.id), AutoLabel.rule_id,
                                   ManualLabel.label), Output.id, Output.item_id) \
            .where(Output.item_id.in_(item_ids[start:start + 500])).order_by(Output.id)
        for item, text, label, rule_id, manual in session.execute(query):
            outputs[item].append(_CountedOutput(text, rule_id if label in ("pass", "fail") else None, label, manual))
    return outputs


def _always_with(rule: ItemRule, item_rules: list[ItemRule], matched: dict[int, list[bool | None]]
                 ) -> tuple[int, ...]:
    """The other polarity's rules that match what ``rule`` matches, when every output it matches is also
    matched by one of them; () when it matches some output alone, or nothing."""
    mine = [index for index, hit in enumerate(matched.get(rule.id, [])) if hit]
    if not mine:
        return ()
    others = [other.id for other in item_rules if other.spec.polarity != rule.spec.polarity and other.id in matched]
    with_mine = [other for other in others if any(matched[other][index] for index in mine)]
    if all(any(matched[other][index] for other in with_mine) for index in mine):
        return tuple(with_mine)
    return ()
