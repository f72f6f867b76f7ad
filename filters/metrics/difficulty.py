"""Difficulty-aware BERTScore in the registry: a system-level metric (``filters.difficulty`` computes it)."""
from __future__ import annotations

from collections.abc import Sequence

from filters.metrics.base import Metric, OutputScores, SystemScores
from filters.metrics.specs import MetricOptions, metric_spec
from store import Database
from suite.errors import TsqeError
from suite.references import RefChoice
from suite.tasks import TaskState


class DifficultyMetric(Metric):
    def __init__(self, component: str, options: MetricOptions) -> None:
        self.spec = metric_spec(f"da-bertscore-{component.lower()}")
        self.key = f"DA-{component.upper()}"
        self.options = options

    def output_scores(self, db: Database, suite_id: int, output_ids: Sequence[int], refs: RefChoice,
                      task: TaskState) -> OutputScores:
        raise TsqeError(f"{self.name} scores systems, not single outputs: its token weights depend on every "
                        "compared system")

    def system_scores(self, db: Database, systems: Sequence[str], refs: RefChoice, *, suite_name: str | None,
                      task: TaskState) -> SystemScores:
        """The difficulty computed over exactly ``systems`` (the paper's top-K setting is K systems)."""
        from filters.difficulty import da_bertscore

        result = da_bertscore(db, suite_name=suite_name, systems=list(systems), refs=refs, options=self.options,
                              task=task)
        return SystemScores(result.signature.renamed(self.name), True,
                            {system: float(result.system_scores[system][self.key]) for system in systems},
                            max(result.items_scored.values(), default=0))
