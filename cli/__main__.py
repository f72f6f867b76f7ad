"""``python -m cli``: the same as the installed ``tsqe`` script (handy in a checkout or worktree)."""
from __future__ import annotations

from cli.entry import main

main()
