"""Patterns that would exhaust the regex compiler are refused as too complex, wherever a pattern is compiled.

Each hostile pattern runs in a child process with bounded memory (``hostile_helpers``): without the bounds it
fails there with ``MemoryError`` (the 19-character pattern grew ``rule add`` to 21.7 GB), or with a
``RecursionError`` traceback (3,000 nested groups).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_helpers import bounded_tsqe, demo_copy, make_demo_file
from sqlalchemy import select

from store import open_database
from store.models import AutoLabel, Item, Output, Rule
from suite.engine.pattern_bounds import MAX_EXPANSION, MAX_NESTING, too_complex
from suite.engine.rules import compile_error, pattern_problem

EXPLODING = "(?:a{65535}){65535}"
NESTED = "(" * 3000 + "a" + ")" * 3000


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_demo_file(tmp_path_factory)


@pytest.mark.parametrize("pattern", [EXPLODING, NESTED, "(?:(?:a{100}){100}){100}", "a{1000}b{1000}",
                                     "(?V1)(?i)[\\p{Any}&&[^a]]{1000}", "x" * 20_000])
def test_a_hostile_pattern_is_too_complex_with_the_reason(pattern: str) -> None:
    problem = pattern_problem(pattern)
    assert problem is not None and problem.too_complex
    assert str(problem).startswith("pattern is too complex: ")
    error = compile_error(pattern)
    assert error is not None and error.startswith("too complex: ")


def test_the_reason_names_the_repeats_and_where_the_nesting_is() -> None:
    exploding = too_complex(EXPLODING)
    assert exploding is not None and exploding.position == 4
    assert "{65535} {65535}" in exploding.reason and f"{MAX_EXPANSION:,}" in exploding.reason
    nested = too_complex(NESTED)
    assert nested is not None and nested.position == MAX_NESTING and "nested 3,000 deep" in nested.reason


@pytest.mark.parametrize("pattern", [r"\bbank\b", r"\d{4}-\d{2}-\d{2}", r"(?:\w+\s+){0,3}bench",
                                     r"(?:a{0,65535}){0,65535}", "(" * MAX_NESTING + "a" + ")" * MAX_NESTING,
                                     r"\N{LATIN SMALL LETTER A}{3}", r"\(" * 150 + "x", r"(?i)\p{Lu}{2,}"])
def test_ordinary_patterns_compile(pattern: str) -> None:
    assert pattern_problem(pattern) is None


def test_every_pattern_of_the_dfki_suite_is_within_the_bounds(shared_data: Path) -> None:
    patterns: list[str] = []
    for pair in ("de-en", "en-de"):
        items = json.loads((shared_data / "mt-testsuite" / "testset" / pair / "items.json").read_text())["items"]
        for item in items:
            for key in ("positive_regex", "negative_regex"):
                value = item.get(key) or []
                patterns += [value] if isinstance(value, str) else value
    assert len(patterns) > 4000
    assert [pattern for pattern in patterns if too_complex(pattern) is not None] == []


@pytest.mark.parametrize("pattern", [EXPLODING, NESTED])
def test_rule_add_refuses_it_in_one_line_and_adds_nothing(pattern: str, demo_file: Path, tmp_path: Path) -> None:
    db = demo_copy(demo_file, tmp_path / "t.sqlite")
    result = bounded_tsqe(db, "rule", "add", "amb-01", "--positive", pattern)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.startswith("error: pattern is too complex: ") and result.stderr.count("\n") == 1
    database = open_database(db)
    try:
        with database.session() as session:
            assert session.scalar(select(Rule.id).where(Rule.pattern == pattern)) is None
    finally:
        database.close()


@pytest.mark.parametrize("strict", [False, True])
def test_import_suite_keeps_it_invalid_or_refuses_it_strictly(strict: bool, tmp_path: Path) -> None:
    suite = tmp_path / "suite.tsv"
    suite.write_text("id\tcategory\tphenomenon\tsource\tpositive_regex\n"
                     f"x-01\tC\tP\tDie Bank.\t{EXPLODING}\nx-02\tC\tP\tDas Schloss.\t{NESTED}\n"
                     "x-03\tC\tP\tDer Hund.\t\\bdog\\b\n", encoding="utf-8")
    db = tmp_path / "t.sqlite"
    result = bounded_tsqe(db, "import", "suite", str(suite), *(["--strict"] if strict else []))
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr
    if strict:
        assert result.returncode == 2
        assert f"{suite}:2: positive regex '{EXPLODING}' of item 'x-01': pattern is too complex" in result.stderr
        assert f"{suite}:3: positive regex" in result.stderr and "nested 3,000 deep" in result.stderr
        return
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"{suite}:2: warning: positive regex '{EXPLODING}' of item 'x-01' does not compile (too complex" \
        in result.stderr
    database = open_database(db)
    try:
        with database.session() as session:
            valid = dict(session.execute(select(Item.external_id, Rule.valid).join(Rule)).all())
    finally:
        database.close()
    assert valid == {"x-01": False, "x-02": False, "x-03": True}


def test_labelling_a_stored_hostile_rule_labels_error_instead_of_exhausting_memory(demo_file: Path,
                                                                                  tmp_path: Path) -> None:
    """A database written before the bounds holds the pattern as a valid rule: labelling (in process and in
    the workers alike, both through ``suite.engine.rules``) gives its outputs ``error`` with the reason."""
    db = demo_copy(demo_file, tmp_path / "t.sqlite")
    database = open_database(db)
    try:
        with database.transaction() as session:
            item_id = session.scalar(select(Item.id).where(Item.external_id == "amb-01"))
            session.add(Rule(item_id=item_id, polarity="positive", pattern=EXPLODING, valid=True, position=0))
    finally:
        database.close()
    result = bounded_tsqe(db, "label")
    assert result.returncode == 0, result.stderr[-2000:]
    database = open_database(db)
    try:
        with database.session() as session:
            reasons = set(session.scalars(select(AutoLabel.reason).join(Output).join(Item)
                                          .where(Item.external_id == "amb-01")))
    finally:
        database.close()
    assert len(reasons) == 1 and "is invalid: too complex" in reasons.pop()  # type: ignore[operator]


def test_the_preview_of_a_hostile_pattern_reports_it(demo_file: Path, tmp_path: Path) -> None:
    """``tsqe rule test`` previews through ``suite.engine.preview``, as the editor's live preview does."""
    db = demo_copy(demo_file, tmp_path / "t.sqlite")
    result = bounded_tsqe(db, "rule", "test", "amb-01", "--positive", EXPLODING)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.startswith("error: ") and "too complex" in result.stderr
    assert "Traceback" not in result.stderr
