"""The database ``bench/papers.py`` makes from ``../shared/data/external``: one SQLite file in the cache folder
holding a suite per dataset (adversarial validation compares suites of one database), each imported the first
time a table needs it and kept with its metric caches, so that a later run only computes.

The datasets are those the papers used where ``../shared`` has them: WMT19 en-de with the six sets of
wmt19-paraphrased-references under Freitag et al.'s names (their Tables 3-5, Figure 2; Zhan et al.'s DA paper),
WMT19 de-en (Xiang et al. 2022's 2019 column, the VAT and DA papers), newstest2021 de-en (a second German
source for Xiang et al.'s adversarial validation and error numbers) and the DFKI de-en test suite.
"""
from __future__ import annotations

import hashlib
import pickle
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from sqlalchemy import select

from store import Database, open_database
from store.models import Suite
from suite.version import VERSION

T = TypeVar("T")

WMT19_ENDE = "newstest2019-ende"
WMT19_DEEN = "newstest2019-deen"
NEWSTEST2021_DEEN = "newstest2021-deen"
DFKI_DEEN = "dfki-de-en"
PARAPHRASED = {"ar": ("ar", "standard"), "ar.p": ("arp", "paraphrase"), "wmt.p": ("wmtp", "paraphrase"),
               "hq-r": ("hqr", "standard"), "hq-p": ("hqp", "paraphrase"), "hq-all": ("hqall", "paraphrase")}
"""Set name -> (file stem in wmt19/ende, kind), as bench/references.py names them."""


@dataclass(eq=False)
class Data:
    """Where the shared data and the cached database are; the database is opened once a run, a suite imported
    the first time it is asked for. Compared by identity: the tables of one run memoise shared work on it."""

    shared: Path
    cache: Path
    embeddings: bool = True
    """False: the BERTScore family's cells are left null and the tables made of it alone are skipped (its
    embeddings of every output are hours of a loaded 2-core machine the first time)."""
    opened: Database | None = None
    present: set[str] = field(default_factory=set)

    def database(self, *suites: str) -> Database:
        """The database, with ``suites`` in it."""
        if self.opened is None:
            self.cache.mkdir(parents=True, exist_ok=True)
            if not (self.cache / "papers.sqlite").exists():  # results of another database's scores go with it
                shutil.rmtree(self.results, ignore_errors=True)
            self.opened = open_database(self.cache / "papers.sqlite")
        for suite in suites:
            if suite in self.present:
                continue
            with self.opened.session() as session:
                found = session.scalar(select(Suite.id).where(Suite.name == suite)) is not None
            if not found:
                IMPORTS[suite](self.opened, self.shared)
            self.present.add(suite)
        return self.opened

    @property
    def results(self) -> Path:
        return self.cache / "results"

    def kept(self, key: str, compute: Callable[[], T]) -> T:
        """``compute()``'s result, kept in the cache folder between runs under ``key`` (the call's arguments)
        and tsqe's version: the database keeps segment scores, but a correlation table's pair statistics (TER's
        above all), a bootstrap or a classifier's accuracies are computed again on every run without this.
        A fresh database (or deleting ``results/``) computes them again."""
        self.database()
        digest = hashlib.sha256(f"{VERSION}\n{key}".encode()).hexdigest()[:20]
        path = self.results / f"{digest}.pickle"
        if path.exists():
            with path.open("rb") as stream:
                found: T = pickle.load(stream)  # written by this script into its own cache folder
            return found
        value = compute()
        self.results.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        with partial.open("wb") as stream:
            pickle.dump(value, stream)
        partial.replace(path)
        return value

    def close(self) -> None:
        if self.opened is not None:
            self.opened.close()
            self.opened = None


def _wmt19(db: Database, shared: Path, pair: str) -> None:
    from suite.importers.human_scores import import_human_scores
    from suite.importers.references import import_references
    from suite.importers.wmt import import_wmt

    wmt19 = shared / "global-explainability-metrics" / "WMT19"
    compact = pair.replace("-", "")
    suite = f"newstest2019-{compact}"
    import_wmt(db, src=wmt19 / "source" / f"newstest2019-{compact}-src.{pair[:2]}",
               refs=[wmt19 / "references" / f"newstest2019-{compact}-ref.{pair[3:]}"], ref_names=["wmt"],
               systems=[wmt19 / "system-outputs" / pair], name=suite)
    if pair == "en-de":
        for name, (stem, kind) in PARAPHRASED.items():
            import_references(db, shared / "wmt19-paraphrased-references" / "wmt19" / "ende" / f"wmt19-ende-{stem}.ref",
                              name=name, kind=kind, suite_name=suite)
    import_human_scores(db, wmt19 / "DA-syslevel.csv", lp=pair, suite_name=suite)


def _newstest2021(db: Database, shared: Path) -> None:
    from suite.importers.human_scores import import_human_scores
    from suite.importers.wmt import import_wmt

    folder = shared / "wmt21-news-systems" / "newstest2021-de-en"
    import_wmt(db, src=folder / "txt" / "sources" / "newstest2021.de-en.src.de",
               refs=sorted((folder / "txt" / "references").iterdir()),
               systems=[folder / "txt" / "system-outputs"], name=NEWSTEST2021_DEEN)
    human = folder / "humaneval"
    import_human_scores(db, human / "ad-sys-scores-de-en.csv", segments=human / "ad-seg-scores-de-en.csv",
                        significance=human / "ad-DA-diff-wilcoxon-rs-deen.csv",
                        renames={"Nemo.7": "NVIDIA-NeMo"}, suite_name=NEWSTEST2021_DEEN)


def _dfki(db: Database, shared: Path) -> None:
    """The public DFKI de-en suite with the WMT21 systems' outputs on it, labelled by its rules."""
    from suite.engine.labelling import label_suite
    from suite.importers import import_outputs, import_suite

    import_suite(db, shared / "mt-testsuite" / "testset" / "de-en" / "items.json", name=DFKI_DEEN)
    import_outputs(db, shared / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv", suite_name=DFKI_DEEN)
    label_suite(db, DFKI_DEEN)


IMPORTS = {WMT19_ENDE: lambda db, shared: _wmt19(db, shared, "en-de"),
           WMT19_DEEN: lambda db, shared: _wmt19(db, shared, "de-en"),
           NEWSTEST2021_DEEN: _newstest2021, DFKI_DEEN: _dfki}
