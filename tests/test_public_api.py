"""The public Python API (``import tsqe``, issue 31): light to import, the same figures as the command line (it
calls the same core), typed results that become DataFrames, progress and cancellation as the CLI's.

The demo database is made once by ``tsqe demo`` (the command, in its own process) and read by both front-ends.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import tsqe
from suite.errors import TsqeError
from suite.tasks import Progress

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
TOO_HEAVY_TO_IMPORT = ("sqlalchemy", "numpy", "pandas", "scipy", "torch", "PySide6", "shiboken6", "matplotlib",
                       "sklearn", "transformers", "sacrebleu", "alembic")
"""What ``import tsqe`` must not load: a notebook's first cell should not wait for torch or Qt."""


def tsqe_command(*args: str, cwd: Path) -> str:
    result = subprocess.run([sys.executable, "-m", "cli", *args], cwd=cwd, env=ENV, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    tsqe_command("--db", str(folder / "demo.sqlite"), "demo", cwd=folder)
    return folder / "demo.sqlite"


@pytest.fixture
def suite(demo_db: Path) -> Iterator[tsqe.Suite]:
    with tsqe.open(demo_db) as db:
        yield db.suite()


def test_importing_tsqe_loads_no_heavy_library() -> None:
    code = "import json, sys, tsqe\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True, text=True,
                            check=True)
    assert set(json.loads(result.stdout)) & set(TOO_HEAVY_TO_IMPORT) == set()


def test_the_accuracy_table_in_a_fresh_interpreter_is_the_commands(demo_db: Path) -> None:
    """The issue's 'done when': ``tsqe.open(...).suite().accuracy(...).to_pandas()`` in a new interpreter holds the
    figures of ``tsqe accuracy --format json``, row for row (the categories, Total, weighed)."""
    document = json.loads(tsqe_command("--db", str(demo_db), "accuracy", "--format", "json", "--bootstrap", "200",
                                       cwd=demo_db.parent))
    kept = demo_db.parent / "accuracy.pickle"
    code = (f"import tsqe\nsuite = tsqe.open({str(demo_db)!r}).suite()\n"
            "table = suite.accuracy(by='category', ties='half', bootstrap=200)\n"
            f"table.to_pandas().to_pickle({str(kept)!r})")
    subprocess.run([sys.executable, "-c", code], cwd=demo_db.parent, env=ENV, check=True)
    frame = pd.read_pickle(kept)
    systems = document["qe_systems"]
    expected = [*document["rows"], {**document["total"], "category": "Total"},
                {**document["weighed"], "category": "weighed", "amount": None}]
    assert list(frame["category"]) == [row["category"] for row in expected]
    assert len(systems) == 2
    for (_, got), want in zip(frame.iterrows(), expected):
        assert (None if pd.isna(got["amount"]) else got["amount"]) == want["amount"]
        for system in systems:
            assert got[system] == pytest.approx(want["accuracy"][system], abs=1e-12)
            low, high = want["ci"][system]
            assert (got[f"{system} ci_low"], got[f"{system} ci_high"]) == pytest.approx((low, high), abs=1e-12)
            assert bool(got[f"{system} best"]) == (system in want["best"])
            if "tie_rate" in want:
                assert got[f"{system} ties"] == pytest.approx(want["tie_rate"][system], abs=1e-12)
        if "too_few" in want:
            assert bool(got["too_few"]) == want["too_few"]


def test_ties_as_text_or_as_the_type_are_one_choice_and_a_wrong_one_names_the_choices(suite: tsqe.Suite) -> None:
    as_text = suite.accuracy(ties="wrong", bootstrap=0).to_pandas()
    as_type = suite.accuracy(ties=tsqe.Ties.WRONG, bootstrap=0).to_pandas()
    pd.testing.assert_frame_equal(as_text, as_type)
    assert not as_text.equals(suite.accuracy(ties="half", bootstrap=0).to_pandas())
    with pytest.raises(TsqeError, match="ties 'coin' is not one of half, wrong, drop"):
        suite.accuracy(ties="coin")


def test_ranks_and_disagreement_come_with_the_table(suite: tsqe.Suite, demo_db: Path) -> None:
    accuracy = suite.accuracy(bootstrap=100)
    ranks = accuracy.ranks()
    assert list(ranks.columns) == ["row", "demo-qe", "demo-chrf"]
    assert set(ranks["demo-chrf"]) <= {1, 2}
    shown = json.loads(tsqe_command("--db", str(demo_db), "accuracy", "--bootstrap", "100", "--table",
                                    "disagreement", "--format", "json", cwd=demo_db.parent))
    assert json.loads(accuracy.disagreement().to_json()) == shown


