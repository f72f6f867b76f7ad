"""The window's remembered settings, read through typed readers that never fail.

QSettings hands back whatever the file holds: a string where a number was written (``tab=abc`` stopped the
window from opening, on every start, issue 27), a string where a list was written (an INI file stores a list of
one entry as that entry, so File → Open recent listed one path split into its characters, issue 28), a string
where a saved layout was expected (``restoreState("abc")`` raises). Each reader here checks the type, falls back
to the default when the value is not what the window wrote, and notes it; the window says so once in the status
bar (``take_fallbacks``) and writes the setting afresh when it next saves it.
"""
from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QByteArray, QSettings

T = TypeVar("T")

_fallbacks: dict[str, str] = {}
"""Settings that held something unusable since the last report, with what was wrong (one entry per key: a value
read each time a screen opens is reported once)."""
_reported: set[str] = set()


class Settings:
    """The remembered settings of the user (``QSettings()``, or a given store in tests)."""

    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store if store is not None else QSettings()

    def integer(self, key: str, default: int, low: int | None = None, high: int | None = None) -> int:
        """A whole number within [low, high]; the default otherwise."""
        value = self.store.value(key)
        if value is None:
            return default
        try:
            number = int(str(value).strip())
        except ValueError:
            return _fell_back(key, f"{_shown(value)} is not a whole number", default)
        if (low is not None and number < low) or (high is not None and number > high):
            return _fell_back(key, f"{number} is outside {low}–{high}", default)
        return number

    def text(self, key: str, default: str = "") -> str:
        """One line of text (a name, a path, a choice's data)."""
        value = self.store.value(key)
        if value is None:
            return default
        if not isinstance(value, str):
            return _fell_back(key, "is not a text", default)
        return value

    def flag(self, key: str, default: bool) -> bool:
        """A yes/no, written as ``true``/``false`` (an INI file keeps no type)."""
        value = self.store.value(key)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        word = str(value).strip().lower()
        if word in ("true", "1", "yes"):
            return True
        if word in ("false", "0", "no"):
            return False
        return _fell_back(key, f"{_shown(value)} is not true or false", default)

    def texts(self, key: str) -> list[str]:
        """A list of texts. One entry comes back from an INI file as a plain string: it is one entry, not a
        sequence of characters."""
        value = self.store.value(key)
        if value is None or value == "":
            return []
        if isinstance(value, str):
            return [value]
        if isinstance(value, list | tuple) and all(isinstance(entry, str) for entry in value):
            return list(value)
        return _fell_back(key, "is not a list of texts", [])

    def layout(self, key: str) -> QByteArray | None:
        """A saved splitter, header or window state (restored by Qt, which checks its own format)."""
        value = self.store.value(key)
        if value is None:
            return None
        if not isinstance(value, QByteArray):
            return _fell_back(key, "is not a saved layout", None)
        return value

    def set(self, key: str, value: object) -> None:
        self.store.setValue(key, value)


def _fell_back(key: str, why: str, default: T) -> T:
    if key not in _reported:
        _fallbacks[key] = why
    return default


def _shown(value: object) -> str:
    text = str(value)
    return repr(text if len(text) <= 40 else text[:40] + "…")


def take_fallbacks() -> str | None:
    """The settings that fell back to their defaults since the last call, in one sentence (None: none did).
    Each setting is told once per session."""
    if not _fallbacks:
        return None
    parts = [f"{key} ({why})" for key, why in sorted(_fallbacks.items())]
    _reported.update(_fallbacks)
    _fallbacks.clear()
    return f"settings not usable, their defaults used instead: {'; '.join(parts)}"
