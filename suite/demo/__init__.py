"""The bundled German→English demo suite and the function that loads it (``tsqe demo``, ``make run``).

The data files sit beside this module so that they ship inside the wheel as package data; README.md
next to them says what they contain. Loading goes through the same importers and labelling as user
files, so the demo also shows that path working end to end.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources

from sqlalchemy import delete, func, select

from store import Database
from store.models import (
    Category,
    Item,
    ManualLabel,
    Output,
    Phenomenon,
    QESystem,
    Suite,
    System,
    SystemOutput,
)
from suite.engine.labelling import label_counts, relabel
from suite.errors import Problem, TsqeError
from suite.importers import (
    import_human_scores,
    import_outputs,
    import_qe_scores,
    import_reviews,
    import_suite,
)
from suite.tasks import TaskState, progress_of

DEMO_SUITE = "tsqe-demo-de-en"
DEMO_QE_SYSTEMS = ("demo-qe", "demo-chrf")


@dataclass(frozen=True)
class DemoSummary:
    suite: str
    counts: dict[str, int]  # items, categories, phenomena, systems, outputs (distinct), system_outputs, reviews
    labels: dict[str, int]  # effective labels over distinct outputs
    warnings: list[Problem] = field(default_factory=list)  # the demo's deliberately broken rules


def create_demo(db: Database, *, name: str = DEMO_SUITE, task: TaskState | None = None) -> DemoSummary:
    """Import the demo suite, its MT outputs and reviews under ``name``, label it, and add the demo's two QE
    systems and invented human scores, so that every report and both QE tables have something to show.

    Refuses when a suite of that name exists rather than mixing two copies. The steps are separate
    transactions, so a failure or a cancel part-way removes the half-built suite again, and the QE systems
    this call created. QE systems are named per database, so a second demo suite in the same database shares
    the first one's QE systems (their scores of the new suite's outputs are added).
    """
    progress = progress_of(task)
    with db.session() as session:
        if session.scalar(select(Suite.id).where(Suite.name == name)) is not None:
            raise TsqeError(f"the database already holds a suite named {name!r}; load the demo into another "
                            f"database (it is never loaded twice into one)")
        new_qe_systems = [qe_name for qe_name in DEMO_QE_SYSTEMS
                          if session.scalar(select(QESystem.id).where(QESystem.name == qe_name)) is None]
    data = resources.files(__name__)
    try:
        with (resources.as_file(data / "suite.tsv") as suite_file,
              resources.as_file(data / "outputs.tsv") as outputs_file,
              resources.as_file(data / "reviews.tsv") as reviews_file,
              resources.as_file(data / "qe_heuristic.tsv") as heuristic_file,
              resources.as_file(data / "qe_chrf.tsv") as chrf_file,
              resources.as_file(data / "human_scores.txt") as human_file):
            imported = import_suite(db, suite_file, name=name, source_lang="de", target_lang="en",
                                    task=progress.child(0.0, 0.2))
            import_outputs(db, outputs_file, suite_name=name, task=progress.child(0.2, 0.4))
            relabel(db, suite_name=name, task=progress.child(0.4, 0.85))
            import_reviews(db, reviews_file, suite_name=name, task=progress.child(0.85, 0.9))
            for k, (qe_name, qe_file) in enumerate(zip(DEMO_QE_SYSTEMS, (heuristic_file, chrf_file))):
                import_qe_scores(db, qe_file, name=qe_name, suite_name=name,
                                 task=progress.child(0.9 + 0.05 * k, 0.95 + 0.05 * k))
            import_human_scores(db, human_file, lp="de-en", suite_name=name)
    except BaseException:
        with db.transaction() as session:
            session.execute(delete(Suite).where(Suite.name == name))
            session.execute(delete(QESystem).where(QESystem.name.in_(new_qe_systems)))
        raise
    return DemoSummary(name, _counts(db, name), label_counts(db, suite_name=name), list(imported.warnings))


def _counts(db: Database, name: str) -> dict[str, int]:
    with db.session() as session:
        suite_id = session.scalar(select(Suite.id).where(Suite.name == name))
        items = select(Item.id).where(Item.suite_id == suite_id)
        return {
            "items": session.scalar(select(func.count()).select_from(items.subquery())) or 0,
            "categories": session.scalar(select(func.count(Category.id)).where(Category.suite_id == suite_id))
            or 0,
            "phenomena": session.scalar(select(func.count(Phenomenon.id)).join(Category)
                                        .where(Category.suite_id == suite_id)) or 0,
            "systems": session.scalar(select(func.count(System.id)).where(System.suite_id == suite_id)) or 0,
            "outputs": session.scalar(select(func.count(Output.id)).where(Output.item_id.in_(items))) or 0,
            "system_outputs": session.scalar(select(func.count()).select_from(SystemOutput)
                                             .where(SystemOutput.item_id.in_(items))) or 0,
            "reviews": session.scalar(select(func.count(ManualLabel.output_id)).join(Output)
                                      .where(Output.item_id.in_(items))) or 0,
        }
