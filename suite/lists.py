"""Names or values listed with commas (``--systems a,b``, ``--metric bleu,chrf``, the window's metric field): one
reading for the command line, the window, the Python API and the core."""
from __future__ import annotations


def comma_list(option: str | None) -> list[str]:
    """The option's entries with their spaces stripped; empty entries (``a,,b``, a trailing comma) are dropped."""
    return [entry.strip() for entry in option.split(",") if entry.strip()] if option else []
