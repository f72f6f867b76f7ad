"""Renaming a suite, setting its languages and its policy for degenerate outputs: edits of the suite itself, each
with an entry in its history (entity ``suite``, no item), like the renames of its categories and phenomena
(``suite.editing.taxonomy``). What a policy decides is the rule engine's (``suite.engine.output_policy``)."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from store import Database
from store.models import OutputPlaceholder, StoredOutputPolicy, Suite
from suite.changes import Changes
from suite.editing.history import Change, check_author, record
from suite.engine.labelling import relabel
from suite.engine.output_policy import (
    POLICY_CHANGES,
    OutputPolicy,
    PolicyChange,
    count_degenerate,
    letterless,
    read_policy,
)
from suite.tasks import TaskState, progress_of

if TYPE_CHECKING:
    from suite.editing.undoable_edits import Ledger
from suite.errors import TsqeError
from suite.suites import LANGUAGE, SuiteInfo, find_suite


def set_languages(db: Database, source_lang: str | None, target_lang: str | None, *,
                  suite_name: str | None = None, author: str) -> SuiteInfo:
    """Set the suite's source and/or target language (``None`` keeps one as it is); a change is in the
    suite's history.

    Languages are what metrics and human scores are matched by, so a suite imported from a table that did
    not name them gets them here; changing a known language is allowed too (a mislabelled import).
    """
    author = check_author(author)
    given = {"source": source_lang, "target": target_lang}
    codes = {side: code.strip().lower() for side, code in given.items() if code is not None}
    bad = [f"{side} language {given[side]!r}" for side, code in codes.items() if not LANGUAGE.match(code)]
    if bad:
        raise TsqeError(f"{' and '.join(bad)} is not a language code such as 'de', 'en' or 'pt-br'")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        change_languages(session, suite, codes.get("source", suite.source_lang), codes.get("target", suite.target_lang),
                         author)
        return SuiteInfo.of(suite)


def change_languages(session: Session, suite: Suite, source_lang: str, target_lang: str, author: str) -> None:
    """Store the suite's languages (checked codes, or ``UNKNOWN_LANGUAGE``) in the caller's transaction, with a
    history entry when they change (also when an updating import fills in unknown ones)."""
    before = {"source_lang": suite.source_lang or None, "target_lang": suite.target_lang or None}
    suite.source_lang, suite.target_lang = source_lang, target_lang
    after = {"source_lang": source_lang or None, "target_lang": target_lang or None}
    if after != before:
        record(session, [Change(suite.id, None, "suite", suite.id, "change", author, before, after, None)])


def rename_suite(db: Database, new_name: str, *, suite_name: str | None = None, author: str) -> SuiteInfo:
    """Give the suite another name (suites are chosen by name, so it must be free); in the suite's history."""
    author = check_author(author)
    new_name = new_name.strip()
    if not new_name:
        raise TsqeError("a suite needs a non-empty name")
    if len(new_name) > 200:
        raise TsqeError(f"a suite name has at most 200 characters, not {len(new_name)}")
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        if new_name == suite.name:
            return SuiteInfo.of(suite)
        if session.scalar(select(Suite.id).where(Suite.name == new_name)) is not None:
            raise TsqeError(f"a suite named {new_name!r} exists already")
        record(session, [Change(suite.id, None, "suite", suite.id, "rename", author, {"name": suite.name},
                                {"name": new_name}, None)])
        suite.name = new_name
        return SuiteInfo.of(suite)


def set_output_policy(db: Database, policy: OutputPolicy, *, suite_name: str | None = None, author: str,
                      task: TaskState | None = None) -> PolicyChange:
    """Store the suite's policy (an entry in its history, with the policy before) and relabel what it changes.

    Storing is one transaction and labelling another, as after an import: a labelling cancelled or failed
    leaves the policy stored and the affected items' fingerprints stale, so the next labelling (F5, ``tsqe
    label``) decides them. Setting the policy it had back is how a change is undone.
    """
    author = check_author(author)
    task = progress_of(task)
    with db.transaction() as session:
        suite = find_suite(session, suite_name)
        name = suite.name
        before = read_policy(session, suite.id)
        if policy != before:
            _store(session, suite.id, policy)
            record(session, [Change(suite.id, None, "suite", suite.id, "change", author, before.to_json(),
                                    policy.to_json(), None)])
        counts = count_degenerate(session, suite.id)
    labels = relabel(db, name, task=task) if policy != before else {}
    return PolicyChange(before, policy, counts, labels)


def list_letterless(session: Session, suite_id: int, texts: Iterable[str], author: str) -> tuple[str, ...]:
    """Add the outputs among ``texts`` that have no letter (``suite.engine.output_policy.letterless``) to the
    suite's placeholders, in the caller's transaction (an import's), with an entry in its history; the texts
    added, in order.

    Only while the policy leaves placeholders to the rules: the list then changes no label and no fingerprint,
    only what Review counts as degenerate (on DFKI de-en, freshly imported, 11 ``####`` filled the top of the
    impact order, each with "+8 if pass"). A suite that fails its placeholders has a list its linguist keeps:
    adding to it would relabel every item under an import."""
    before = read_policy(session, suite_id)
    if before.empty_output != "unknown":
        return ()
    new = tuple(text for text in dict.fromkeys(texts) if letterless(text) and text not in before.placeholders)
    if not new:
        return ()
    after = OutputPolicy(before.empty_output, before.untranslated_output, before.placeholders + new)
    _store(session, suite_id, after)
    record(session, [Change(suite_id, None, "suite", suite_id, "change", author, before.to_json(), after.to_json(),
                            None)])
    return new


def _store(session: Session, suite_id: int, policy: OutputPolicy) -> None:
    session.execute(delete(StoredOutputPolicy).where(StoredOutputPolicy.suite_id == suite_id))
    session.execute(delete(OutputPlaceholder).where(OutputPlaceholder.suite_id == suite_id))
    session.execute(insert(StoredOutputPolicy).values(suite_id=suite_id, empty_output=policy.empty_output,
                                                untranslated_output=policy.untranslated_output))
    if policy.placeholders:
        session.execute(insert(OutputPlaceholder), [{"suite_id": suite_id, "text": text}
                                                    for text in dict.fromkeys(policy.placeholders)])


@dataclass(frozen=True)
class SetOutputPolicy:
    """Setting a suite's policy as an undoable edit value (``suite.editing.undoable_edits.Edit``): undone by setting the
    policy before back, which relabels the suite again."""

    suite: str
    policy: OutputPolicy
    before: OutputPolicy

    def apply(self, db: Database, author: str, ledger: Ledger) -> SetOutputPolicy:
        set_output_policy(db, self.policy, suite_name=self.suite, author=author)
        return SetOutputPolicy(self.suite, self.before, self.policy)

    def summary(self) -> str:
        return "set the policy for degenerate outputs"

    def changes(self) -> Changes:
        return POLICY_CHANGES