def test_reports_equal_the_commands_documents(suite: tsqe.Suite, demo_db: Path) -> None:
    def command(*args: str) -> object:
        return json.loads(tsqe_command("--db", str(demo_db), *args, cwd=demo_db.parent))

    report = suite.systems_report(by="phenomenon")
    assert json.loads(report.to_json()) == command("report", "systems", "--by", "phenomenon", "--format", "json")
    assert report.to_pandas()["category"].iloc[-2:].tolist() == ["overall (micro)", "macro average"]
    assert suite.label().counts == command("label", "--json")
    assert suite.status()["labels"] == command("status", "--json")["labels"]  # type: ignore[index]
    pairs = suite.pairs().to_pandas()
    assert len(pairs) == len(suite.pairs()) == 161
    with pytest.raises(TsqeError, match="per category or per phenomenon"):
        suite.systems_report(by="system")


def test_metrics_variance_and_stability(suite: tsqe.Suite) -> None:
    scores = suite.scores("chrf")
    assert scores.signature.startswith("chrf") and list(scores.to_pandas().columns) == ["item_id", "system", "score"]
    variance = suite.variance("chrf", drop=0.5).to_pandas()
    kept = variance["kept"].sum()
    assert 0 < kept <= math.ceil(len(variance) / 2)  # strictly above the median deviation
    assert variance["std"][variance["kept"]].min() > variance["std"][~variance["kept"]].max()
    stability = suite.stability(splits=10).to_pandas()
    assert "category" in stability.columns and len(stability) > 1


def test_progress_reaches_the_callback_and_cancelling_stops_the_work(suite: tsqe.Suite) -> None:
    reports: list[Progress] = []
    suite.accuracy(bootstrap=200, progress=reports.append)
    assert reports and reports[-1].fraction == pytest.approx(1.0)
    assert [r.fraction for r in reports] == sorted(r.fraction for r in reports)

    task = tsqe.TaskState(lambda report: task.cancel())  # the first report asks to stop
    with pytest.raises(tsqe.Cancelled):
        suite.accuracy(bootstrap=200, progress=task)


def test_choosing_suites_and_importing(tmp_path: Path) -> None:
    with tsqe.open(tmp_path / "two.sqlite") as db:
        assert db.suites() == []
        db.create_demo()
        db.create_demo(name="second")
        assert db.suites() == ["second", "tsqe-demo-de-en"]
        with pytest.raises(TsqeError, match="several suites"):
            db.suite()
        with pytest.raises(TsqeError, match="no suite named 'nope'"):
            db.suite("nope")
        suite = db.suite("second")
        bad = tmp_path / "scores.tsv"
        bad.write_text("item_id\tsystem\tscore\namb-01\tBaseline-SMT\tnot-a-number\n", encoding="utf-8")
        with pytest.raises(TsqeError, match="scores.tsv:2"):
            suite.import_qe(bad, name="broken")
        good = tmp_path / "good.tsv"
        good.write_text("item_id\tsystem\tscore\namb-01\tBaseline-SMT\t0.5\namb-01\tLindenbaum-NMT\t0.9\n",
                        encoding="utf-8")
        result = suite.import_qe(good, name="tiny")
        assert result.summary and not result.warnings


def test_one_version_everywhere(demo_db: Path) -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert tsqe.__version__ == declared
    assert tsqe_command("--version", cwd=demo_db.parent) == f"tsqe {declared}\n"
    from filters.bertscore import ModelSpec

    signature = ModelSpec(path=Path("/m"), layer=6, key="k", device="cpu").signature
    assert signature.endswith(f"|tsqe:{declared}")


def test_open_creates_a_missing_file_unless_told_not_to(tmp_path: Path) -> None:
    with pytest.raises(TsqeError, match=f"there is no database at {tmp_path / 'typo.sqllite'}; nothing was created"):
        tsqe.open(tmp_path / "typo.sqllite", create=False)
    assert list(tmp_path.iterdir()) == []
    with tsqe.open(tmp_path / "new.sqlite") as created:
        assert created.suites() == []
    assert (tmp_path / "new.sqlite").is_file()
