"""Do conclusions hold across datasets? Issue 18 on the real data, end to end through tsqe, and its time.

    PYTHONPATH=. python bench/meta_eval.py [--db out/bench-meta.sqlite] [--figures docs/figures] [--resamples 1000]

1. Imports (once; the database keeps them): WMT19 de-en (16 systems) and en-de (22) with WMT19's official DA, and
   newstest2021 de-en (19 systems, two references) with WMT21's system and segment DA and WMT's Wilcoxon results;
   the DFKI de-en test suite with the WMT21 systems' outputs, labelled, and two QE systems made as the README shows
   (``tsqe qe train``: a features-svr on MLQE-PE HTER, and a pairwise-gb on the suite's own pairs, out of fold).
2. Scores (once: BERTScore-F over about 71,000 distinct outputs takes an hour on the 2-core machine; the corpus
   statistics of BLEU, chrF and TER a few minutes), by running the meta-evaluation once untimed.
3. Timed: the whole meta-evaluation of BLEU, chrF, TER and BERTScore-F on the three datasets with 1,000
   resamples, from the cached scores (``meta-eval:``; target under 1 minute), then the same on the human-significant
   pairs only (``significant only:``), and both again with BERTScore-P and -R added (six metrics).
4. Writes the paper-style tables (Markdown), the disagreement heat maps (all pairs; significant pairs only) and the
   QE disagreement heat map between the categories of DFKI de-en to ``--figures``, and prints every figure.

``--statistics-only`` runs only the WMT statistics of issue 30 (``wmt_statistics``): on TED en-de MQM (13 systems x
529 segments, read from the shared file; sentence BLEU, chrF and -TER against the human translation ``ref``) every
statistic of ``suite.agreement`` with every grouping and 1,000 permutations between every two metrics (target: all
in under 30 s),
the WMT-style table, and the same values from mt-metrics-eval's own functions (vendored in tests/vendor) with
their time; its permutation tests are timed on ``--mtme-draws`` draws and scaled to 1,000 (a thousand of its
tie calibrations by system take about 17 hours).

Reads ../shared/data/external (never copied); prints ``skipped`` without it.
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from sqlalchemy import select

from filters.meta_evaluation import MetaOptions, meta_evaluate
from qe.disagreement import row_disagreement
from qe.evaluation import AccuracyOptions, accuracy, read_inputs
from store import Database, open_database
from store.models import QESystem, Suite
from suite.engine.labelling import relabel
from suite.figures import save_figure
from suite.importers.human_scores import import_human_scores
from suite.importers.outputs import import_outputs
from suite.importers.suite_import import import_suite
from suite.importers.wmt import import_wmt
from suite.tables import render, write_table
from suite.tasks import TaskState

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "external"
WMT19 = ("wmt19-de-en", "wmt19-en-de")
NEWSTEST2021 = "newstest2021-de-en"
DFKI = "dfki-de-en"
METRICS = ("bleu", "chrf", "ter", "bertscore-f")
SAMPLED = 0.01
"""The share of pairs mt-metrics-eval's tie calibration over all 6,877 TED scores is timed on."""
SIX_METRICS = ("bleu", "chrf", "ter", "bertscore-p", "bertscore-r", "bertscore-f")
"""With BERTScore's precision and recall, which come with F from the same embeddings: more metric pairs to
disagree on."""


def imported(db: Database, name: str) -> bool:
    with db.session() as session:
        return session.scalar(select(Suite.id).where(Suite.name == name)) is not None


