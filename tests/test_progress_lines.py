"""Long commands print plain progress lines every few seconds when stderr is not a terminal (a log, a pipe)."""
from __future__ import annotations

import re
import time

import pytest

from cli import progress
from cli.progress import progress_bar


def test_plain_lines_every_few_seconds_when_not_on_a_terminal(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(progress, "PLAIN_INTERVAL", 0.1)
    with progress_bar("scoring with bertscore-f") as task:
        task.progress(1, 100, "scoring output 1 of 100")
        time.sleep(0.35)  # a long step without a report: the line repeats, so the log shows the run is alive
        task.progress(90, 100, "scoring output 90 of 100")
        time.sleep(0.25)
    lines = capsys.readouterr().err.strip().split("\n")
    assert len(lines) >= 4
    assert all(re.fullmatch(r"scoring with bertscore-f: scoring output (1|90) of 100 \((1|90)%, 0:00\)", line)
               for line in lines)
    assert lines[0].endswith("1 of 100 (1%, 0:00)") and lines[-1].endswith("90 of 100 (90%, 0:00)")


def test_quick_work_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with progress_bar("labelling") as task:
        task.progress(1, 1, "done")
    assert capsys.readouterr().err == ""
