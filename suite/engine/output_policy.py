"""A suite's policy for degenerate outputs: empty ones, placeholders, and outputs identical to the source.

On DFKI de-en the UF system's ``####`` is 2,748 of the 4,016 unknown outputs: no rule will ever match it, and
reviewing it output by output is busywork. The policy decides such outputs once for the whole suite:

- ``empty_output``: what an empty output or a placeholder (one of the suite's placeholder texts, e.g. ``####``)
  gets: ``fail`` before any rule, or ``unknown``, which leaves it to the rules as any other output (none matches
  an empty output; a placeholder stays unknown unless a rule matches it);
- ``untranslated_output``: the same for an output identical to its item's source sentence (not translated).

A policy is part of every affected item's fingerprint (``suite.engine.rules.item_fingerprint``), so changing it relabels
the suite, and its decisions are made by the rule engine itself (``ItemMatcher``), before the rules: an untranslated
output that happens to contain a positive rule's name must not pass. Outputs are compared exactly as stored (a
system's output is stored stripped of surrounding whitespace; a source is compared without its surrounding spaces,
SQL's ``trim``), so that the database can find them too: Review's
filter of degenerate outputs and the counts below are queries that agree with the engine output for output.
The default (``unknown``, ``unknown``, no placeholders) changes no fingerprint: databases made before policies
existed keep every label.

An imported output with no letter at all (``####``, ``...``) is listed as a placeholder by the import itself while
the policy leaves placeholders to the rules (``suite.editing.suite_edit.list_letterless``): such a list decides no
label then, but keeps the outputs out of Review's impact order and pairs hints from the first import on.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, case, false, func, literal, or_, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session, aliased

from store import Database
from store.domain import Label
from store.models import POLICY_LABELS, Item, Output, OutputPlaceholder, StoredOutputPolicy
from store.text import nfc
from suite.changes import ANYWHERE, Changes
from suite.engine.rules import Decision
from suite.errors import TsqeError
from suite.suites import find_suite

EMPTY = Decision(Label.FAIL, None, "empty output", "empty output")
PLACEHOLDER = Decision(Label.FAIL, None, "placeholder output", "placeholder output")
UNTRANSLATED = Decision(Label.FAIL, None, "identical to the source (not translated)",
                        "identical to the source (not translated)")
MAX_PLACEHOLDER = 200
"""Characters a placeholder may have (what the database stores)."""


def letterless(text: str) -> bool:
    """An output with no letter of any script (``####``, ``...``, ``-``): what a system writes instead of a
    translation. Digits count as no letter: a sentence of a test suite is never translated by a number alone."""
    return bool(text) and len(text) <= MAX_PLACEHOLDER and not any(char.isalpha() for char in text)


EMPTY_OUTPUTS = "empty and placeholder outputs"
UNTRANSLATED_OUTPUTS = "outputs identical to the source"


def parse_policy_label(text: str, what: str) -> Label:
    """``text`` as the label a policy gives ``what`` (the outputs it decides), or the error that names the two."""
    if text not in POLICY_LABELS:
        raise TsqeError(f"{what} are labelled {' or '.join(POLICY_LABELS)}, not {text!r}")
    return Label(text)


@dataclass(frozen=True)
class OutputPolicy:
    """What a suite decides about its degenerate outputs (see the module docstring)."""

    empty_output: Label = Label.UNKNOWN
    untranslated_output: Label = Label.UNKNOWN
    placeholders: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # outputs and sources are stored NFC: a placeholder typed in another normal form must still find them
        object.__setattr__(self, "placeholders", tuple(dict.fromkeys(nfc(text) for text in self.placeholders)))
        parse_policy_label(self.empty_output, EMPTY_OUTPUTS)
        parse_policy_label(self.untranslated_output, UNTRANSLATED_OUTPUTS)
        for text in self.placeholders:
            if not text.strip():
                raise TsqeError("a placeholder cannot be empty (empty outputs are always degenerate)")
            if text != text.strip():
                raise TsqeError(f"a placeholder is compared with outputs stripped of surrounding spaces: "
                                f"{text!r} would never match one")
            if len(text) > MAX_PLACEHOLDER:
                raise TsqeError(f"a placeholder has at most {MAX_PLACEHOLDER} characters, not {len(text)}")

    @property
    def default(self) -> bool:
        return self == OutputPolicy()

    def decisions(self, source: str) -> dict[str, Decision]:
        """Output text -> the decision the policy makes for it, for an item with this source; the engine looks an
        output up here before trying any rule. Empty when the policy leaves everything to the rules."""
        found: dict[str, Decision] = {}
        if self.untranslated_output == "fail" and source.strip(" "):
            found[source.strip(" ")] = UNTRANSLATED
        if self.empty_output == "fail":
            found.update(dict.fromkeys(self.placeholders, PLACEHOLDER))
            found[""] = EMPTY
        return found

    def fingerprint(self, source: str) -> dict[str, Any] | None:
        """What of the policy decides an item's labels, for its fingerprint; None for the default policy, which
        leaves fingerprints as they were before policies existed."""
        if self.default:
            return None
        part: dict[str, Any] = {"empty": self.empty_output, "untranslated": self.untranslated_output}
        if self.empty_output != "unknown":
            part["placeholders"] = sorted(self.placeholders)
        if self.untranslated_output != "unknown":
            part["source"] = source.strip(" ")
        return part

    def describe(self) -> str:
        placeholders = ", ".join(repr(text) for text in self.placeholders) or "none"
        return (f"empty and placeholder outputs: {self.empty_output} (placeholders: {placeholders}); "
                f"outputs identical to the source: {self.untranslated_output}")

    def to_json(self) -> dict[str, Any]:
        """The fields as a history entry stores them."""
        return {"empty_output": self.empty_output, "untranslated_output": self.untranslated_output,
                "placeholders": list(self.placeholders)}


@dataclass(frozen=True)
class DegenerateCounts:
    """How many of a suite's distinct outputs are degenerate, by kind (an empty output is not a placeholder)."""

    empty: int = 0
    placeholder: int = 0
    untranslated: int = 0

    @property
    def total(self) -> int:
        return self.empty + self.placeholder + self.untranslated


POLICY_CHANGES = Changes(labels=ANYWHERE)
"""What setting a policy changes: any item's labels may move (it is in every affected item's fingerprint)."""


@dataclass(frozen=True)
class PolicyChange:
    """A policy set: the one before, the one now, the degenerate outputs it concerns and the labels after."""

    before: OutputPolicy
    after: OutputPolicy
    counts: DegenerateCounts
    labels: dict[str, int] = field(default_factory=dict)

    @property
    def changes(self) -> Changes:
        return POLICY_CHANGES if self.after != self.before else Changes()

    def summary(self) -> str:
        """What changed, in one line with the counts ("2,748 empty or placeholder outputs are now fail; …")."""
        counts, after = self.counts, self.after
        empty = counts.empty + counts.placeholder
        return (f"{empty:,} empty or placeholder output{'s' if empty != 1 else ''} "
                f"{_fate(after.empty_output)}; {counts.untranslated:,} output"
                f"{'s' if counts.untranslated != 1 else ''} identical to the source {_fate(after.untranslated_output)}")


def _fate(label: Label) -> str:
    return "fail" if label == "fail" else "left to the rules (unknown unless a rule matches)"


def read_policy(reader: Session | Connection, suite_id: int) -> OutputPolicy:
    """The suite's policy, read in the caller's session or connection (labelling plans on a bare connection)."""
    stored = reader.execute(select(StoredOutputPolicy.empty_output, StoredOutputPolicy.untranslated_output)
                            .where(StoredOutputPolicy.suite_id == suite_id)).first()
    placeholders = tuple(text for text, in reader.execute(
        select(OutputPlaceholder.text).where(OutputPlaceholder.suite_id == suite_id).order_by(OutputPlaceholder.text)))
    if stored is None:
        return OutputPolicy(placeholders=placeholders)
    return OutputPolicy(stored[0], stored[1], placeholders)


def output_policy(db: Database, suite_name: str | None = None) -> OutputPolicy:
    with db.session() as session:
        return read_policy(session, find_suite(session, suite_name).id)


def degenerate_output(suite_id: int) -> ColumnElement[bool]:
    """SQL: the output (``Output``) is empty, one of the suite's placeholders, or its item's source: the same
    comparisons as ``OutputPolicy.decisions``, whatever the policy decides about them."""
    item = aliased(Item)  # the query may join Item itself (to sort), which a plain subquery would correlate to
    return or_(Output.text == "",
               Output.text.in_(select(OutputPlaceholder.text).where(OutputPlaceholder.suite_id == suite_id)),
               Output.text == select(func.trim(item.source)).where(item.id == Output.item_id).scalar_subquery())


def count_degenerate(session: Session, suite_id: int, placeholders: Sequence[str] | None = None
                      ) -> DegenerateCounts:
    placeholder: ColumnElement[bool] = (
        Output.text.in_(select(OutputPlaceholder.text).where(OutputPlaceholder.suite_id == suite_id))
        if placeholders is None else Output.text.in_([nfc(text) for text in placeholders]) if placeholders else false())
    empty = Output.text == ""
    untranslated = Output.text == func.trim(Item.source)

    def count(condition: ColumnElement[bool]) -> ColumnElement[int]:
        return func.coalesce(func.sum(case((condition, 1), else_=0)), literal(0))

    row = session.execute(select(count(empty), count(placeholder & ~empty), count(untranslated & ~empty & ~placeholder))
                          .select_from(Output).join(Item, Item.id == Output.item_id)
                          .where(Item.suite_id == suite_id)).one()
    return DegenerateCounts(int(row[0]), int(row[1]), int(row[2]))


def degenerate_counts(db: Database, suite_name: str | None = None, placeholders: Sequence[str] | None = None
                      ) -> DegenerateCounts:
    """How many distinct outputs of the suite are empty, placeholders (the suite's, or ``placeholders``: what a
    list being edited would find) or identical to their source."""
    with db.session() as session:
        return count_degenerate(session, find_suite(session, suite_name).id, placeholders)
