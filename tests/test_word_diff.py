"""Word diffs for the review panel and QE pairs: the runs give both texts back and mark only what changed."""
from __future__ import annotations

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
