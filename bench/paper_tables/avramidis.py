"""Avramidis et al., *Fine-grained evaluation of Quality Estimation for MT based on a linguistically-motivated Test
Suite*: Tables 2-4 (QE pairwise accuracy per error category, per verb tense, per verb type) in the paper's form, on
the public DFKI de-en suite of ../shared with the WMT21 systems' outputs, labelled by the suite's rules.

The paper's five QE systems (QuEst B17, B13, three A17 variants) are not available. tsqe's two QE systems stand
beside the two the paper's are closest to: ``features-svr`` (an SVR on QuEst-like surface features, trained on
MLQE-PE en-de HTER: ../shared has no German-English QE data, and the features need no language resource) in the
column ``B17 baseline``, and ``pairwise-gb`` (a gradient-boosting comparative model, as A17 is, trained on the
suite's own pairs and scored out of fold, 5 folds) in the column ``A17 full``; ``amount`` is the number of pairs.
Ties count half (tsqe's QE default; the paper does not say).

Tables 3 and 4 pool the phenomena of the verb category by the part of their name after and before `` - ``
(``Modal negated - perfect``: tense ``perfect``, type ``Modal negated``), which is how the paper splits its verb
category; the three verb phenomena without a tense (Conditional, Imperative, Progressive) are in neither table.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache

import numpy as np

from bench.paper_tables import Record
from bench.paper_tables.data import DFKI_DEEN, Data

PAPER = "avramidis"
SVR = "avramidis-features-svr"
GB = "avramidis-pairwise-gb"
SYSTEMS = {SVR: "B17 baseline", GB: "A17 full"}
"""tsqe's QE system -> the column of the paper's system it stands beside."""
VERBS = "Verb tense/aspect/mood"
Quoted = tuple[int | None, float, float]
"""A row of the paper: amount, B17 baseline, A17 full."""

CATEGORIES: dict[str, tuple[str, int | None, float, float]] = {
    "Ambiguity": ("Ambiguity", 89, 58.4, 62.9), "Composition": ("Composition", 75, 58.7, 77.3),
    "Coordination & ellipsis": ("Coordination & ellipsis", 78, 53.8, 70.5),
    "False friends": ("False friends", 52, 38.5, 42.3), "Function word": ("Function word", 126, 33.3, 34.9),
    "LDD & interrogatives": ("Long distance dep. & interrogatives", 266, 52.3, 65.8),
    "MWE": ("Multi-word expressions", 43, 32.6, 39.5),
    "Named entitiy & terminology": ("Named entity & terminology", 55, 50.9, 60.0),
    "Negation": ("Negation", 13, 38.5, 76.9), "Non-verbal agreement": ("Non-verbal agreement", 45, 40.0, 53.3),
    "Punctuation": ("Punctuation", 138, 11.6, 27.5), "Subordination": ("Subordination", 46, 41.3, 47.8),
    VERBS: ("Verb tense/aspect/mood/type", 2137, 56.6, 57.7), "Verb valency": ("Verb valency", 67, 50.7, 62.7),
    "Total": ("Total", 3230, 52.1, 56.7), "weighed": ("weighed", None, 44.1, 55.6)}
"""Table 2: the DFKI suite's category -> (the paper's row, amount, B17 baseline, A17 full)."""
TENSES: dict[str, Quoted] = {"future I": (297, 58.9, 51.5), "future I subjunctive II": (249, 62.7, 53.0),
          "future II": (158, 39.2, 53.2), "future II subjunctive II": (168, 32.7, 75.6),
          "perfect": (294, 55.4, 54.8), "pluperfect": (282, 72.7, 68.1),
          "pluperfect subjunctive II": (159, 52.2, 55.3), "present": (286, 58.0, 52.8),
          "preterite": (105, 61.0, 68.6), "preterite subjunctive II": (88, 62.5, 55.7)}
"""Table 3: tense -> (amount, B17 baseline, A17 full)."""
TYPES: dict[str, Quoted] = {"Ditransitive": (275, 46.9, 60.0), "Intransitive": (171, 42.1, 64.3),
                            "Modal": (473, 63.4, 67.2), "Modal negated": (657, 70.3, 46.3),
                            "Reflexive": (376, 44.7, 58.5), "Transitive": (134, 39.6, 68.7)}
"""Table 4: verb type -> (amount, B17 baseline, A17 full)."""


@cache
def _inputs(data: Data):  # type: ignore[no-untyped-def]
    """The suite's pairs and the two QE systems' scores, training them the first time (then kept in the cache)."""
    from qe.evaluation import read_inputs
    from qe.training import predict_qe_system, train_qe_system
    from suite.qe_scores import list_qe_systems

    db = data.database(DFKI_DEEN)
    known = {s.name for s in list_qe_systems(db)}
    if SVR not in known:
        train_qe_system(db, name=SVR, kind="features-svr", data=[str(data.shared / "mlqe-pe" / "en-de" / "train")])
        predict_qe_system(db, SVR, DFKI_DEEN)
    if GB not in known:
        train_qe_system(db, name=GB, kind="pairwise-gb", folds=5, suite_name=DFKI_DEEN)
    return read_inputs(db, DFKI_DEEN, list(SYSTEMS))


def verb_part(inputs, part: int):  # type: ignore[no-untyped-def]
    """The inputs with each verb phenomenon renamed to its tense (part 1) or type (part 0); every other item
    taken out of the verb category, so that the table restricted to it has the paper's rows only."""
    outputs = inputs.pairs.outputs
    categories, phenomena = outputs.item_categories.copy(), outputs.item_phenomena.copy()
    for i, (category, phenomenon) in enumerate(zip(categories, phenomena)):
        if category == VERBS and phenomenon and " - " in phenomenon:
            phenomena[i] = phenomenon.split(" - ", 1)[part]
        elif category == VERBS:
            categories[i] = None
    regrouped = replace(outputs, item_categories=categories, item_phenomena=phenomena)
    return replace(inputs, pairs=replace(inputs.pairs, outputs=regrouped))


