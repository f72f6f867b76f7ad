"""Word diffs for the review panel and QE pairs: the runs give both texts back and mark only what changed; the
review panel reads an output against its nearest reference or known translation."""
from __future__ import annotations

from dataclasses import replace

from store import Database
from suite.demo import DEMO_SUITE, create_demo
from suite.editing.api import add_known, find_item
from suite.editing.item_detail import Nearest, item_detail, nearest_translation
from suite.word_diff import closest, word_diff


def test_runs_join_back_into_both_texts_and_mark_only_the_changed_words() -> None:
    old, new = "The bench on the riverbank was painted.", "The bank at the river shore was painted."
    runs = word_diff(old, new)
    assert "".join(run.old for run in runs) == old and "".join(run.new for run in runs) == new
    changed = [(run.old.strip(), run.new.strip()) for run in runs if not run.equal]
    assert ("bench", "bank") in changed and all("painted" not in old_text for old_text, _ in changed)


def test_closest_prefers_the_most_similar_candidate_and_the_first_of_equals() -> None:
    candidates = ["He kicked the bucket.", "He bit the dust.", "He bit the dust."]
    assert closest("He bit into the dust.", candidates) == 1
    assert closest("anything", []) is None


def test_an_output_is_read_against_its_nearest_reference_or_known_translation(db: Database) -> None:
    create_demo(db)
    item_id = find_item(db, "amb-01", DEMO_SUITE)
    add_known(db, item_id, "bad", "The bank at the river shore was painted.", author="test")
    item = item_detail(db, item_id)
    assert nearest_translation(item, "The bench on the riverbank had  been freshly painted.") == Nearest(
        "reference (standard)", "The bench on the riverbank had been freshly painted.", True)
    assert nearest_translation(item, "The bank at the river shore was fresh painted.") == Nearest(
        "known bad translation", "The bank at the river shore was painted.", False)
    assert nearest_translation(replace(item, references=[], known=[]), "anything") is None
