"""The one place the window keeps the splitters the user dragged: each screen names its splitters, and their
states go to the app's settings under those names, through the typed settings reader (``gui.settings``), which
sets a damaged state aside and keeps the splitter's default sizes."""
from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtWidgets import QSplitter

from gui.settings import Settings


def save_splitters(settings: Settings, splitters: Mapping[str, QSplitter]) -> None:
    for key, splitter in splitters.items():
        settings.set(key, splitter.saveState())


def restore_splitters(settings: Settings, splitters: Mapping[str, QSplitter]) -> None:
    """Each splitter as the user left it; one never saved (or saved as something else) keeps its default sizes."""
    for key, splitter in splitters.items():
        state = settings.layout(key)
        if state is not None:
            splitter.restoreState(state)
