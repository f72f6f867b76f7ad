"""``tsqe-gui`` on a system that lacks Qt's X11 libraries says how to install them instead of aborting in Qt."""
from __future__ import annotations

import pytest

from gui import app, check_platform


def test_missing_xcb_libraries_print_the_fix_make_run_prints(monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    def plugin_does_not_load(path: str) -> None:
        raise OSError("libxcb-cursor.so.0: cannot open shared object file: No such file or directory")

    monkeypatch.setattr(check_platform.sys, "platform", "linux")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(check_platform.ctypes, "CDLL", plugin_does_not_load)
    monkeypatch.setattr(check_platform, "missing_libraries", lambda plugin: ["libxcb-cursor.so.0"])
    monkeypatch.setattr(app, "application", lambda: pytest.fail("Qt was started"))

    assert app.main(["demo.sqlite"]) == 1
    printed = capsys.readouterr().err
    assert printed.strip() == check_platform.fix_message(["libxcb-cursor0"])
    assert "sudo apt-get install -y --no-install-recommends libxcb-cursor0" in printed


def test_offscreen_qt_is_not_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.setattr(check_platform.ctypes, "CDLL", lambda path: pytest.fail("the xcb plugin was loaded"))
    assert check_platform.window_system_problem() is None
