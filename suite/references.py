"""Reference sets: which references a metric compares outputs with, and the one read every metric uses.

A reference belongs to a named set (``wmt``, ``ar``, ``wmt.p``, ``A``...) and has a kind (``standard``,
``paraphrase``). Freitag et al. (2020, "BLEU might be Guilty but References are not Innocent") show that the
reference set decides a metric's verdict as much as the metric does, so every metric takes a
:class:`RefChoice`:

- the default: every reference of kind ``standard``, pooled per item (a suite's references stored before
  sets existed are all in it). It adds nothing to a score's signature, so scores cached before sets existed
  keep their signature and their figures;
- one set (``wmt.p``): single-reference scores against that set;
- sets joined by ``+`` (``ar+wmt``) with a combination: ``multi``, the metric's own multi-reference form
  over the pooled references (sacrebleu's multi-reference BLEU/chrF/TER, bert_score's maximum); ``max``, the
  best of the single-set scores (the maximum, or the minimum for a lower-is-better metric such as TER);
  ``mean``, their mean;
- ``known-good``: the items' known good translations as references (:data:`KNOWN_GOOD`), for a suite
  written with known translations and no references (issue 16: the next step a metric needing references
  offers on such a suite). It may be joined with sets like any other.

An item without a reference in the chosen sets is left out of that choice's scores (and counted where a
table reports it). Importers write a named set through :func:`add_reference_set`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from store import Database
from store.domain import NameKind
from store.models import STANDARD_REFERENCE, Item, KnownTranslation, Reference
from store.names import check_name
from suite.domain import Combine
from suite.errors import TsqeError
from suite.lists import comma_list
from suite.suites import find_suite

COMBINATIONS: tuple[Combine, ...] = tuple(Combine)
KNOWN_GOOD = "known-good"
"""The choice of the items' known good translations as references; no set may take this name."""
DEFAULT = "default"
"""The default choice as an entry is written (``--refs default``, a table's refs column); no set takes it."""
JOIN = "+"
SET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def is_set_name(name: str) -> bool:
    """Whether ``name`` can name a reference set: letters, digits, ``.``, ``_``, ``-`` (``+`` joins sets and
    ``,`` lists entries on the command line, ``|`` and ``:`` separate a signature's fields), and not a name that
    means a choice (``known-good``, ``default``)."""
    return SET_NAME.match(name) is not None and name not in (KNOWN_GOOD, DEFAULT)


def check_set_name(name: str) -> str:
    """``name`` (blanks around it stripped) if it can name a reference set (``store.names.check_name``, then
    :func:`is_set_name`), else an error saying what can."""
    name = check_name(name, NameKind.REFERENCE_SET).text if name.strip() else name
    if name in (KNOWN_GOOD, DEFAULT):
        meaning = "the items' known good translations" if name == KNOWN_GOOD else "the default reference choice"
        raise TsqeError(f"{name!r} names {meaning}; choose another set name")
    if not is_set_name(name):
        raise TsqeError(f"{name!r} cannot name a reference set: use letters, digits, '.', '_' and '-' "
                        "(at most 100, starting with a letter or digit)")
    return name


