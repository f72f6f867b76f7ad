"""The Meta-evaluation tab's computation: the WMT statistics of ``tsqe meta-eval --statistic`` on the open suite.

A write, not a read, although it changes nothing the screens show: scoring the metrics stores their scores and
corpus statistics as caches (``suite.changes.METRIC_SCORES``), and a write is what shows the progress dialog with
its Cancel (the permutation tests take seconds to minutes)."""
from __future__ import annotations

from filters.wmt_statistics import WmtEvaluation, WmtOptions, wmt_meta_evaluate
from gui.operations.runner import Write
from store import Database
from suite.changes import METRIC_SCORES


def wmt_statistics(db: Database, options: WmtOptions) -> Write[WmtEvaluation]:
    return Write("WMT statistics", lambda task: wmt_meta_evaluate(db, options, task),
                 said=lambda result: f"{len(options.metrics)} metrics compared on "
                                     f"{', '.join(result.datasets)}",
                 changes=lambda _: METRIC_SCORES)
