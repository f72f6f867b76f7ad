"""Issue 27, "The window always opens": a bad value in the settings file falls back to its default and says so
once; a damaged autosaved draft is set aside (renamed, never deleted) with a message, and the other drafts are
still offered. Issue 28: a list-valued setting holding one entry is one entry, not its characters."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import close_quietly, shown_errors
from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from gui.main_window import MainWindow
from gui.settings import Settings, take_fallbacks
from gui.window.files import RECENT
from store import Database
from store.domain import Polarity
from suite.demo import DEMO_SUITE
from suite.editing.api import find_item, item_detail
from suite.editing.draft_autosave import autosave_path, write_drafts
from suite.editing.item_draft import EditorDraft, new_rule


def _gone_pids(count: int) -> list[int]:
    """Process ids no process can have (above the kernel's pid_max): sessions that ended."""
    highest = int(Path("/proc/sys/kernel/pid_max").read_text()) if Path("/proc/sys/kernel/pid_max").exists() \
        else 4_194_304
    return [highest + 1 + i for i in range(count)]


def _window(qtbot: QtBot) -> MainWindow:
    """What ``tsqe-gui`` does before it opens a database: make the window, restore its settings, show it."""
    window = MainWindow()
    qtbot.addWidget(window, before_close_func=close_quietly)
    window.restore_settings()
    window.show()
    return window


def test_bad_settings_fall_back_to_their_defaults_and_the_window_opens_and_says_so_once(
        qtbot: QtBot, demo_db: Database) -> None:
    take_fallbacks()
    settings = QSettings()
    ini = Path(settings.fileName())
    ini.parent.mkdir(parents=True, exist_ok=True)
    ini.write_text("[window]\ntab=abc\ngeometry=not a layout\nstate=@ByteArray(garbage)\n"
                   "[review]\nheader=12\nsplitter=x\ngrouped=perhaps\n"
                   "[reports]\ndiscriminative\\drop=lots\nsystems\\splitter=1\n"
                   "[editor]\nsplitter=a\n", encoding="utf-8")
    settings.sync()
    window = _window(qtbot)  # before: ValueError: invalid literal for int() with base 10: 'abc'
    assert window.isVisible()
    assert window.tabs.currentWidget() is window.review  # the default tab
    assert window.discriminative.drop.value() == 60 and window.review.group_box.isChecked()
    message = window.statusBar().currentMessage()
    assert "window/tab ('abc' is not a whole number)" in message
    assert "review/grouped" in message and "reports/discriminative/drop" in message
    window.open_target(str(demo_db.engine.url.database))  # the opening's own message must not hide it
    assert window.ops.wait_idle()
    qtbot.waitUntil(lambda: "window/tab ('abc'" in window.statusBar().currentMessage(), timeout=5000)
    assert take_fallbacks() is None  # said once: a second window does not repeat it
    again = _window(qtbot)
    assert "window/tab" not in again.statusBar().currentMessage()


def test_open_recent_lists_one_remembered_path_as_one_entry(qtbot: QtBot, tmp_path: Path) -> None:
    """An INI file stores a list of one entry as that entry: QSettings returns it as a string, and the menu
    listed '/', 't', 'm', 'p', … (issue 28)."""
    for name in ("one.sqlite", "two.sqlite"):
        (tmp_path / name).write_bytes(b"")
    QSettings().setValue(RECENT, [str(tmp_path / "one.sqlite")])
    QSettings().sync()
    window = _window(qtbot)
    window.recent_menu.aboutToShow.emit()
    assert [action.text() for action in window.recent_menu.actions()] == [str(tmp_path / "one.sqlite")]
    window._remember(str(tmp_path / "two.sqlite"))
    window.recent_menu.aboutToShow.emit()
    assert [action.text() for action in window.recent_menu.actions()] == [str(tmp_path / "two.sqlite"),
                                                                       str(tmp_path / "one.sqlite")]


def test_the_typed_reader_checks_each_kind_of_value(tmp_path: Path) -> None:
    take_fallbacks()
    store = QSettings(str(tmp_path / "typed.ini"), QSettings.Format.IniFormat)
    for key, value in (("n", "7"), ("big", "900"), ("word", "abc"), ("yes", "true"), ("maybe", "perhaps"),
                       ("one", "only"), ("many", ["a", "b"]), ("layout", QByteArray(b"\x00\xff")), ("text", "x")):
        store.setValue(key, value)
    settings = Settings(store)
    assert settings.integer("n", 1) == 7 and settings.integer("missing", 3) == 3
    assert settings.integer("big", 1, 0, 100) == 1 and settings.integer("word", 2) == 2
    assert settings.flag("yes", False) is True and settings.flag("maybe", True) is True
    assert settings.texts("one") == ["only"] and settings.texts("many") == ["a", "b"] and settings.texts("no") == []
    assert settings.layout("layout") == QByteArray(b"\x00\xff") and settings.layout("text") is None
    told = take_fallbacks() or ""
    assert all(key in told for key in ("big", "word", "maybe", "text")) and "yes" not in told


def test_damaged_autosaves_are_set_aside_and_the_others_still_offered(
        qtbot: QtBot, demo_db: Database) -> None:
    window = _window(qtbot)
    item_id = find_item(demo_db, "amb-01", DEMO_SUITE)
    draft = EditorDraft.of(item_detail(demo_db, item_id))
    draft.rules[Polarity.NEGATIVE].append(new_rule(Polarity.NEGATIVE, r"\bshore\b"))
    good, nested, truncated, not_json, wrong_shape, unreadable = (
        autosave_path(window.drafts.directory, demo_db.url, pid) for pid in _gone_pids(6))
    write_drafts(good, demo_db.url, [draft])
    whole = good.read_text(encoding="utf-8")
    nested.write_text('{"format": 1, "drafts": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    truncated.write_text(whole[: len(whole) // 2], encoding="utf-8")
    not_json.write_bytes(b"\xff\xfe not json at all \x00")
    document = json.loads(whole)
    document["drafts"][0]["rules"] = ["a list where a mapping of rule rows belongs"]
    wrong_shape.write_text(json.dumps(document), encoding="utf-8")
    unreadable.mkdir()  # a folder where the file should be: reading it fails as an unreadable file does

    window.open_target(str(demo_db.engine.url.database))
    assert window.ops.wait_idle()
    [box] = [w for w in window.findChildren(QMessageBox) if w.isVisible()]
    assert "tsqe ended without saving changes of 1 item: amb-01" in box.text()
    message = window.statusBar().currentMessage()
    for damaged in (nested, truncated, not_json, wrong_shape, unreadable):
        assert not damaged.exists()
        kept = damaged.with_name(damaged.name + ".damaged")
        assert kept.exists(), damaged  # set aside, never deleted: it may hold someone's work
        assert f"{damaged.name}: " in message and kept.name in message
    assert "nested too deeply" in message
    box.defaultButton().click()
    assert window.ops.wait_idle()
    [back] = window.editor.unsaved()
    assert r"\bshore\b" in [row.spec.pattern for row in back.rules["negative"]]
    assert not shown_errors()


def test_open_recent_shows_a_file_that_is_gone_but_does_not_offer_it(qtbot: QtBot, tmp_path: Path) -> None:
    """Opening never creates a file (only File → New database does): a recent database moved or deleted since is
    listed as not found, greyed out, rather than offered and then refused."""
    there = tmp_path / "there.sqlite"
    there.write_bytes(b"")
    QSettings().setValue(RECENT, [str(tmp_path / "moved.sqlite"), str(there), "postgresql://team@db/tsqe"])
    QSettings().sync()
    window = _window(qtbot)
    window.recent_menu.aboutToShow.emit()
    shown = [(action.text(), action.isEnabled()) for action in window.recent_menu.actions()]
    assert shown == [(f"{tmp_path / 'moved.sqlite'} (not found)", False), (str(there), True),
                     ("postgresql://team@db/tsqe", True)]
