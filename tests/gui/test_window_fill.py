"""The window's opening reads each thing once (issue 28): the whole suite's rule health was read three times and the
unlabelled count twice at every start, so that on DFKI de-en four background readers were busy for seconds
checking the same 3,718 rules while the review queue's first page waited for one of them."""
from __future__ import annotations

from collections import Counter
from typing import Any

from conftest import close_quietly

from gui.main_window import MainWindow
from store import Database


def test_opening_reads_the_rule_health_and_the_unlabelled_count_once(qtbot, demo_db: Database) -> None:  # type: ignore[no-untyped-def]
    window = MainWindow()
    qtbot.addWidget(window, before_close_func=close_quietly)
    window.resize(1280, 720)
    window.tabs.setCurrentWidget(window.editor)  # Rule health of the whole suite on screen: no item selected
    window.show()
    asked: Counter[str | None] = Counter()
    read = window.ops.read

    def counted(*args: Any, key: str | None = None, **kwargs: Any) -> None:
        asked[key] += 1
        read(*args, key=key, **kwargs)

    window.ops.read = counted  # type: ignore[method-assign]
    window.open_target(str(demo_db.engine.url.database))
    qtbot.waitUntil(lambda: window.editor.health.model.rowCount() > 0, timeout=20000)
    assert window.ops.wait_idle()
    assert window.editor.pages.currentWidget() is window.editor.health
    assert (asked["rule-health"], asked["review-unlabelled"]) == (1, 1)
    assert "rules:" in window.editor.health.summary.text()


def test_the_suite_rules_are_compiled_off_the_window_thread_once_it_has_settled(qtbot, demo_db: Database,  # type: ignore[no-untyped-def]
                                                                              monkeypatch: Any) -> None:
    """Review on screen, as at a first start: the first page comes first, then the rules are compiled in the
    background, so that the rule health opened later does not wait for the compiler (issue 28)."""
    import threading

    import gui.editor.rule_health as pane

    ran: list[tuple[threading.Thread, bool]] = []
    compile_rules = pane.compile_rules

    def recorded(*args: Any, **kwargs: Any) -> int:
        ran.append((threading.current_thread(), window.review.model.rowCount() > 0))
        return compile_rules(*args, **kwargs)

    monkeypatch.setattr(pane, "compile_rules", recorded)
    window = MainWindow()
    qtbot.addWidget(window, before_close_func=close_quietly)
    window.resize(1280, 720)
    window.tabs.setCurrentWidget(window.review)
    window.show()
    window.open_target(str(demo_db.engine.url.database))
    qtbot.waitUntil(lambda: bool(ran), timeout=20000)
    assert window.ops.wait_idle()
    assert len(ran) == 1
    thread, review_shown = ran[0]
    assert thread is not threading.main_thread()
    assert review_shown
