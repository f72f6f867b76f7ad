"""Can a classifier tell two datasets apart? Adversarial validation, Xiang et al. 2022 §4.2 and Table 5.

If two test sets were drawn from one distribution, a classifier trained to say which set an item comes from does
no better than chance (50 %); the further above, the further the sets deviate from the i.i.d. assumption under
which a metric's ranking on one would carry over to the other. Per pair of suites and seed: the same number of
items is drawn from each (the larger suite sampled down, so that chance stays 50 %), each suite's items are split
into train, dev and test (60/20/20, no item in two splits), a classifier is trained on the train split, its
regularisation picked on dev, and its accuracy measured on test; the table shows the mean over the seeds. The
diagonal separates two random halves of one suite (the paper's diagonal): what "no difference" reaches here.

Deviations from the paper, and why:

- **Classifier**: the paper fine-tunes mBERT, which would need a download and a GPU; here a logistic regression
  (scikit-learn) on character 1-3-gram TF-IDF (``char_wb``, fitted on the train split only). It needs nothing
  downloaded and separates two WMT test sets in seconds; it sees surface features (names, spelling, topics),
  not meaning, so its accuracies are a lower bound of what a fine-tuned model finds. Every output says so.
- **With outputs**: the paper concatenates each system output with its source, one example per (source,
  output). Here each item is one example: its source and one of its distinct outputs drawn at random (per seed).
  So both suites give as many examples as items whatever their number of systems (a suite with more systems
  would otherwise have more examples, and chance would no longer be 50 %), and the two tables differ by the
  outputs only.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import select

from store import Database
from store.models import Item, Output
from suite.errors import TsqeError
from suite.figures import heat_map
from suite.suites import find_suite
from suite.tables import Cell, Column, Table
from suite.tasks import TaskState, progress_of

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SPLIT = (0.6, 0.2, 0.2)
"""Train, dev and test shares of each suite's drawn items."""
REGULARISATION = (0.1, 1.0, 10.0)
"""Logistic regression's C, picked on the dev split."""
LOWEST_ITEMS = 10
"""Fewer items a side leave a test split of one or two: no accuracy worth a table."""
FEATURES = "logistic regression on character 1-3-gram TF-IDF (scikit-learn), not the paper's fine-tuned mBERT"


@dataclass(frozen=True)
class AdversarialOptions:
    suites: tuple[str, ...]
    with_outputs: bool = False
    """Each example is the item's source and one of its outputs (Table 5b), else the source alone (5a)."""
    seeds: int = 5


@dataclass(frozen=True)
class SuiteTexts:
    suite: str
    sources: list[str]
    outputs: list[list[str]]
    """The distinct outputs of each item, in the order of ``sources``."""


@dataclass(frozen=True)
class Separation:
    """How well the classifier tells ``first`` from ``second`` (the same suite: two random halves of it)."""

    first: str
    second: str
    accuracies: list[float]
    """Test accuracy per seed."""
    items: int
    """Items drawn from each side per seed."""

    @property
    def mean(self) -> float:
        return float(np.mean(self.accuracies))


@dataclass(frozen=True)
class AdversarialValidation:
    options: AdversarialOptions
    separations: list[Separation]

    def matrix(self) -> tuple[list[str], np.ndarray]:
        names = list(self.options.suites)
        values = np.full((len(names), len(names)), np.nan)
        for s in self.separations:
            i, j = names.index(s.first), names.index(s.second)
            values[i, j] = values[j, i] = s.mean
        return names, values

    def _what(self) -> str:
        return "source + one output" if self.options.with_outputs else "source only"

    def notes(self) -> list[str]:
        sizes = "; ".join(f"{s.first} / {s.second}: {s.items} items a side" for s in self.separations)
        return [f"Accuracy (%) of a classifier telling the row's suite from the column's ({self._what()} per item), "
                f"mean over {self.options.seeds} seeds; 50 % is chance. Diagonal: two random halves of one suite.",
                f"Classifier: {FEATURES}; train/dev/test {'/'.join(str(round(p * 100)) for p in SPLIT)} per suite, "
                "no item in two splits, the larger suite sampled down to the smaller.", sizes + "."]

    def to_table(self) -> Table:
        names, values = self.matrix()
        columns = [Column("suite", "text"), *(Column(name, "number", 1) for name in names)]
        body = [[Cell(name), *(Cell(None if np.isnan(v) else 100 * float(v)) for v in values[i])]
                for i, name in enumerate(names)]
        return Table(title=f"Adversarial validation: can the suites be told apart? ({self._what()})",
                     columns=columns, body=body, notes=self.notes())

    def heat_map(self) -> Figure:
        names, values = self.matrix()
        return heat_map(names, 100 * values, title=f"Adversarial validation (%)\n{self._what()}\n"
                                                   "char n-gram TF-IDF",
                        scale=("accuracy (%)", 50.0, 100.0))

    def to_dict(self) -> dict[str, object]:
        return {"with_outputs": self.options.with_outputs, "seeds": self.options.seeds, "classifier": FEATURES,
                "split": list(SPLIT),
                "pairs": [{"first": s.first, "second": s.second, "items": s.items, "accuracies": s.accuracies,
                           "mean": s.mean} for s in self.separations]}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


