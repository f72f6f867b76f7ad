"""Reference sets: the choice every metric takes, its signature, and the default that keeps today's figures."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
import pytest
from migration_helpers import at_revision
from sqlalchemy import insert, select, text
from suite_builder import add_reference_set as add_set
from suite_builder import build_suite

from filters.metrics import get_metric
from filters.metrics.cache import store_scores
from filters.scoring import score_outputs
from store import Database, open_database
from store.models import Item, KnownTranslation, MetricScore, Output, Reference, Suite
from suite.domain import Combine
from suite.errors import TsqeError
from suite.references import RefChoice, add_reference_set, parse_ref_entries, reference_sets, references_of

if TYPE_CHECKING:
    from typer.testing import Result

WMT = ["The cat sat on the mat.", "He went home early.", "It rained all day."]
AR = ["A cat was sitting on the mat.", "He left for home early.", None]  # item 3 has no AR reference
OUTPUTS = {"sysA": ["The cat sat on the mat.", "He went home early.", "It rained the whole day."],
           "sysB": ["A cat was sitting on the mat.", "He went home.", "It was raining all day."]}


def _suite_with_sets(db: Database) -> None:
    """Items 1-3 with the WMT reference (kind standard, set ``standard`` as written without a set name) and
    the set ``ar`` (standard) missing item 3, and ``wmt.p`` (paraphrase) on item 1 only."""
    build_suite(db, "t", [[ref] for ref in WMT], OUTPUTS)
    add_set(db, "ar", "standard", AR)
    add_set(db, "wmt.p", "paraphrase", ["On the mat sat the cat."])


def _chrf(hypothesis: str, references: list[str]) -> float:
    return float(get_metric("chrf").score([hypothesis], [references])[0])


def test_parse_entries_and_signature_fields() -> None:
    assert RefChoice.parse(None).is_default and RefChoice.parse(" ").signature_fields() == ()
    assert RefChoice.parse("wmt.p", "max") == RefChoice(("wmt.p",), Combine.MULTI)  # one set: no combination
    joined = RefChoice.parse("ar+wmt", "max")
    assert joined.sets == ("ar", "wmt") and joined.label == "ar+wmt"
    assert joined.signature_fields() == (("refs", "ar+wmt"), ("combine", "max"))
    assert [e.label for e in parse_ref_entries("wmt,ar, ar+wmt")] == ["wmt", "ar", "ar+wmt"]
    assert parse_ref_entries(None) == [RefChoice.default()] == [RefChoice.parse("default")]
    assert RefChoice.default().label == "default"
    for bad, message in (("ar+ar", "named twice"), ("a b", "cannot name a reference set"),
                         ("wmt|x", "cannot name"), ("+ar", "cannot name")):
        with pytest.raises(TsqeError, match=message):
            RefChoice.parse(bad)
    with pytest.raises(TsqeError, match="combined by multi, max, mean, not 'sum'"):
        RefChoice.parse("ar+wmt", "sum")


def test_sets_are_listed_with_kinds_counts_and_coverage(db: Database) -> None:
    _suite_with_sets(db)
    with db.session() as session:
        suite_id = session.scalar(select(Suite.id))
        assert suite_id is not None
        assert [(s.name, s.kinds, s.references, s.items) for s in reference_sets(session, suite_id)] == [
            ("ar", ("standard",), 2, 2), ("standard", ("standard",), 3, 3), ("wmt.p", ("paraphrase",), 1, 1)]
        by_position = {pos: refs for pos, refs in zip(range(3), references_of(session, suite_id,
                                                                               RefChoice.default()).values())}
        # the default pools every reference of kind standard (WMT and AR), in the order stored
        assert by_position == {0: [WMT[0], AR[0]], 1: [WMT[1], AR[1]], 2: [WMT[2]]}
        pooled = references_of(session, suite_id, RefChoice.parse("wmt.p+ar"))
        assert list(pooled.values()) == [["On the mat sat the cat.", AR[0]], [AR[1]]]
        with pytest.raises(TsqeError, match=r"no reference set 'hq' \(its sets: ar, standard, wmt.p\)"):
            references_of(session, suite_id, RefChoice.parse("hq+ar"))
        with pytest.raises(TsqeError, match="already has a reference set 'ar' \\(2 references\\)"):
            add_reference_set(session, suite_id, "ar", "standard", {})
        with pytest.raises(TsqeError, match="names the items' known good translations"):
            add_reference_set(session, suite_id, "known-good", "standard", {})


def test_one_set_several_sets_and_a_missing_segment(db: Database) -> None:
    _suite_with_sets(db)
    ar = score_outputs(db, "chrf", refs=RefChoice.parse("ar"))
    assert str(ar.signature).endswith("|refs:ar|combine:multi")
    # item 3 has no AR reference: its outputs are left out of that set's scores, and counted
    assert {r.item_id for r in ar.rows} == {"1", "2"} and ar.unreferenced == 2
    assert ar.of_item("2")[0].score == pytest.approx(max(_chrf(OUTPUTS["sysA"][1], [cast(str, AR[1])]),
                                                         _chrf(OUTPUTS["sysB"][1], [cast(str, AR[1])])))
    multi = score_outputs(db, "chrf", refs=RefChoice.parse("standard+ar"))
    best = score_outputs(db, "chrf", refs=RefChoice.parse("standard+ar", "max"))
    mean = score_outputs(db, "chrf", refs=RefChoice.parse("standard+ar", "mean"))
    single_wmt = {r.output_id: r.score for r in score_outputs(db, "chrf", refs=RefChoice.parse("standard")).rows}
    single_ar = {r.output_id: r.score for r in ar.rows}
    for row in best.rows:
        values = [s[row.output_id] for s in (single_wmt, single_ar) if row.output_id in s]
        assert row.score == max(values)
        assert next(r.score for r in mean.rows if r.output_id == row.output_id) == pytest.approx(np.mean(values))
    for row in multi.rows:  # sacrebleu's own multi-reference chrF against both references
        position = int(row.item_id) - 1
        refs = [WMT[position]] + ([cast(str, AR[position])] if AR[position] else [])
        output = OUTPUTS[row.system][position]
        assert row.score == pytest.approx(_chrf(output, refs))
    assert len({str(s.signature) for s in (ar, multi, best, mean)}) == 4
    from filters.variance import variance_filter  # every table names the references it used

    assert "References: reference set ar." in variance_filter(ar).to_table().notes
    assert "References: reference sets standard, ar joined: the best single-set score." in \
        variance_filter(best).to_table().notes


def test_ter_combined_by_max_takes_the_best_that_is_the_lowest(db: Database) -> None:
    _suite_with_sets(db)
    singles = [{r.output_id: r.score for r in score_outputs(db, "ter", refs=RefChoice.parse(name)).rows}
               for name in ("standard", "ar")]
    best = score_outputs(db, "ter", refs=RefChoice.parse("standard+ar", "max"))
    for row in best.rows:
        assert row.score == min(s[row.output_id] for s in singles if row.output_id in s)


def test_scores_of_different_sets_never_mix_in_the_cache(any_db: Database) -> None:
    db = any_db
    _suite_with_sets(db)
    default = score_outputs(db, "chrf")
    ar = score_outputs(db, "chrf", refs=RefChoice.parse("ar"))
    with db.session() as session:
        signatures = {s for (s,) in session.execute(select(MetricScore.signature).distinct())}
    assert signatures == {str(default.signature), str(ar.signature)}
    assert default.signature.get("refs") is None and ar.signature.get("refs") == "ar"
    first = next(r for r in ar.rows if r.item_id == "1" and r.system == "sysA")
    assert first.score != next(r.score for r in default.rows if r.output_id == first.output_id)
    with db.transaction() as session:  # a score another run cached meanwhile is kept, not a key violation
        store_scores(session, {str(ar.signature): [(first.output_id, -1.0)]})
    assert next(r.score for r in score_outputs(db, "chrf", refs=RefChoice.parse("ar")).rows
                if r.output_id == first.output_id) == first.score


def test_known_good_translations_as_references(db: Database) -> None:
    build_suite(db, "t", [[], []], {"sysA": ["The bench is wet.", "b"]})
    with pytest.raises(TsqeError, match="chrf compares characters with references, and this suite has no "
                                        "references: import references for it"):
        score_outputs(db, "chrf")
    with db.transaction() as session:
        item = session.scalar(select(Item.id).where(Item.external_id == "1"))
        session.execute(insert(KnownTranslation), [{"item_id": item, "kind": "good", "text": "The bench is wet."},
                                                   {"item_id": item, "kind": "bad", "text": "The bank is wet."}])
    with pytest.raises(TsqeError, match="use the items' known good translations as references \\(reference choice "
                                        "known-good: 1 items have one\\) or import references"):
        score_outputs(db, "chrf")
    scores = score_outputs(db, "chrf", refs=RefChoice.parse("known-good"))
    assert [(r.item_id, r.score) for r in scores.rows] == [("1", 100.0)] and scores.unreferenced == 1
    assert str(scores.signature).endswith("|refs:known-good|combine:multi")


def test_a_metric_without_references_refuses_a_reference_set(db: Database) -> None:
    _suite_with_sets(db)
    with pytest.raises(TsqeError, match="label reads the outputs' pass/fail labels: it takes no reference set"):
        score_outputs(db, "label", refs=RefChoice.parse("ar"))


def test_references_written_without_a_set_are_in_the_set_named_after_their_kind(db: Database) -> None:
    build_suite(db, "t", [["a"]], {"s": ["a"]})
    with db.transaction() as session:
        item = session.scalar(select(Item.id))
        session.add(Reference(item_id=item, text="b", kind="paraphrase"))
    with db.session() as session:
        assert sorted(session.execute(select(Reference.text, Reference.kind, Reference.set_name)).all()) == [
            ("a", "standard", "standard"), ("b", "paraphrase", "paraphrase")]


def test_migration_names_sets_after_kinds_and_keeps_the_default_scores(tmp_path: Path) -> None:
    """A database from before reference sets: its cached scores keep their signature and figures where the
    default references are what they were pooled against; where an item also had a paraphrase (pooled then,
    left out by the default now) the cached score is dropped and computed again."""
    path = tmp_path / "old.sqlite"
    signature = str(get_metric("chrf").signature)
    with at_revision(f"sqlite:///{path}", "0005") as conn:
        conn.execute(text("INSERT INTO items (id, suite_id, external_id, position, source) VALUES "
                          "(1, 1, '1', 0, 's1'), (2, 1, '2', 1, 's2')"))
        conn.execute(text("INSERT INTO \"references\" (item_id, text, kind) VALUES (1, :a, 'standard'), "
                          "(2, :b, 'standard'), (2, 'He walked home.', 'paraphrase')"), {"a": WMT[0], "b": WMT[1]})
        conn.execute(text("INSERT INTO systems (id, suite_id, name) VALUES (1, 1, 'sysA')"))
        conn.execute(text("INSERT INTO outputs (id, item_id, text) VALUES (1, 1, :a), (2, 2, :b)"),
                     {"a": OUTPUTS["sysA"][0], "b": OUTPUTS["sysB"][1]})
        conn.execute(text("INSERT INTO system_outputs (system_id, item_id, output_id) VALUES (1, 1, 1), (1, 2, 2)"))
        conn.execute(text("INSERT INTO metric_scores (signature, output_id, score) VALUES (:s, 1, 42.0), "
                          "(:s, 2, 43.0)"), {"s": signature})
    db = open_database(path)
    try:
        with db.session() as session:
            assert sorted(session.execute(select(Reference.kind, Reference.set_name)).all()) == [
                ("paraphrase", "paraphrase"), ("standard", "standard"), ("standard", "standard")]
            assert session.execute(select(MetricScore.output_id, MetricScore.score)).all() == [(1, 42.0)]
            assert session.scalar(select(Output.text).where(Output.id == 2)) == OUTPUTS["sysB"][1]
        scores = score_outputs(db, "chrf")
        assert str(scores.signature) == signature
        assert [r.score for r in scores.rows] == [42.0, pytest.approx(_chrf(OUTPUTS["sysB"][1], [WMT[1]]))]
    finally:
        db.close()


# --- importing, listing and composing sets -------------------------------------------------------------------

def _cli(db_path: Path, *args: str) -> Result:
    from typer.testing import CliRunner

    from cli.main import app
    return CliRunner().invoke(app, ["--db", str(db_path), *args])


def _wmt_suite(tmp_path: Path) -> Path:
    """A WMT-style suite of three lines with two reference files named by --ref-name."""
    systems = tmp_path / "systems"
    systems.mkdir()
    for name, lines in OUTPUTS.items():
        (systems / f"nt.{name}.de-en").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    (tmp_path / "src.de").write_text("Die Katze.\nEr ging.\nEs regnete.\n", encoding="utf-8")
    (tmp_path / "ref.en").write_text("".join(f"{line}\n" for line in WMT), encoding="utf-8")
    (tmp_path / "ar.en").write_text("A cat was sitting on the mat.\nHe left for home early.\nRain all day.\n",
                                    encoding="utf-8")
    db_path = tmp_path / "wmt.sqlite"
    result = _cli(db_path, "import", "wmt", "--src", str(tmp_path / "src.de"), "--ref", str(tmp_path / "ref.en"),
                  "--ref", str(tmp_path / "ar.en"), "--ref-name", "wmt", "--ref-name", "ar", "--systems",
                  str(systems), "--name", "nt")
    assert result.exit_code == 0, result.output
    assert "6 references, 2 reference sets" in result.output
    return db_path


def test_import_references_plain_and_table_and_list_them(tmp_path: Path) -> None:
    db_path = _wmt_suite(tmp_path)
    plain = tmp_path / "wmtp.txt"
    plain.write_text("On the mat sat the cat.\nEarly he went home.\nThe whole day it rained.\n", encoding="utf-8")
    result = _cli(db_path, "import", "references", str(plain), "--name", "wmt.p", "--kind", "paraphrase")
    assert result.exit_code == 0, result.output
    assert "reference set wmt.p (paraphrase): 3 references on 3 of 3 items" in result.output
    table = tmp_path / "partial.tsv"
    table.write_text("item_id\ttext\n2\tHe went home early, he did.\n", encoding="utf-8")
    result = _cli(db_path, "import", "references", str(table), "--name", "extra")
    assert result.exit_code == 0, result.output
    assert "1 references on 1 of 3 items" in result.output and "the default now includes extra" in result.output
    listing = _cli(db_path, "references", "--format", "tsv")
    assert listing.exit_code == 0, listing.output
    assert listing.stdout.splitlines() == ["set\tkinds\treferences\titems", "ar\tstandard\t3\t3",
                                           "extra\tstandard\t1\t1", "wmt\tstandard\t3\t3", "wmt.p\tparaphrase\t3\t3"]
    scores = score_outputs(open_database(db_path), "chrf", refs=RefChoice.parse("wmt.p"))
    assert scores.of_item("1")[0].score == pytest.approx(_chrf(OUTPUTS["sysA"][0], ["On the mat sat the cat."]))


@pytest.mark.parametrize(("content", "suffix", "message"), [
    ("only one line\n", ".txt", "wmtp.txt:2: has 1 lines but the suite has 3 items"),
    ("a\n\nc\n", ".txt", "wmtp.txt:2: empty reference line"),
    ("item_id\ttext\n9\tx\n2\t \n", ".tsv", "wmtp.tsv:2: the suite has no item '9'"),
    ("item_id\ttext\n9\tx\n2\t \n", ".tsv", "wmtp.tsv:3: empty reference"),
])
def test_a_bad_reference_file_is_refused_and_writes_nothing(tmp_path: Path, content: str, suffix: str,
                                                            message: str) -> None:
    db_path = _wmt_suite(tmp_path)
    path = tmp_path / f"wmtp{suffix}"
    path.write_text(content, encoding="utf-8")
    result = _cli(db_path, "import", "references", str(path), "--name", "wmt.p")
    assert result.exit_code == 2 and message in result.output
    with open_database(db_path).session() as session:
        assert session.scalar(select(Reference.id).where(Reference.set_name == "wmt.p")) is None
    taken = _cli(db_path, "import", "references", str(path), "--name", "ar")
    assert taken.exit_code == 2 and "already has a reference set 'ar' (3 references)" in taken.output


def test_compose_by_ratings_takes_the_best_rated_ties_to_the_first_named(tmp_path: Path) -> None:
    db_path = _wmt_suite(tmp_path)
    ratings = tmp_path / "ratings.tsv"
    ratings.write_text("item_id\tset\trating\n1\twmt\t4\n1\tar\t5\n2\twmt\t3\n2\tar\t3\n3\twmt\t6\n3\tar\t2\n",
                       encoding="utf-8")
    result = _cli(db_path, "references", "compose", "--from", "wmt,ar", "--by", str(ratings), "--name", "hq-r")
    assert result.exit_code == 0, result.output
    assert "reference set hq-r (standard) on 3 items: wmt 2, ar 1; 1 ties went to the first named" in result.output
    db = open_database(db_path)
    with db.session() as session:
        suite_id = session.scalar(select(Suite.id))
        assert suite_id is not None
        composed = references_of(session, suite_id, RefChoice.parse("hq-r"))
        assert list(composed.values()) == [["A cat was sitting on the mat."], [WMT[1]], [WMT[2]]]
    ratings.write_text("item_id\tset\trating\n1\twmt\t4\n1\tar\tgood\n2\twmt\t3\n3\tnope\t1\n", encoding="utf-8")
    bad = _cli(db_path, "references", "compose", "--from", "wmt,ar", "--by", str(ratings), "--name", "hq-2")
    assert bad.exit_code == 2
    assert "ratings.tsv:3: rating 'good' is not a number" in bad.output
    assert "ratings.tsv:5: set 'nope' is not one of those composed from (wmt, ar)" in bad.output
    ratings.write_text("item_id\tset\trating\n1\twmt\t4\n1\tar\t5\n2\twmt\t3\n", encoding="utf-8")
    missing = _cli(db_path, "references", "compose", "--from", "wmt,ar", "--by", str(ratings), "--name", "hq-2")
    assert missing.exit_code == 2
    assert "miss a rating of a reference for item 2 (ar); item 3 (wmt, ar)" in missing.output
    with db.session() as session:
        assert session.scalar(select(Reference.id).where(Reference.set_name == "hq-2")) is None


def test_compose_by_a_metric_takes_the_consensus_reference(tmp_path: Path) -> None:
    db_path = _wmt_suite(tmp_path)
    third = tmp_path / "third.txt"
    third.write_text("The cat sat on a mat.\nHe went home early today.\nIt rained all day long.\n", encoding="utf-8")
    assert _cli(db_path, "import", "references", str(third), "--name", "third").exit_code == 0
    result = _cli(db_path, "references", "compose", "--from", "ar,wmt,third", "--by", "metric:chrf", "--name",
                  "hq-auto")
    assert result.exit_code == 0, result.output
    db = open_database(db_path)
    with db.session() as session:
        suite_id = session.scalar(select(Suite.id))
        assert suite_id is not None
        composed = list(references_of(session, suite_id, RefChoice.parse("hq-auto")).values())
    sets = {"ar": ["A cat was sitting on the mat.", "He left for home early.", "Rain all day."], "wmt": WMT,
            "third": ["The cat sat on a mat.", "He went home early today.", "It rained all day long."]}
    for position, chosen in enumerate(composed):
        ratings = {name: _chrf(texts[position], [other[position] for o, other in sets.items() if o != name])
                   for name, texts in sets.items()}
        best = max(ratings.values())
        assert chosen == [sets[next(n for n in ("ar", "wmt", "third") if ratings[n] == best)][position]]
