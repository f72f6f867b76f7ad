"""Killing tsqe (SIGKILL) in the middle of a job leaves a sound database holding all or none of the job.

Each job (importing the demo suite, importing its outputs, relabelling, training a pairwise-gb QE model,
``tsqe score --metric chrf``, ``tsqe qe metric --metric chrf``, updating the suite from an edited file and
re-importing outputs that replace a system's translations, both with their history entries) runs once to
completion to measure its duration and its completed state, then is started again from the before-state and
killed at 20 seeded uniform random moments of that duration, plus right at the start and near the end. After
every kill the file must pass ``PRAGMA integrity_check`` and ``foreign_key_check`` and hold exactly the
before-state or the completed state (every table, datetime columns aside).

Starting ``python -m cli`` costs seconds of imports (torch, scikit-learn, Qt-free but heavy), far longer than
the jobs on the demo suite, so kills at uniform times would nearly all land before the database is opened.
The commands therefore run in children forked from one ``python`` process that has already imported the CLI
(``_serve`` below): each child runs ``tsqe ARGS`` exactly as the script does, with its own connections, and is
the process that gets killed. The duration measured is the command's, from fork to exit.

Run only these tests with ``pytest -m crash``; ``-s`` shows the figures.
"""
from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from suite.engine.labelling import CHUNK

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "suite" / "demo"
RANDOM_KILLS = 20
SEED = 20261123

pytestmark = pytest.mark.crash

State = dict[str, list[tuple[object, ...]]]


def _serve() -> None:
    """Read ``{"args": [...], "db": PATH, "kill_after": SECONDS|null}`` lines; run each in a forked child and
    answer ``{"seconds": ..., "status": ..., "killed": bool}``."""
    import cli.main
    import filters.qe_proxy  # noqa: F401  (imported lazily by the commands; preloaded so forks start warm)
    import filters.scoring  # noqa: F401
    import qe.training  # noqa: F401
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    for line in sys.stdin:
        request = json.loads(line)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            code = 1
            try:
                cli.main.app(args=["--db", request["db"], *request["args"]], prog_name="tsqe")
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
            finally:
                os._exit(code)
        killed = False
        if request["kill_after"] is not None:
            deadline = start + request["kill_after"]
            while time.monotonic() < deadline:
                finished, status = os.waitpid(pid, os.WNOHANG)
                if finished:
                    break
                time.sleep(0.002)
            else:
                os.kill(pid, signal.SIGKILL)
                killed = True
                _, status = os.waitpid(pid, 0)
        else:
            _, status = os.waitpid(pid, 0)
        protocol.write(json.dumps({"seconds": time.monotonic() - start, "status": status, "killed": killed}) + "\n")


@dataclass(frozen=True)
class Outcome:
    seconds: float
    status: int
    killed: bool