@dataclass(frozen=True)
class RefChoice:
    """One entry of a reference choice: no sets (the default), one set, or sets joined with a combination.

    ``combine`` only matters for joined sets; a single set is always ``multi`` (the metric's own form over
    the set's references), so ``wmt.p`` has one signature whatever combination was asked for.
    """

    sets: tuple[str, ...] = ()
    combine: Combine = Combine.MULTI

    def __post_init__(self) -> None:
        if len(self.sets) < 2 and self.combine != Combine.MULTI:
            object.__setattr__(self, "combine", Combine.MULTI)

    @classmethod
    def default(cls) -> RefChoice:
        return cls()

    @classmethod
    def parse(cls, entry: str | None, combine: str = "multi") -> RefChoice:
        """``None``, blank or ``default``: the default; ``wmt.p``; ``ar+wmt`` (``combine`` says how)."""
        if combine not in COMBINATIONS:
            raise TsqeError(f"references are combined by {', '.join(COMBINATIONS)}, not {combine!r}")
        if entry is None or not entry.strip() or entry.strip() == DEFAULT:
            return cls()
        names = [name.strip() for name in entry.split(JOIN)]
        for name in names:
            if name != KNOWN_GOOD:
                check_set_name(name)
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise TsqeError(f"reference set(s) {', '.join(repeated)} named twice in {entry!r}")
        return cls(tuple(names), Combine(combine))

    @property
    def is_default(self) -> bool:
        return not self.sets

    @property
    def label(self) -> str:
        """The entry as a user writes it (``ar+wmt``); ``default`` for the default."""
        return JOIN.join(self.sets) if self.sets else DEFAULT

    def describe(self) -> str:
        """Words for a table's note."""
        if not self.sets:
            return "every reference of kind standard, pooled"
        if self.sets == (KNOWN_GOOD,):
            return "the items' known good translations"
        if len(self.sets) == 1:
            return f"reference set {self.sets[0]}"
        how = {"multi": "the metric's multi-reference form", "max": "the best single-set score",
               "mean": "the mean of the single-set scores"}[self.combine]
        return f"reference sets {', '.join(self.sets)} joined: {how}"

    def signature_fields(self) -> tuple[tuple[str, str], ...]:
        """``refs:`` and ``combine:`` for a score's signature; nothing for the default."""
        return () if self.is_default else (("refs", self.label), ("combine", self.combine))

    def singles(self) -> list[RefChoice]:
        """Each set of the entry on its own, as ``max`` and ``mean`` combine them."""
        return [RefChoice((name,)) for name in self.sets]

    def scored(self) -> list[RefChoice]:
        """What a metric scores for this entry: the entry itself in the metric's own multi-reference form, else
        each set on its own, for ``max`` or ``mean`` to join (``filters.metrics.statistics.combine``)."""
        return [self] if self.combine == Combine.MULTI else self.singles()


def parse_ref_entries(text: str | None, combine: str = "multi") -> list[RefChoice]:
    """Entries listed with commas (``wmt,ar,ar+wmt``), each parsed by :meth:`RefChoice.parse`; none: the
    default alone."""
    if text is None or not text.strip():
        return [RefChoice.default()]
    entries = [RefChoice.parse(part, combine) for part in comma_list(text)]
    if not entries:
        raise TsqeError(f"no reference set named in {text!r}")
    return list(dict.fromkeys(entries))


@dataclass(frozen=True)
class ReferenceSet:
    """A suite's reference set as ``tsqe references`` lists it."""

    name: str
    kinds: tuple[str, ...]
    references: int
    items: int
    """Items with at least one reference in the set."""


def reference_sets(session: Session, suite_id: int) -> list[ReferenceSet]:
    """The suite's sets by name, with their kinds, counts and the items they cover."""
    rows = session.execute(
        select(Reference.set_name, Reference.kind, func.count(), func.count(func.distinct(Reference.item_id)))
        .join(Item, Item.id == Reference.item_id).where(Item.suite_id == suite_id)
        .group_by(Reference.set_name, Reference.kind)).all()
    kinds: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    for name, kind, count, _ in rows:
        kinds.setdefault(name, []).append(kind)
        counts[name] = counts.get(name, 0) + count
    covered = dict(session.execute(
        select(Reference.set_name, func.count(func.distinct(Reference.item_id)))
        .join(Item, Item.id == Reference.item_id).where(Item.suite_id == suite_id)
        .group_by(Reference.set_name)).all())
    return [ReferenceSet(name, tuple(sorted(kinds[name])), counts[name], covered[name]) for name in sorted(kinds)]


@dataclass(frozen=True)
class ReferenceChoices:
    """What a front-end offers as reference choices for a suite: its sets, and the known good translations."""

    sets: list[ReferenceSet]
    standard_items: int
    """Items with a reference of kind standard: what the default choice covers."""
    known_good_items: int

    def entries(self) -> list[RefChoice]:
        """The default (when it covers anything), each set alone, then ``known-good`` (when any item has one)."""
        entries = [RefChoice.default()] if self.standard_items else []
        entries += [RefChoice((s.name,)) for s in self.sets]
        return entries + ([RefChoice((KNOWN_GOOD,))] if self.known_good_items else [])


