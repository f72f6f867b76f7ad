"""Background work and its per-domain factories (after Anki's ``aqt/operations``).

``runner`` runs reads and writes off the main thread; each domain module turns the core's calls into ``Write``
values: ``review`` (a reviewer's decisions), ``editing`` (saving an item, the tree's structure edits), ``undo``
(the window's one undo stack of the core's edit values), ``suite`` (opening, importing, labelling, exporting),
``qe`` (QE systems) and ``scores`` (the Discriminative tab's metrics).
"""
from __future__ import annotations

from gui.operations.runner import Operations, Write, changes_nothing, said_by_core

__all__ = ["Operations", "Write", "changes_nothing", "said_by_core"]
