"""Widgets of a readable size (issue 32): no module of the window passes ``MAX_LINES``.

The screens were 600 to 750 lines each (the window, Review, Item & rules, QE accuracy), about fifty methods with
module-level dialogs beside them; each is split into its panes and actions, one file per pane saying what it shows.
"""
from __future__ import annotations

from pathlib import Path

import gui

MAX_LINES = 450


def test_no_gui_module_passes_the_limit() -> None:
    root = Path(gui.__file__).parent
    sizes = {path.relative_to(root.parent).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in sorted(root.rglob("*.py"))}
    assert len(sizes) > 40  # the package was found, not an empty folder
    too_long = {name: lines for name, lines in sizes.items() if lines > MAX_LINES}
    assert not too_long, f"split these into panes or actions (at most {MAX_LINES} lines): {too_long}"


def test_every_gui_module_says_what_it_holds() -> None:
    root = Path(gui.__file__).parent
    silent = [path.relative_to(root.parent).as_posix() for path in sorted(root.rglob("*.py"))
              if not path.read_text(encoding="utf-8").lstrip().startswith('"""')]
    assert not silent, f"modules without a docstring: {silent}"
