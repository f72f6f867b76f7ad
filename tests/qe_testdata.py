"""Small hand-made suites for the QE tests, inserted with Core like the importers do, and the stored QE scores."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from label_helpers import write_automatic_labels
from sqlalchemy import insert

from qe.pairs import LabelledOutputs
from store import Database
from store.models import (
    Category,
    Item,
    ManualLabel,
    Output,
    Phenomenon,
    QEScore,
    QESystem,
    Suite,
    System,
    SystemOutput,
)
from suite.qe_scores import read_qe_scores


@dataclass
class ItemSpec:
    external_id: str
    category: str
    phenomenon: str
    # text -> (automatic label, systems that produced it)
    outputs: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    source: str | None = None
    """The source sentence; ``Satz <id>.`` when it does not matter."""


def make_suite(db: Database, items: Sequence[ItemSpec], name: str = "test",
               languages: tuple[str, str] = ("de", "en")) -> dict[tuple[str, str], int]:
    """Insert a suite; returns output ids by (item external id, output text)."""
    ids: dict[tuple[str, str], int] = {}
    with db.transaction() as session:
        suite = Suite(name=name, source_lang=languages[0], target_lang=languages[1])
        session.add(suite)
        session.flush()
        phenomena: dict[tuple[str, str], int] = {}
        categories: dict[str, int] = {}
        systems: dict[str, int] = {}
        for position, spec in enumerate(items):
            if spec.category not in categories:
                category = Category(suite_id=suite.id, name=spec.category)
                session.add(category)
                session.flush()
                categories[spec.category] = category.id
            key = (spec.category, spec.phenomenon)
            if key not in phenomena:
                phenomenon = Phenomenon(category_id=categories[spec.category], name=spec.phenomenon)
                session.add(phenomenon)
                session.flush()
                phenomena[key] = phenomenon.id
            item = Item(suite_id=suite.id, external_id=spec.external_id, position=position,
                        phenomenon_id=phenomena[key], source=spec.source or f"Satz {spec.external_id}.")
            session.add(item)
            session.flush()
            for text, (label, producers) in spec.outputs.items():
                output_id = session.execute(insert(Output).returning(Output.id),
                                            [{"item_id": item.id, "text": text}]).scalar_one()
                ids[(spec.external_id, text)] = output_id
                write_automatic_labels(session, {output_id: label})
                for producer in producers:
                    if producer not in systems:
                        system = System(suite_id=suite.id, name=producer)
                        session.add(system)
                        session.flush()
                        systems[producer] = system.id
                    session.execute(insert(SystemOutput), [{"system_id": systems[producer], "item_id": item.id,
                                                            "output_id": output_id}])
    return ids


Row = tuple[str, str, str, Sequence[tuple[str, str, str]]]
"""(external id, category, source, [(system, output, automatic label), ...]), as the QE model tests write items."""


def toy_suite(db: Database, rows: Sequence[Row]) -> dict[tuple[str, str], int]:
    """English-German suite ``toy`` from rows, one phenomenon per category (an output several systems produced
    keeps its first label); returns output ids by (item external id, output text)."""
    specs = []
    for external_id, category, source, produced in rows:
        outputs: dict[str, tuple[str, tuple[str, ...]]] = {}
        for system, text, label in produced:
            first_label, systems = outputs.get(text, (label, ()))
            outputs[text] = (first_label, (*systems, system))
        specs.append(ItemSpec(external_id, category, f"{category} phenomenon", outputs, source))
    return make_suite(db, specs, name="toy", languages=("en", "de"))


def set_manual(db: Database, output_id: int, label: str) -> None:
    with db.transaction() as session:
        session.execute(insert(ManualLabel), [{"output_id": output_id, "label": label, "reviewer": "tester"}])


def add_qe(db: Database, name: str, scores: Mapping[int, float], higher_is_better: bool = True) -> None:
    with db.transaction() as session:
        qe_id = session.execute(insert(QESystem).returning(QESystem.id),
                                [{"name": name, "kind": "imported", "higher_is_better": higher_is_better,
                                  "meta": "{}"}]).scalar_one()
        session.execute(insert(QEScore), [{"qe_system_id": qe_id, "output_id": o, "score": s}
                                          for o, s in scores.items()])


def synthetic_outputs(n_items: int, rng: np.random.Generator, *, categories: int = 3,
                      outputs_per_item: tuple[int, int] = (3, 8)) -> LabelledOutputs:
    """Random items with pass/fail/unknown outputs, for statistics tests that need many items."""
    names = np.array([f"cat{c}" for c in range(categories)], dtype=object)
    item_categories = names[rng.integers(0, categories, n_items)]
    counts = rng.integers(outputs_per_item[0], outputs_per_item[1] + 1, n_items)
    output_item = np.repeat(np.arange(n_items), counts)
    n = output_item.size
    labels = np.where(rng.random(n) < 0.5, "pass", "fail").astype(object)
    labels[rng.random(n) < 0.1] = "unknown"
    empty = np.empty(n, dtype=object)
    empty[:] = ""
    item_ids = np.empty(n_items, dtype=object)
    item_ids[:] = [str(i) for i in range(n_items)]
    return LabelledOutputs(item_ids=item_ids, item_categories=item_categories,
                           item_phenomena=item_categories.copy(), output_ids=np.arange(1, n + 1, dtype=np.int64),
                           output_item=output_item, labels=labels, output_texts=empty, output_systems=empty.copy())


def stored_scores(db: Database, names: Sequence[str] | None = None) -> dict[str, tuple[bool, dict[int, float]]]:
    """The QE scores as ``{name: (higher_is_better, {output_id: score})}``, read the way accuracy reads them."""
    return {s.name: (s.higher_is_better, dict(zip(s.output_ids.tolist(), s.scores.tolist())))
            for s in read_qe_scores(db, names=names)}
