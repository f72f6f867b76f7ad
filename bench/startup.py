"""How long tsqe takes to start: ``tsqe --help``, ``tsqe status``, and ``tsqe-gui`` until its window is painted.

Each is run as a new process ``--runs`` times (5 by default), interleaved with ``python -c pass`` (the interpreter's
own start, the floor no command can go below), and the median wall time printed, with every run's time and the
load average: on a machine shared with other jobs a single run says little, and a ratio to the floor measured in
the same run says more. The CPU time the process used (user + system) is printed too: on a loaded machine the
wall time is mostly waiting for a core, while the CPU time is what starting costs. ``tsqe-gui`` runs with Qt's
offscreen platform in ``--smoke`` mode: the time is taken when it prints that its window is painted with the suite
tree and the first page of the review table filled.

Targets (issue 16): ``tsqe --help`` < 0.5 s, ``tsqe status`` < 1 s, ``tsqe-gui`` < 2 s on the DFKI de-en suite
with the WMT21 outputs (built here when the shared data are present, else the demo suite is used).

Run: ``PYTHONPATH=$PWD python bench/startup.py [--runs N] [--db PATH]``.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "external"
TARGETS = {"python -c pass": None, "tsqe --help": 0.5, "tsqe status": 1.0, "tsqe-gui painted": 2.0}


Timing = tuple[float, float]
"""Wall seconds and CPU seconds (user + system) of one run."""


def timed(command: list[str], env: dict[str, str]) -> Timing:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _cpu_of(pid: int) -> float:
    """A running process's CPU seconds so far (Linux: /proc/PID/stat's utime and stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_window(command: list[str], env: dict[str, str]) -> Timing:
    """Until the window says it is painted (then it grabs the screen and quits, which is not timed)."""
    started = time.perf_counter()
    with subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("smoke: painted"):
                elapsed, cpu = time.perf_counter() - started, _cpu_of(process.pid)
                break
        else:
            raise RuntimeError("tsqe-gui quit without painting its window")
        process.stdout.read()
    if process.returncode:
        raise RuntimeError(f"tsqe-gui --smoke failed ({process.returncode})")
    return elapsed, cpu


def dfki_database(folder: Path) -> Path | None:
    items = DATA / "mt-testsuite" / "testset" / "de-en" / "items.json"
    outputs = DATA / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv"
    if not items.is_file() or not outputs.is_file():
        return None
    path = folder / "dfki.sqlite"
    tsqe = [sys.executable, "-m", "cli", "--db", str(path)]
    for step in (["import", "suite", str(items)], ["import", "outputs", str(outputs)], ["label"]):
        subprocess.run([*tsqe, *step], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--db", type=Path, help="the database to open (default: DFKI de-en + WMT21, else the demo)")
    args = parser.parse_args()
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_CONFIG_HOME": folder,
               "PYTHONPATH": str(ROOT)}
        db = args.db or dfki_database(Path(folder))
        if db is None:
            db = Path(folder) / "demo.sqlite"
            subprocess.run([sys.executable, "-m", "cli", "--db", str(db), "demo"], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
        print(f"database: {db if args.db else 'DFKI de-en + WMT21 outputs' if 'dfki' in db.name else 'the demo'}")
        commands: dict[str, Callable[[], Timing]] = {
            "python -c pass": lambda: timed([sys.executable, "-c", "pass"], env),
            "tsqe --help": lambda: timed([str(bin_dir / "tsqe"), "--help"], env),
            "tsqe status": lambda: timed([str(bin_dir / "tsqe"), "--db", str(db), "status"], env),
            "tsqe-gui painted": lambda: timed_window(
                [str(bin_dir / "tsqe-gui"), "--smoke", str(Path(folder) / "smoke.png"), str(db)], env),
        }
        times: dict[str, list[Timing]] = {name: [] for name in commands}
        for _ in range(args.runs):  # interleaved, so a burst of load on the machine hits every command alike
            for name, run in commands.items():
                times[name].append(run())
        floor = statistics.median(wall for wall, _ in times["python -c pass"])
        for name, values in times.items():
            median = statistics.median(wall for wall, _ in values)
            cpu = statistics.median(cpu for _, cpu in values)
            target = TARGETS[name]
            verdict = "" if target is None else f"  target < {target:g} s: {'met' if median < target else 'NOT met'}"
            print(f"{name:18} median {median:.3f} s ({median - floor:+.3f} s over the floor), CPU {cpu:.3f} s  "
                  f"runs: {' '.join(f'{wall:.3f}' for wall, _ in values)}{verdict}")
        print(f"load average (1, 5, 15 min): {', '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