def reference_choices(db: Database, suite_name: str | None = None) -> ReferenceChoices:
    with db.session() as session:
        suite_id = find_suite(session, suite_name).id
        standard = session.scalar(select(func.count(func.distinct(Reference.item_id)))
                                  .join(Item, Item.id == Reference.item_id)
                                  .where(Item.suite_id == suite_id, Reference.kind == STANDARD_REFERENCE))
        good = session.scalar(select(func.count(func.distinct(KnownTranslation.item_id)))
                              .join(Item, Item.id == KnownTranslation.item_id)
                              .where(Item.suite_id == suite_id, KnownTranslation.kind == "good"))
        return ReferenceChoices(reference_sets(session, suite_id), int(standard or 0), int(good or 0))


def references_of(session: Session, suite_id: int, choice: RefChoice) -> dict[int, list[str]]:
    """Each item's references under ``choice``, for a metric: :func:`read_references`, refusing a choice that
    gives no item a reference with the next step (the known good translations, or importing references)."""
    found = read_references(session, suite_id, choice)
    if not found:
        if choice.is_default:
            raise TsqeError(_no_references(session, suite_id))
        raise TsqeError(f"no item of this suite has a reference under {choice.describe()}")
    return found


def read_references(session: Session, suite_id: int, choice: RefChoice) -> dict[int, list[str]]:
    """Each item's references under ``choice`` (by item id; the chosen sets pooled in the order named, each
    set's references in the order they were stored); items without one are absent. A set the suite does not
    have is an error naming the sets it has."""
    if choice.is_default:
        return _grouped(session.execute(
            select(Reference.item_id, Reference.text).join(Item, Item.id == Reference.item_id)
            .where(Item.suite_id == suite_id, Reference.kind == STANDARD_REFERENCE).order_by(Reference.id)))
    _check_sets_exist(session, suite_id, choice.sets)
    pooled: dict[int, list[str]] = {}
    for name in choice.sets:
        for item_id, texts in _set_texts(session, suite_id, name).items():
            pooled.setdefault(item_id, []).extend(texts)
    return pooled


def add_reference_set(session: Session, suite_id: int, name: str, kind: str,
                      texts_by_item: Mapping[int, Sequence[str]]) -> int:
    """Add the reference set ``name`` of ``kind`` (references by item id, in order) to the suite; returns how
    many references were written. A name the suite's sets already use is refused: a set is added whole."""
    rows = reference_rows(check_new_reference_set(session, suite_id, name, kind), kind, texts_by_item.items())
    if rows:
        session.execute(insert(Reference), rows)
    return len(rows)


def check_new_reference_set(session: Session, suite_id: int, name: str, kind: str) -> str:
    """The set's name as stored, after checking it and ``kind``, and that the suite has no set of that name."""
    name = check_set_name(name)
    if not kind.strip() or len(kind) > 40:
        raise TsqeError("the kind of a reference set must be 1 to 40 characters long")
    existing = session.scalar(select(func.count()).select_from(Reference).join(Item, Item.id == Reference.item_id)
                              .where(Item.suite_id == suite_id, Reference.set_name == name))
    if existing:
        raise TsqeError(f"this suite already has a reference set {name!r} ({existing} references); choose "
                        "another name")
    return name


def reference_rows(name: str, kind: str, texts_by_item: Iterable[tuple[int, Sequence[str]]]) -> list[dict[str, object]]:
    """The rows of a checked set's references (``check_new_reference_set``), by item id, in order."""
    return [{"item_id": item_id, "text": text, "kind": kind, "set_name": name}
            for item_id, texts in texts_by_item for text in texts]


@dataclass(frozen=True)
class ComposedSet:
    """A set composed per item from others (Freitag et al.'s HQ()): which source won how many items."""

    name: str
    kind: str
    sources: tuple[str, ...]
    picked: dict[str, int]
    ties: int
    """Items whose best rating several sources shared; the first named of them won."""

    @property
    def items(self) -> int:
        return sum(self.picked.values())


