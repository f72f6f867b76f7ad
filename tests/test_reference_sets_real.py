"""Reference sets on real data: WMT19 en-de with the paraphrased references (Freitag et al. 2020) and
newstest2021 de-en with its two references, against the official human scores.

The figures of ``tsqe correlate`` must equal sacrebleu and scipy called directly on the same files. The
suites are the first lines of the test sets (all systems), so that the test stays within CI's time with TER;
``bench/references.py`` runs the whole of WMT19 en-de and BENCHMARKS.md has its table.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER
from scipy import stats

from filters.correlation_table import CorrelationRow, correlate_table
from filters.metrics import MetricOptions
from store import Database
from suite.importers.human_scores import import_human_scores, read_human_scores
from suite.importers.references import import_references
from suite.importers.wmt import import_wmt, system_file
from suite.references import RefChoice

pytestmark = pytest.mark.shared
SETS = {"ar": "ar", "ar.p": "arp", "wmt.p": "wmtp", "hq-r": "hqr", "hq-p": "hqp", "hq-all": "hqall"}
JOINED = ("wmt+ar", "wmt.p+ar.p", "wmt+ar+wmt.p+ar.p")
LINES = 20


def _head(path: Path, target: Path, lines: int = LINES) -> Path:
    text = path.read_text(encoding="utf-8").split("\n")[:lines]
    target.write_text("\n".join(text) + "\n", encoding="utf-8")
    return target


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").split("\n")[:LINES]]


def _check(table_row_scores: dict[str, float], direct: dict[str, float], human: dict[str, float],
           row: CorrelationRow) -> None:
    assert table_row_scores == pytest.approx(direct, rel=1e-12, abs=1e-12)
    systems = sorted(human, key=lambda s: (-human[s], s))
    x, y = [human[s] for s in systems], [direct[s] for s in systems]
    assert row.overall.pearson == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert row.overall.spearman == pytest.approx(stats.spearmanr(x, y)[0], abs=1e-12)
    assert row.overall.kendall == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)


def test_wmt19_en_de_every_set_and_joined_sets_equal_sacrebleu_and_scipy(db: Database, tmp_path: Path,
                                                                         shared_data: Path) -> None:
    wmt19 = shared_data / "global-explainability-metrics" / "WMT19"
    paraphrased = shared_data / "wmt19-paraphrased-references" / "wmt19" / "ende"
    systems_dir = tmp_path / "systems"
    systems_dir.mkdir()
    outputs = {}
    for path in sorted((wmt19 / "system-outputs" / "en-de").iterdir()):
        _head(path, systems_dir / path.name)
        name, _ = system_file(path)  # type: ignore[misc]
        outputs[name] = _lines(path)
    import_wmt(db, src=_head(wmt19 / "source" / "newstest2019-ende-src.en", tmp_path / "src.en"),
               refs=[_head(wmt19 / "references" / "newstest2019-ende-ref.de", tmp_path / "ref.de")],
               ref_names=["wmt"], systems=[systems_dir], name="nt19")
    references = {"wmt": _lines(wmt19 / "references" / "newstest2019-ende-ref.de")}
    for name, stem in SETS.items():
        path = _head(paraphrased / f"wmt19-ende-{stem}.ref", tmp_path / f"{stem}.ref")
        import_references(db, path, name=name, kind="paraphrase" if name.endswith(".p") else "standard")
        references[name] = _lines(path)
    import_human_scores(db, wmt19 / "DA-syslevel.csv", lp="en-de")
    human = {name: score for name, (score, _) in read_human_scores(wmt19 / "DA-syslevel.csv", "en-de").items()}
    assert len(human) == len(outputs) == 22

    entries = [RefChoice.parse(entry) for entry in (*references, *JOINED)]
    table = correlate_table(db, ["bleu", "chrf", "ter"], entries, options=MetricOptions(tokenize="intl"),
                            resamples=0)
    direct_metrics = {"bleu": BLEU(tokenize="intl"), "chrf": CHRF(), "ter": TER()}
    assert len(table.rows) == 3 * 10
    for row in table.rows:
        assert row.refs is not None
        metric = direct_metrics[row.metric]
        streams = [references[name] for name in row.refs.sets]
        direct = {name: metric.corpus_score(texts, streams).score for name, texts in outputs.items()}
        _check(row.overall.scores, direct, human, row)
        if row.metric == "bleu":
            assert row.signature.get("tok") == "intl"
        assert row.signature.get("refs") == row.refs.label


def test_newstest2021_de_en_references_a_and_b_single_and_joined(db: Database, tmp_path: Path,
                                                                  shared_data: Path) -> None:
    nt21 = shared_data / "wmt21-news-systems" / "newstest2021-de-en"
    systems_dir = tmp_path / "systems"
    systems_dir.mkdir()
    outputs = {}
    for path in sorted((nt21 / "txt" / "system-outputs").iterdir()):
        system = path.name.removeprefix("newstest2021.de-en.hyp.").removesuffix(".en")
        _head(path, systems_dir / f"newstest2021.{system}.de-en")
        outputs[system] = _lines(path)
    refs = {name: nt21 / "txt" / "references" / f"newstest2021.de-en.ref.{name}.en" for name in ("A", "B")}
    import_wmt(db, src=_head(nt21 / "txt" / "sources" / "newstest2021.de-en.src.de", tmp_path / "src.de"),
               refs=[_head(path, tmp_path / f"ref.{name}") for name, path in refs.items()], ref_names=list(refs),
               systems=[systems_dir], name="nt21")
    ranking = (nt21 / "humaneval" / "ad-sys-ranking-de-en-z-names.csv").read_text().split("\n")
    human = {fields[5]: float(fields[1]) for fields in (line.split() for line in ranking) if len(fields) == 6
             and fields[5] in outputs}
    assert len(human) == len(outputs) == 19  # the human translation (HUMAN) is no system here
    scores_file = tmp_path / "da.txt"
    scores_file.write_text("LP HUMAN SYSTEM\n" + "".join(f"de-en {v} {k}\n" for k, v in human.items()))
    import_human_scores(db, scores_file, lp="de-en")

    entries = [RefChoice.parse("A"), RefChoice.parse("B"), RefChoice.parse("A+B"), RefChoice.parse("A+B", "max")]
    table = correlate_table(db, ["bleu", "chrf"], entries, resamples=0)
    texts = {name: _lines(path) for name, path in refs.items()}
    for row in table.rows:
        assert row.refs is not None
        metric = BLEU(effective_order=True) if row.metric == "bleu" else CHRF()
        if row.refs.combine == "max":
            single = [{n: metric.corpus_score(t, [texts[s]]).score for n, t in outputs.items()} for s in "AB"]
            direct = {n: max(a[n], b[n]) for n, a, b in ((n, single[0], single[1]) for n in outputs)}
        else:
            direct = {n: metric.corpus_score(t, [texts[s] for s in row.refs.sets]).score for n, t in outputs.items()}
        _check(row.overall.scores, direct, human, row)
        assert not math.isnan(row.overall.kendall)
