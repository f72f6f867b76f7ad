"""The one place the window keeps the splitters the user dragged: each screen names its splitters, and their
states go to the app's settings under those names (QSettings today; a typed settings reader can take this over
without any screen changing)."""
from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QSplitter


def save_splitters(settings: QSettings, splitters: Mapping[str, QSplitter]) -> None:
    for key, splitter in splitters.items():
        settings.setValue(key, splitter.saveState())


def restore_splitters(settings: QSettings, splitters: Mapping[str, QSplitter]) -> None:
    """Each splitter as the user left it; one never saved (or saved as something else) keeps its default sizes."""
    for key, splitter in splitters.items():
        value = settings.value(key)
        if isinstance(value, QByteArray):
            splitter.restoreState(value)
