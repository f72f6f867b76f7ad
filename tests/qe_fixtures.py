"""Small labelled suites written straight into a test database, for the QE model tests."""
from __future__ import annotations

from collections.abc import Sequence

from qe.accuracy import read_qe_scores
from store import Database
from label_helpers import write_automatic_labels
from store.models import Category, Item, Output, Phenomenon, Suite, System, SystemOutput

# (external id, category, source, [(system, output, auto label), ...])
ItemSpec = tuple[str, str, str, Sequence[tuple[str, str, str]]]


def build_suite(db: Database, items: Sequence[ItemSpec], name: str = "toy") -> dict[tuple[str, str], int]:
    """Write a suite with automatically labelled outputs; returns output ids by (item id, output text)."""
    with db.transaction() as session:
        suite = Suite(name=name, source_lang="en", target_lang="de")
        session.add(suite)
        categories: dict[str, Phenomenon] = {}
        systems: dict[str, System] = {}
        outputs: dict[tuple[str, str], Output] = {}
        labels: dict[tuple[str, str], str] = {}
        for position, (external_id, category, source, produced) in enumerate(items):
            if category not in categories:
                categories[category] = Phenomenon(name=f"{category} phenomenon",
                                                  category=Category(name=category, suite=suite))
                session.add(categories[category])
            item = Item(suite=suite, external_id=external_id, position=position, source=source,
                        phenomenon=categories[category])
            session.add(item)
            for system_name, text, label in produced:
                system = systems.get(system_name)
                if system is None:
                    system = systems[system_name] = System(name=system_name, suite=suite)
                    session.add(system)
                output = outputs.get((external_id, text))
                if output is None:
                    output = outputs[(external_id, text)] = Output(item=item, text=text)
                    labels[(external_id, text)] = label
                    session.add(output)
                session.flush()
                session.add(SystemOutput(system_id=system.id, item_id=item.id, output_id=output.id))
        session.flush()
        write_automatic_labels(session, {outputs[key].id: label for key, label in labels.items()})
        return {key: output.id for key, output in outputs.items()}


def stored_scores(db: Database, names: Sequence[str] | None = None) -> dict[str, tuple[bool, dict[int, float]]]:
    """The QE scores as ``{name: (higher_is_better, {output_id: score})}``, read the way accuracy reads them."""
    return {s.name: (s.higher_is_better, dict(zip(s.output_ids.tolist(), s.scores.tolist())))
            for s in read_qe_scores(db, names=names)}