def import_data(db: Database, data: Path) -> None:
    wmt19 = data / "global-explainability-metrics" / "WMT19"
    for suite in WMT19:
        pair = suite.removeprefix("wmt19-")
        compact = pair.replace("-", "")
        if not imported(db, suite):
            import_wmt(db, src=wmt19 / "source" / f"newstest2019-{compact}-src.{pair[:2]}",
                       refs=[wmt19 / "references" / f"newstest2019-{compact}-ref.{pair[3:]}"],
                       systems=[wmt19 / "system-outputs" / pair], name=suite)
            import_human_scores(db, wmt19 / "DA-syslevel.csv", lp=pair, suite_name=suite)
    folder = data / "wmt21-news-systems" / "newstest2021-de-en"
    if not imported(db, NEWSTEST2021):
        import_wmt(db, src=folder / "txt" / "sources" / "newstest2021.de-en.src.de",
                   refs=sorted((folder / "txt" / "references").iterdir()),
                   systems=[folder / "txt" / "system-outputs"], name=NEWSTEST2021)
        human = folder / "humaneval"
        import_human_scores(db, human / "ad-sys-scores-de-en.csv", segments=human / "ad-seg-scores-de-en.csv",
                            significance=human / "ad-DA-diff-wilcoxon-rs-deen.csv",
                            renames={"Nemo.7": "NVIDIA-NeMo"}, suite_name=NEWSTEST2021)
    if not imported(db, DFKI):
        import_suite(db, data / "mt-testsuite" / "testset" / "de-en" / "items.json", name=DFKI)
        import_outputs(db, data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv", suite_name=DFKI)
        relabel(db, DFKI)
    with db.session() as session:
        trained = set(session.scalars(select(QESystem.name)))
    from qe.training import predict_qe_system, train_qe_system

    if "svr-hter" not in trained:
        train_qe_system(db, name="svr-hter", kind="features-svr", data=[str(data / "mlqe-pe" / "en-de" / "train")],
                        suite_name=DFKI)
        predict_qe_system(db, "svr-hter", DFKI)
    if "pairwise-gb" not in trained:
        train_qe_system(db, name="pairwise-gb", kind="pairwise-gb", folds=5, suite_name=DFKI)


def wmt_statistics(data: Path, permutations: int, mtme_draws: int) -> None:
    """Issue 30's statistics on TED en-de, timed against mt-metrics-eval in the same run."""
    import os

    from suite import agreement
    from suite.agreement import Setting
    from suite.domain import Grouping, Statistic

    sys.path.insert(0, str(ROOT / "tests"))
    from ted_mqm import ted_vectors
    from vendor.mt_metrics_eval import stats as mtme

    ted = ted_vectors(data / "wmt-mqm-human-evaluation" / "ted" / "ende" / "mqm_ted_ende.tsv")
    gold, metrics = ted.gold, ted.metrics
    system_gold = gold.mean(axis=1, keepdims=True)
    system_metrics = {name: m.mean(axis=1, keepdims=True) for name, m in metrics.items()}
    # every statistic at the segment level with every grouping (acc-eq by item: WMT23/24; Pearson and Kendall
    # over all scores: WMT22), and every one at the system level
    segment = [Setting(statistic, grouping) for statistic in Statistic if statistic is not Statistic.SPA
               for grouping in Grouping]
    system = [Setting(Statistic.SPA), Setting(Statistic.ACC_EQ), Setting(Statistic.PEARSON),
              Setting(Statistic.KENDALL), Setting(Statistic.KENDALL_23)]
    print(f"load: {os.getloadavg()}")
    results = {}
    total = cpu = 0.0
    levels = (("system", system, system_gold, system_metrics), ("segment", segment, gold, metrics))
    for level, settings, g, ms in levels:
        for setting in settings:
            started, started_cpu = time.perf_counter(), time.process_time()
            # SPA is a system-level statistic computed from segment scores
            vectors = (gold, metrics) if setting.statistic is Statistic.SPA else (g, ms)
            results[(level, setting)] = agreement.compare(setting, vectors[0], vectors[1],
                                                          permutations=permutations, seed=0)
            spent, spent_cpu = time.perf_counter() - started, time.process_time() - started_cpu
            total += spent
            cpu += spent_cpu
            print(f"  tsqe {level} {setting}: {spent:.2f} s (CPU {spent_cpu:.2f} s)", flush=True)
    # the draws run over both cores (suite.pair_counts), so the CPU time is the sum over the threads and the wall
    # time is the target's; on a loaded machine the wall time is mostly the other jobs' share
    print(f"tsqe: all statistics, BLEU chrF TER, {permutations:,} permutations: {total:.1f} s, CPU {cpu:.1f} s "
          "(target < 30 s)")
    print(f"load: {os.getloadavg()}")

    def mtme_value(level: str, setting: Setting, name: str) -> tuple[float, float]:
        g, m = (gold, metrics[name]) if level == "segment" or setting.statistic is Statistic.SPA else (
            system_gold, system_metrics[name])
        corr = mtme.Correlation(g.shape[0], g.reshape(-1).tolist(), m.reshape(-1).tolist())
        group = {Grouping.NONE: "none", Grouping.ITEM: "item", Grouping.SYSTEM: "sys"}[setting.grouping]
        started = time.perf_counter()
        if setting.statistic is Statistic.SPA:
            value = corr.PairwiseConfidenceError()[0]
        elif setting.statistic is Statistic.ACC_EQ and level == "segment" and setting.grouping is Grouping.NONE:
            # its exact search builds a Python object per pair: 23.6 million, gigabytes and hours; timed on a
            # hundredth of the pairs and scaled, its (sampled) value not compared
            corr.KendallWithTiesOpt(group, sample_rate=SAMPLED)
            return math.nan, (time.perf_counter() - started) / SAMPLED
        elif setting.statistic is Statistic.ACC_EQ:
            value = corr.KendallWithTiesOpt(group, sample_rate=1.0)[0]
        elif setting.statistic is Statistic.PEARSON:
            value = corr.Pearson(group)[0]
        elif setting.statistic is Statistic.KENDALL:
            value = corr.Kendall(group)[0]
        else:
            value = corr.KendallVariants(group, variant="23")[0]
        return value, time.perf_counter() - started

    mtme_total, worst = 0.0, 0.0
    for (level, setting), compared in results.items():
        point = 0.0
        for name, ours in zip(compared.metrics, compared.values):
            value, spent = mtme_value(level, setting, name)
            point += spent
            if setting.statistic is not Statistic.SPA and not math.isnan(value):
                worst = max(worst, abs(value - ours.value))
        # a permutation draw computes the statistic twice per metric pair: 2 x draws x pairs evaluations
        pairs = len(compared.metrics) * (len(compared.metrics) - 1) // 2
        per_evaluation = point / len(compared.metrics)
        drawn = 0.0
        if mtme_draws and per_evaluation < 2.0:
            g, m = (gold, metrics) if level == "segment" or setting.statistic is Statistic.SPA else (
                system_gold, system_metrics)
            names = list(m)
            corr = [mtme.Correlation(g.shape[0], g.reshape(-1).tolist(), m[n].reshape(-1).tolist()) for n in names[:2]]
            function, kwargs = {
                Statistic.SPA: (mtme.PairwiseConfidenceError, {"num_sys": g.shape[0]}),
                Statistic.ACC_EQ: (mtme.KendallWithTiesOpt, {"variant": "acc23", "sample_rate": 1.0}),
                Statistic.PEARSON: (scipy_pearson, {}), Statistic.KENDALL: (scipy_kendall, {}),
                Statistic.KENDALL_23: (mtme.KendallVariants, {"variant": "23"})}[setting.statistic]
            group = {Grouping.NONE: "none", Grouping.ITEM: "item", Grouping.SYSTEM: "sys"}[setting.grouping]
            started = time.perf_counter()
            mtme.PermutationSigDiff(corr[0], corr[1], function, group, mtme_draws,
                                    mtme.PermutationSigDiffParams(block_size=mtme_draws), **kwargs)
            drawn = (time.perf_counter() - started) / mtme_draws * permutations * pairs
        else:
            drawn = 2 * per_evaluation * permutations * pairs
        mtme_total += point + drawn
        print(f"  mt-metrics-eval {level} {setting}: values {point:.2f} s, {permutations:,} permutations x {pairs} "
              f"pairs {drawn:.1f} s" + ("" if mtme_draws and per_evaluation < 2.0 else " (2 evaluations a draw)"),
              flush=True)
    print(f"mt-metrics-eval: {mtme_total:.1f} s (permutations scaled from {mtme_draws} draws); "
          f"ratio tsqe / mt-metrics-eval {total / mtme_total:.2g} (target <= 0.5); largest difference of a value "
          f"(SPA aside) {worst:.1e}")

    columns = list(results)
    print("\n| metric | " + " | ".join(f"{level} {setting}" for level, setting in columns) + " |")
    print("|:---|" + "---:|" * len(columns))
    for name in sorted(metrics):
        cells = []
        for key in columns:
            compared = results[key]
            k = compared.metrics.index(name)
            text = f"{compared.values[k].value:.3f}"
            cells.append(f"**{text}**" if compared.ranks[k] == 1 else f"{text} ({compared.ranks[k]})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    chance_gold = {key: gold if key[0] == "segment" or key[1].statistic is Statistic.SPA else system_gold
                   for key in columns}
    chance = [f"{agreement.chance(key[1], chance_gold[key]) + 0.0:.3f}" for key in columns]  # + 0.0: no "-0.000"
    print("| *chance* | " + " | ".join(chance) + " |")
    epsilons = [", ".join(f"{n} {v.epsilon:.3g}" for n, v in zip(results[k].metrics, results[k].values))
                for k in columns if k[1].statistic is Statistic.ACC_EQ]
    print("\nε of acc-eq: " + "; ".join(epsilons))


def scipy_pearson(gold: list[float], metric: list[float]) -> tuple[float, float]:
    import scipy.stats

    return tuple(scipy.stats.pearsonr(gold, metric))  # type: ignore[return-value]


def scipy_kendall(gold: list[float], metric: list[float]) -> tuple[float, float]:
    import scipy.stats

    return tuple(scipy.stats.kendalltau(gold, metric))  # type: ignore[return-value]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=str(ROOT / "out" / "bench-meta.sqlite"))
    parser.add_argument("--data", default=str(SHARED), help="the external data folder (../shared/data/external)")
    parser.add_argument("--figures", default=str(ROOT / "out" / "meta-figures"))
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--statistics-only", action="store_true", help="only issue 30's WMT statistics on TED en-de")
    parser.add_argument("--mtme-draws", type=int, default=10, help="mt-metrics-eval's permutation draws timed")
    args = parser.parse_args()
    data = Path(args.data)
    if args.statistics_only:
        if not (data / "wmt-mqm-human-evaluation").is_dir():
            print(f"skipped: {data} lacks the TED MQM data")
            return 0
        wmt_statistics(data, args.resamples, args.mtme_draws)
        return 0
    if not (data / "wmt21-news-systems" / "newstest2021-de-en").is_dir():
        print(f"skipped: {data} lacks the WMT data")
        return 0
    figures = Path(args.figures)
    figures.mkdir(parents=True, exist_ok=True)
    Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    db = open_database(args.db)
    started = time.perf_counter()
    import_data(db, data)
    print(f"imports: {time.perf_counter() - started:.1f} s (nothing when the database has them)")
    suites = (*WMT19, NEWSTEST2021)
    started = time.perf_counter()
    meta_evaluate(db, MetaOptions(suites=suites, metrics=SIX_METRICS, resamples=args.resamples),
                  TaskState(lambda report: print(f"  {report.message}", file=sys.stderr)))
    print(f"scores cached: {time.perf_counter() - started:.1f} s (untimed warm-up)")

    for metrics, prefix in ((METRICS, "meta-eval"), (SIX_METRICS, "meta-eval6")):
        started = time.perf_counter()
        result = meta_evaluate(db, MetaOptions(suites=suites, metrics=metrics, resamples=args.resamples))
        print(f"{prefix}: {time.perf_counter() - started:.1f} s for {len(suites)} datasets, {len(metrics)} metrics, "
              f"{args.resamples:,} resamples (target < 60 s for four)")
        started = time.perf_counter()
        significant = meta_evaluate(db, MetaOptions(suites=suites, metrics=metrics, resamples=args.resamples,
                                                    significant_pairs_only=True))
        print(f"{prefix} significant only: {time.perf_counter() - started:.1f} s")
        for name, outcome in (("all pairs", result), ("significant pairs only", significant)):
            print(f"\n## {len(metrics)} metrics, {name}\n")
            print(render(outcome.ranks_table(), "md"))
            print(render(outcome.errors_table(), "md"))
            print(render(outcome.disagreement_table(), "md"))
        write_table(result.ranks_table(), figures / f"{prefix}-table3.md")
        write_table(significant.ranks_table(), figures / f"{prefix}-table3-significant.md")
        write_table(result.errors_table(), figures / f"{prefix}-errors.md")
        write_table(result.disagreement_table(), figures / f"{prefix}-disagreement.md")
        write_table(significant.disagreement_table(), figures / f"{prefix}-disagreement-significant.md")
        save_figure(result.heat_map(), figures / f"{prefix}-disagreement.png")
        save_figure(significant.heat_map(), figures / f"{prefix}-disagreement-significant.png")

    started = time.perf_counter()
    table = accuracy(read_inputs(db, DFKI, ("svr-hter", "pairwise-gb")),
                     AccuracyOptions(qe=("svr-hter", "pairwise-gb"), bootstrap=args.resamples))
    rows = row_disagreement(table)
    print(f"\nQE disagreement between the {len(rows.rows)} categories of {DFKI} ({len(rows.left_out)} with too few "
          f"pairs): {time.perf_counter() - started:.1f} s")
    print(render(rows.ranks_table(), "md"))
    print(render(rows.to_table(), "md"))
    save_figure(rows.heat_map(), figures / "qe-disagreement-dfki-de-en.png")
    write_table(rows.ranks_table(), figures / "qe-ranks-dfki-de-en.md")
    print(f"figures in {figures}")
    db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