def read_texts(db: Database, suite_name: str) -> SuiteTexts:
    with db.session() as session:
        suite = find_suite(session, suite_name)
        items = session.execute(select(Item.id, Item.source).where(Item.suite_id == suite.id)
                                .order_by(Item.position)).all()
        outputs: dict[int, list[str]] = {}
        for item_id, text in session.execute(select(Output.item_id, Output.text).join(Item, Item.id == Output.item_id)
                                             .where(Item.suite_id == suite.id).order_by(Output.id)):
            outputs.setdefault(item_id, []).append(text)
    return SuiteTexts(suite.name, [source for _, source in items], [outputs.get(item_id, []) for item_id, _ in items])


def adversarial_validation(db: Database, options: AdversarialOptions,
                           task: TaskState | None = None) -> AdversarialValidation:
    """Every pair of the options' suites, each suite with itself included."""
    if not options.suites:
        raise TsqeError("adversarial validation needs at least one suite")
    if options.seeds < 1:
        raise TsqeError(f"adversarial validation needs at least one seed, not {options.seeds}")
    progress = progress_of(task)
    texts = {name: read_texts(db, name) for name in dict.fromkeys(options.suites)}
    names = list(texts)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i:]]
    separations = []
    for done, (a, b) in enumerate(pairs):
        progress.progress(done, len(pairs), f"telling {a} from {b}")
        separations.append(separate(texts[a], texts[b], with_outputs=options.with_outputs, seeds=options.seeds))
    progress.progress(len(pairs), len(pairs), f"separated {len(pairs)} pairs of suites")
    return AdversarialValidation(AdversarialOptions(tuple(names), options.with_outputs, options.seeds), separations)


def _examples(texts: SuiteTexts, with_outputs: bool, rng: np.random.Generator) -> list[str]:
    if not with_outputs:
        return list(texts.sources)
    return [f"{source}\n{outputs[rng.integers(len(outputs))]}"
            for source, outputs in zip(texts.sources, texts.outputs) if outputs]


def separate(first: SuiteTexts, second: SuiteTexts, *, with_outputs: bool, seeds: int) -> Separation:
    """Mean test accuracy over ``seeds`` of a classifier between the two suites' items (two halves of one)."""
    accuracies = []
    items = 0
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        left = _examples(first, with_outputs, rng)
        if first.suite == second.suite:
            order = rng.permutation(len(left))
            half = len(left) // 2
            left, right = [left[i] for i in order[:half]], [left[i] for i in order[half:2 * half]]
        else:
            right = _examples(second, with_outputs, rng)
        items = min(len(left), len(right))
        if items < LOWEST_ITEMS:
            what = "items with outputs" if with_outputs else "items"
            raise TsqeError(f"{first.suite} / {second.suite}: {items} {what} a side, too few to train and test a "
                            f"classifier (at least {LOWEST_ITEMS})")
        left = [left[i] for i in rng.choice(len(left), items, replace=False)]
        right = [right[i] for i in rng.choice(len(right), items, replace=False)]
        accuracies.append(classify(left, right, seed))
    return Separation(first.suite, second.suite, accuracies, items)


def _split(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    order = rng.permutation(count)
    train_end = round(count * SPLIT[0])
    dev_end = train_end + round(count * SPLIT[1])
    return order[:train_end], order[train_end:dev_end], order[dev_end:]


def classify(left: Sequence[str], right: Sequence[str], seed: int) -> float:
    """Test accuracy of the classifier trained to tell ``left`` (label 0) from ``right`` (label 1), each side split
    on its own into train/dev/test, the regularisation picked on dev."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(seed + 1_000_003)
    parts: dict[str, tuple[list[str], list[int]]] = {"train": ([], []), "dev": ([], []), "test": ([], [])}
    for label, texts in enumerate((left, right)):
        for name, indices in zip(parts, _split(len(texts), rng)):
            parts[name][0].extend(texts[i] for i in indices)
            parts[name][1].extend([label] * len(indices))
    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(1, 3), sublinear_tf=True, min_df=2,
                                 lowercase=False)
    train = vectorizer.fit_transform(parts["train"][0])
    dev, test = (vectorizer.transform(parts[name][0]) for name in ("dev", "test"))
    best, best_dev = None, -1.0
    for c in REGULARISATION:
        model = LogisticRegression(C=c, solver="liblinear", random_state=seed).fit(train, parts["train"][1])
        score = float(model.score(dev, parts["dev"][1]))
        if score > best_dev:
            best, best_dev = model, score
    assert best is not None
    return float(best.score(test, parts["test"][1]))