def compose_reference_set(session: Session, suite_id: int, name: str, sources: Sequence[str],
                          ratings: Mapping[int, Mapping[str, float]], *, kind: str | None = None,
                          higher_is_better: bool = True, rated_by: str = "the ratings") -> ComposedSet:
    """Add the set ``name`` taking, per item, the references of the best-rated of ``sources`` that has one
    (ties to the first named; an item only one source covers takes that one unrated).

    ``ratings[item id][set]`` rates each source's reference of the item; every item two or more sources
    cover needs a rating for each of them, else nothing is written and the error names the first items
    missing one. The kind is ``kind``, or the sources' kind when they share one, else ``standard``.
    """
    if len(sources) < 2 or len(set(sources)) != len(sources):
        raise TsqeError("composing a reference set needs two or more different sets to choose from")
    _check_sets_exist(session, suite_id, sources)
    texts = {source: _set_texts(session, suite_id, source) for source in sources}
    sign = 1.0 if higher_is_better else -1.0
    chosen: dict[int, list[str]] = {}
    picked = dict.fromkeys(sources, 0)
    ties = 0
    missing: list[str] = []
    items = session.execute(select(Item.id, Item.external_id).where(Item.suite_id == suite_id)
                            .order_by(Item.position, Item.id)).all()
    external = dict(items)
    covered = {item for by_item in texts.values() for item in by_item}
    for item_id in (item for item, _ in items if item in covered):
        candidates = [source for source in sources if item_id in texts[source]]
        rated = ratings.get(item_id, {})
        if len(candidates) > 1 and any(source not in rated for source in candidates):
            unrated = [source for source in candidates if source not in rated]
            missing.append(f"item {external[item_id]} ({', '.join(unrated)})")
            continue
        winner = candidates[0]
        for source in candidates[1:]:
            if sign * rated[source] > sign * rated[winner]:
                winner = source
        if len(candidates) > 1 and sum(rated[source] == rated[winner] for source in candidates) > 1:
            ties += 1
        chosen[item_id] = texts[winner][item_id]
        picked[winner] += 1
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise TsqeError(f"{rated_by} miss a rating of a reference for {'; '.join(missing[:5])}{more}: every "
                        "reference of an item that several sets cover needs one")
    if kind is None:
        kinds = {k for info in reference_sets(session, suite_id) if info.name in sources for k in info.kinds}
        kind = kinds.pop() if len(kinds) == 1 else STANDARD_REFERENCE
    add_reference_set(session, suite_id, name, kind, chosen)
    return ComposedSet(name, kind, tuple(sources), picked, ties)


def _grouped(rows: Iterable[Any]) -> dict[int, list[str]]:
    grouped: dict[int, list[str]] = {}
    for item_id, text in rows:
        grouped.setdefault(item_id, []).append(text)
    return grouped


def _set_texts(session: Session, suite_id: int, name: str) -> dict[int, list[str]]:
    if name == KNOWN_GOOD:
        return _grouped(session.execute(
            select(KnownTranslation.item_id, KnownTranslation.text).join(Item, Item.id == KnownTranslation.item_id)
            .where(Item.suite_id == suite_id, KnownTranslation.kind == "good").order_by(KnownTranslation.id)))
    return _grouped(session.execute(
        select(Reference.item_id, Reference.text).join(Item, Item.id == Reference.item_id)
        .where(Item.suite_id == suite_id, Reference.set_name == name).order_by(Reference.id)))


def _check_sets_exist(session: Session, suite_id: int, names: Sequence[str]) -> None:
    known = {s.name for s in reference_sets(session, suite_id)}
    missing = [name for name in names if name not in known and name != KNOWN_GOOD]
    if missing:
        raise TsqeError(f"this suite has no reference set {', '.join(map(repr, missing))} "
                        + (f"(its sets: {', '.join(sorted(known))})" if known else "(it has no references)"))
    if KNOWN_GOOD in names and session.scalar(
            select(func.count()).select_from(KnownTranslation).join(Item, Item.id == KnownTranslation.item_id)
            .where(Item.suite_id == suite_id, KnownTranslation.kind == "good")) == 0:
        raise TsqeError("no item of this suite has a known good translation to use as a reference")


def _no_references(session: Session, suite_id: int) -> str:
    sets = reference_sets(session, suite_id)
    if sets:
        return (f"no reference of this suite is of kind {STANDARD_REFERENCE}, which metrics use by default; "
                f"choose one of its reference sets ({', '.join(s.name for s in sets)})")
    good = session.scalar(select(func.count(func.distinct(KnownTranslation.item_id)))
                          .join(Item, Item.id == KnownTranslation.item_id)
                          .where(Item.suite_id == suite_id, KnownTranslation.kind == "good"))
    step = (f"use the items' known good translations as references (reference choice {KNOWN_GOOD}: {good} items "
            "have one) or import references" if good else "import references for it")
    return f"this suite has no references: {step}"