def _records(table: str, result, published: Callable[[str], tuple[str, Quoted] | None],  # type: ignore[no-untyped-def]
             ) -> list[Record]:
    records = []
    for row in [*result.rows, result.total, result.weighed]:
        quoted = published(row.name)
        if quoted is None:
            continue
        label, (amount, b17, a17) = quoted
        records.append(Record(PAPER, table, label, "amount", row.amount, amount))
        for system, column in SYSTEMS.items():
            value = row.accuracy[system]
            records.append(Record(PAPER, table, label, column, None if np.isnan(value) else round(100 * value, 1),
                                  b17 if system == SVR else a17))
    return records


def table_accuracy(inputs, category: str | None):  # type: ignore[no-untyped-def]
    from qe.evaluation import AccuracyOptions, accuracy

    return accuracy(inputs, AccuracyOptions(by="category" if category is None else "phenomenon", category=category,
                                            qe=tuple(SYSTEMS), bootstrap=0))


def table2(data: Data) -> list[Record]:
    def quoted(name: str) -> tuple[str, Quoted] | None:
        row = CATEGORIES.get(name)
        return None if row is None else (row[0], (row[1], row[2], row[3]))

    return _records("table2", table_accuracy(_inputs(data), None), quoted)


def _verb_table(data: Data, table: str, part: int, rows: dict[str, Quoted]) -> list[Record]:
    result = table_accuracy(verb_part(_inputs(data), part), VERBS)
    return _records(table, result, lambda name: (name, rows[name]) if name in rows else None)


def table3(data: Data) -> list[Record]:
    return _verb_table(data, "table3", 1, TENSES)


def table4(data: Data) -> list[Record]:
    return _verb_table(data, "table4", 0, TYPES)


TABLES: dict[str, Callable[[Data], list[Record]]] = {"table2": table2, "table3": table3, "table4": table4}
