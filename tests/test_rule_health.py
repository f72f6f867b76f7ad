"""Rule health (``suite.assist.rule_health``) and the pattern slips it points out, on a small constructed suite:
matches, decisions, reviewers' overrides, rules that never fire or always conflict, and likely typos."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from assist_suites import build, suite_row
from reviewing import review_output
from typer.testing import CliRunner

from cli.main import app
from store import Database
from store.domain import Label
from suite.assist.pattern_slips import pattern_slips
from suite.assist.rule_health import RuleHealth, rule_health
from suite.editing.api import find_item
from suite.errors import TsqeError
from suite.reading.browse import OutputFilter, output_ids, output_rows
from suite.tables import render


def health_suite(directory: Path) -> Database:
    rows = [
        # bank: the positive rule decides 2, the negative 1; a reviewer overrides one pass
        suite_row("bank", "Die Bank war frisch gestrichen.", r"\bbench\b", r"\bbank\b", category="Ambiguity",
                  phenomenon="Lexical"),
        # always: every output "painted" matches is also matched by the negative rule
        suite_row("always", "Die Wand ist gestrichen.", r"\bpainted\b", r"\bwall\b", category="Ambiguity",
                  phenomenon="Lexical"),
        # slips: a leading space, a capital missing a lower-case start, \b on one alternative only
        suite_row("slips", "Sie würde gehen.", r"She would", r" went|goes\b", category="Verbs",
                  phenomenon="Conditional"),
        # dead: matches nothing
        suite_row("dead", "Er läuft.", r"\bruns\b", r"\bwalked\b", category="Verbs", phenomenon="Present"),
    ]
    outputs = [("bank", "The bench was freshly painted."), ("bank", "The bench had been painted."),
               ("bank", "The bank was freshly painted."),
               ("always", "The wall is painted."), ("always", "The wall has been painted."),
               ("always", "The wall is white."),
               ("slips", "she would go."), ("slips", "She would go."), ("slips", "He goes."),
               ("dead", "He runs."), ("dead", "He is running.")]
    return build(directory, rows, outputs)


def by_rule(rules: list[RuleHealth]) -> dict[tuple[str, str], RuleHealth]:
    return {(rule.external_id, rule.polarity): rule for rule in rules}


def output_id(db: Database, text: str) -> int:
    return next(row.output_id for row in output_rows(db, output_ids(db, OutputFilter(), suite_name="assist"))
                if row.text == text)


def test_matches_decisions_and_the_reviewers_who_overrode_them(tmp_path: Path) -> None:
    db = health_suite(tmp_path)
    review_output(db, output_id(db, "The bench had been painted."), Label.FAIL, "reviewer")  # overrides a pass
    review_output(db, output_id(db, "The bench was freshly painted."), Label.PASS, "reviewer")  # confirms one
    report = rule_health(db, "assist")
    bank = by_rule(report.rules)
    positive, negative = bank["bank", "positive"], bank["bank", "negative"]
    assert (positive.outputs, positive.matches, positive.decisions, positive.reviewed, positive.overridden) == \
        (3, 2, 2, 2, 1)
    assert positive.precision == 0.5 and report.problems(positive) == [
        "reviewers overrode 1 of its 2 reviewed decisions"]
    assert (negative.matches, negative.decisions, negative.reviewed, negative.precision) == (1, 1, 0, None)
    assert not negative.dead and report.problems(negative) == []


def test_rules_that_match_nothing_or_always_conflict(tmp_path: Path) -> None:
    report = rule_health(health_suite(tmp_path), "assist")
    rules = by_rule(report.rules)
    dead = rules["dead", "negative"]
    assert dead.dead and report.problems(dead) == ["matches none of the item's 2 outputs"] and not dead.serious
    assert not rules["dead", "positive"].dead
    painted, wall = rules["always", "positive"], rules["always", "negative"]
    assert painted.conflicts_with == (wall.rule_id,) and painted.serious
    assert report.problems(painted) == ["always fires together with negative rule 1: every match is a conflict"]
    assert wall.conflicts_with == ()  # "The wall is white." fails by it alone
    assert (painted.decisions, painted.matches, wall.decisions, wall.matches) == (0, 2, 1, 3)


def test_likely_slips_in_the_patterns(tmp_path: Path) -> None:
    rules = by_rule(rule_health(health_suite(tmp_path), "assist").rules)
    assert [str(slip) for slip in rules["slips", "positive"].slips] == [
        "starts with a capital: misses 1 output that begins with s (tick ignore case, or write [Ss]) (at 0)"]
    assert [slip.kind for slip in rules["slips", "negative"].slips] == ["space", "boundary-alternation"]


@pytest.mark.parametrize(("pattern", "kinds"), [
    (r"e.g. this", ["dot"]),
    (r"U\.S\. army|Mr. Smith", []),
    (r"[\b]man", ["class-boundary"]),
    (r"[A-z]+ing", ["range"]),
    (r"a||b", ["empty-alternative"]),
    (r"smell(|s|ing) good", ["empty-alternative"]),
    (r"\bman|guy\b", ["boundary-alternation"]),
    (r"\b[Yy]ou\b|\b[Tt]hey\b", []),
    (r"\b[Yy]ou\b|[Tt]hey\b", ["boundary-alternation"]),
    (r"^(A|One) single guest\b|\bevery guest\b", []),  # an anchor is a boundary too
    (r"(?i)\bdog\b|\bcat\b", []),
    (r"\bsells\s*\.?$|\bsold\b", []),
    (r"\bdone\b|\?", []),  # punctuation needs no boundary
    (r"((gentle)?m[ae]n\b|guy)", []),
    (r"Would you like.*\?", []),
    (r"man ", ["space"]),
    (r"(unbalanced", []),  # does not compile: an error, not a slip
])
def test_pattern_slips(pattern: str, kinds: list[str]) -> None:
    assert [slip.kind for slip in pattern_slips(pattern)] == kinds


def test_case_slips_come_from_the_outputs() -> None:
    assert pattern_slips("the cat", outputs=["The cat sat.", "Then the cat sat."])[0].message.startswith(
        "starts with a small letter: misses 1 output that begins with T")
    assert pattern_slips("the cat", ignore_case=True, outputs=["The cat sat."]) == []
    assert pattern_slips("She would", outputs=["She would go."]) == []
    [inside] = pattern_slips(r"\bnot techno\b", outputs=["I like Jazz, but not Techno.",
                                                          "I like jazz, but not techno."])
    assert str(inside) == "misses 1 output that differs from it only in upper or lower case (tick ignore case)"


def test_scopes_sorting_and_the_table(tmp_path: Path) -> None:
    db = health_suite(tmp_path)
    assert {rule.external_id for rule in rule_health(db, "assist", category="Verbs").rules} == {"slips", "dead"}
    assert {rule.external_id for rule in rule_health(db, "assist", phenomenon="Lexical").rules} == {"bank", "always"}
    one = rule_health(db, "assist", item_id=find_item(db, "dead", "assist"))
    assert one.scope == "item dead" and len(one.rules) == 2
    report = rule_health(db, "assist")
    assert [rule.matches for rule in report.sorted("matches")][:2] == [3, 2]
    with pytest.raises(TsqeError, match="rules are listed by one of item, matches"):
        report.sorted("nonsense")
    table = report.to_table()
    assert table.title == "Rule health: suite assist" and len(table.body) == 8
    assert table.notes[0] == ("8 rules: 1 matches nothing, 1 always fires with a rule of the other polarity, 0 were "
                              "overridden by reviewers, 2 look mistyped.")
    rows = list(csv.DictReader(io.StringIO(render(table, "csv"))))
    assert rows[0]["item"] == "bank" and rows[0]["rule"] == "positive rule 1" and rows[0]["precision"] == ""


def test_rules_health_on_the_command_line(tmp_path: Path) -> None:
    db = health_suite(tmp_path)
    review_output(db, output_id(db, "The bench had been painted."), Label.FAIL, "reviewer")
    database = str(tmp_path / "tsqe.sqlite")
    shown = CliRunner().invoke(app, ["--db", database, "rules", "health", "--problems", "--sort", "overridden",
                                     "--format", "json"])
    assert shown.exit_code == 0, shown.output
    document = json.loads(shown.stdout)
    names = [column["name"] for column in document["columns"]]
    first = dict(zip(names, (cell["value"] for cell in document["body"][0])))
    assert (first["item"], first["rule"], first["overridden"], first["precision"]) == \
        ("bank", "positive rule 1", 1, 0.0)
    assert first["problems"] == "reviewers overrode 1 of its 1 reviewed decisions"
    out = tmp_path / "health.md"
    written = CliRunner().invoke(app, ["--db", database, "rules", "health", "--category", "Verbs", "--out", str(out)])
    assert written.exit_code == 0, written.output
    assert out.read_text(encoding="utf-8").count("| slips ") == 2
    wrong = CliRunner().invoke(app, ["--db", database, "rules", "health", "--sort", "colour"])
    assert wrong.exit_code == 2 and "--sort is one of" in wrong.output


def test_compiled_rules_leave_the_rule_health_nothing_to_compile(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """What the window compiles in the background once a suite is open is all its rule health compiles: every
    valid pattern as it is and case-folded (the case slip), so the report shown later only counts."""
    import regex

    from suite.assist.rule_health import compile_rules
    from suite.engine.rules import _compile

    db = health_suite(tmp_path)
    before = rule_health(db, "assist")
    _compile.cache_clear()
    compiled: list[tuple[str, int]] = []
    real = regex.compile

    def counted(pattern: str, flags: int = 0, **kwargs: Any) -> regex.Pattern[str]:
        compiled.append((pattern, flags))
        return real(pattern, flags, **kwargs)

    monkeypatch.setattr(regex, "compile", counted)
    assert compile_rules(db, "assist") == 16  # the 8 rules' patterns, each as it is and case-folded
    assert len(compiled) == 16
    compiled.clear()
    after = rule_health(db, "assist")
    assert compiled == []
    assert after == before