class Runner:
    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               "QT_QPA_PLATFORM": "offscreen", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        self.process = subprocess.Popen([sys.executable, __file__, "serve"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)

    def run(self, db: Path, args: list[str], kill_after: float | None = None) -> Outcome:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps({"db": str(db), "args": args, "kill_after": kill_after}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        return Outcome(answer["seconds"], answer["status"], answer["killed"])

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def runner() -> Iterator[Runner]:
    serving = Runner()
    yield serving
    serving.close()


def _copy(source: Path, target: Path) -> None:
    """A self-contained copy (what sits in ``-wal`` included), through SQLite's backup API."""
    for stale in (target, target.with_name(target.name + "-wal"), target.with_name(target.name + "-shm")):
        stale.unlink(missing_ok=True)
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def _state(path: Path) -> State:
    """Every table's rows, sorted, without the datetime columns and the counts' stamps (a re-run writes other
    times, and other random stamps)."""
    with closing(sqlite3.connect(path)) as conn:
        tables = [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        state: State = {}
        for table in tables:
            columns = [f'"{name}"' for _, name, kind, *_ in conn.execute(f'PRAGMA table_info("{table}")')
                       if kind.upper() not in ("DATETIME", "TIMESTAMP") and (table, name) != ("item_label_counts",
                                                                                              "stamp")]
            rows = conn.execute(f'SELECT {", ".join(columns)} FROM "{table}"').fetchall()
            state[table] = sorted(rows, key=repr)
        return state


def _sound(path: Path) -> None:
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []


LABELLING_TABLES = ("auto_labels", "label_fingerprints", "item_label_counts", "item_review_counts",
                    "item_group_counts")
"""What labelling writes: each chunk's part of them in one transaction."""


def _labelled_parts(state: State) -> dict[Any, tuple[list[tuple[object, ...]], ...]]:
    """Item id -> its rows of ``LABELLING_TABLES`` (auto labels through its outputs, the others by item id)."""
    parts: dict[Any, tuple[list[tuple[object, ...]], ...]] = {
        item_id: tuple([] for _ in LABELLING_TABLES) for item_id, *_ in state["items"]}
    item_of = {output_id: item_id for output_id, item_id, *_ in state["outputs"]}
    for row in state["auto_labels"]:
        parts[item_of[row[0]]][0].append(row)
    for position, table in enumerate(LABELLING_TABLES[1:], start=1):
        for row in state[table]:
            parts[row[0]][position].append(row)
    return parts


def _chunks_done(state: State, before: State, completed: State) -> int | None:
    """How many of labelling's chunks ``state`` holds as labelled, the others as before; None when a table other
    than labelling's changed, or an item or a chunk is half labelled."""
    if any(state[table] != before[table] for table in state if table not in LABELLING_TABLES):
        return None
    now, then, labelled = _labelled_parts(state), _labelled_parts(before), _labelled_parts(completed)
    items = sorted(now)
    done = 0
    for start in range(0, len(items), CHUNK):
        parts = {"before" if now[item_id] == then[item_id] else "labelled" if now[item_id] == labelled[item_id]
                 else "half" for item_id in items[start:start + CHUNK]}
        if len(parts) != 1 or parts == {"half"}:
            return None
        done += parts == {"labelled"}
    return done


@dataclass(frozen=True)
class Job:
    name: str
    before: str  # the state the job starts from
    args: list[str]
    chunked: bool = False
    """Whether the job writes in chunks, each all or nothing (labelling), rather than all at once."""


DEMO_SUITE = ["import", "suite", str(DEMO / "suite.tsv"), "--name", "demo", "--source-lang", "de",
              "--target-lang", "en"]
STEPS: dict[str, list[str]] = {  # each state is the previous one after these arguments
    "suite": DEMO_SUITE,
    "outputs": ["import", "outputs", str(DEMO / "outputs.tsv")],
    "labelled": ["label"],
    "reviewed": ["import", "labels", str(DEMO / "reviews.tsv")],
}
BIG_ITEMS, BIG_SYSTEMS = 2_000, 30
"""A suite large enough to be labelled by workers in 40 chunks (60,000 outputs), for the kills to land in the
middle of labelling rather than in the command's start-up."""


def _big_inputs(folder: Path) -> tuple[Path, Path]:
    """The big suite and its systems' outputs: half of them pass, a quarter fail, a quarter are unknown."""
    items = ",\n".join(f'{{"id": "b{item}", "langpair": "deen", "category": "C{item % 7}", "phenomenon": "P", '
                        f'"source_sentence": "Satz {item}.", "positive_regex": "\\\\b(good|fine) {item % 13}\\\\b", '
                        f'"negative_regex": "bad {item % 13}"}}' for item in range(BIG_ITEMS))
    (folder / "de-en").mkdir(exist_ok=True)
    suite = folder / "de-en" / "items.json"
    suite.write_text(f'{{"items": [\n{items}\n]}}\n', encoding="utf-8")
    outputs = folder / "big-outputs.tsv"
    words = ("good", "fine", "bad", "odd")
    outputs.write_text("item_id\tsystem\toutput\n" + "".join(
        f"b{item}\tS{system}\tA {words[(item + system) % 4]} {item % 13} output of system {system}\n"
        for item in range(BIG_ITEMS) for system in range(BIG_SYSTEMS)), encoding="utf-8")
    return suite, outputs


JOBS = [
    Job("import suite", "empty", DEMO_SUITE),
    Job("import outputs", "suite", STEPS["outputs"]),
    Job("relabel", "outputs", STEPS["labelled"], chunked=True),
    Job("relabel in workers", "big outputs", ["label"], chunked=True),
    Job("qe train pairwise-gb", "reviewed", ["qe", "train", "--name", "gb", "--kind", "pairwise-gb"]),
    Job("score chrf", "reviewed", ["score", "--metric", "chrf", "--out", "{tmp}/scores.tsv"]),
    Job("qe metric chrf", "reviewed", ["qe", "metric", "--metric", "chrf"]),
    Job("update suite", "reviewed", ["import", "suite", "{tmp}/suite.tsv", "--name", "demo", "--update",
                                     "--remove-missing"]),
    Job("replace outputs", "reviewed", ["import", "outputs", "{tmp}/outputs.tsv"]),
]


def _edited_inputs(folder: Path) -> None:
    """The demo's suite as a linguist changed it (a source, a rule, an item dropped, one added) and outputs
    that replace a system's translation of every item: the files the update jobs import."""
    lines = (DEMO / "suite.tsv").read_text(encoding="utf-8").splitlines()
    rows = [line.split("\t") for line in lines[1:] if line.strip()]
    rows[0][5] = r"\bbanks?\b"
    rows[1][3] += " Immer."
    del rows[3]
    rows.append(["new-01", "Ambiguity", "Lexical ambiguity", "Der Hund schläft.", r"\bdog\b", "", "", "", ""])
    (folder / "suite.tsv").write_text("\n".join("\t".join(row) for row in [lines[0].split("\t"), *rows]) + "\n",
                                      encoding="utf-8")
    outputs = [line.split("\t") for line in (DEMO / "outputs.tsv").read_text(encoding="utf-8").splitlines()]
    replaced = [outputs[0]] + [[item, system, f"{text} (revised)"] for item, system, text in outputs[1:]
                               if system == "Baseline-SMT"]
    (folder / "outputs.tsv").write_text("\n".join("\t".join(row) for row in replaced) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def states(runner: Runner, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The before-states of the jobs: an empty migrated database, then the demo built one step at a time."""
    folder = tmp_path_factory.mktemp("states")
    paths = {"empty": folder / "empty.sqlite"}
    assert runner.run(paths["empty"], ["init"]).status == 0
    big_suite, big_outputs = _big_inputs(folder)
    steps = {**STEPS, "big suite": ["import", "suite", str(big_suite)], "big outputs": ["import", "outputs",
                                                                                      str(big_outputs)]}
    previous = paths["empty"]
    for name, args in steps.items():
        paths[name] = folder / f"{name}.sqlite"
        _copy(paths["empty"] if name == "big suite" else previous, paths[name])
        assert runner.run(paths[name], args).status == 0, name
        previous = paths[name]
    return paths


def kill_moments(duration: float, rng: random.Random) -> list[float]:
    """A few kills right at the start and the end, the rest uniform over the job's duration."""
    return [0.0, 0.01] + [rng.uniform(0, duration) for _ in range(RANDOM_KILLS)] + [0.97 * duration, duration]


def extra_moment(duration: float, rng: random.Random) -> float:
    """A kill in place of one that came after the job had already finished: uniform over the job's duration as
    last seen. One timing of the job decides the first moments, and on a loaded machine a later run can be
    faster than that one (with 2 cores shared, 7 of 20 kills once landed in time)."""
    return rng.uniform(0, duration)


@pytest.mark.parametrize("job", JOBS, ids=lambda job: job.name)
def test_a_killed_job_leaves_all_or_nothing(job: Job, runner: Runner, states: dict[str, Path],
                                            tmp_path: Path) -> None:
    _edited_inputs(tmp_path)
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in job.args]
    before = _state(states[job.before])
    work = tmp_path / "work.sqlite"
    _copy(states[job.before], work)
    completed_run = runner.run(work, args)
    assert completed_run.status == 0
    completed = _state(work)
    assert completed != before, "the job wrote nothing, so the test would prove nothing"

    rng = random.Random(f"{SEED}-{job.name}")
    outcomes = {"none": 0, "all": 0, "chunks": 0}
    killed = 0
    duration = completed_run.seconds
    moments = kill_moments(duration, rng)
    missed = 0
    while moments:
        moment = moments.pop(0)
        _copy(states[job.before], work)
        outcome = runner.run(work, args, kill_after=moment)
        killed += outcome.killed
        _sound(work)
        state = _state(work)
        if job.chunked and state not in (before, completed):
            assert _chunks_done(state, before, completed), \
                f"{job.name} killed after {moment:.3f} s left a half-written chunk or a changed table"
            outcomes["chunks"] += 1
        else:
            assert state in (before, completed), f"{job.name} killed after {moment:.3f} s left a partial state"
            outcomes["none" if state == before else "all"] += 1
        if not outcome.killed and missed < RANDOM_KILLS:
            missed += 1
            duration = min(duration, outcome.seconds)
            moments.append(extra_moment(duration, rng))
    print(f"\n{job.name}: {completed_run.seconds:.2f} s; {killed} of {sum(outcomes.values())} kill points "
          f"hit the running job and all left a sound database ({outcomes['none']} before-state, "
          f"{outcomes['all']} completed state" + (f", {outcomes['chunks']} some chunks labelled" if job.chunked
                                                  else "") + ")")
    assert killed >= RANDOM_KILLS // 2


if __name__ == "__main__" and sys.argv[1:] == ["serve"]:
    _serve()
