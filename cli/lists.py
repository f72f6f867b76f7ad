"""Options that take several names or values separated by commas (``--systems a,b``, ``--metric bleu,chrf``)."""
from __future__ import annotations


def comma_list(option: str | None) -> list[str]:
    """The option's entries with their spaces stripped; empty entries (``a,,b``, a trailing comma) are dropped."""
    return [entry.strip() for entry in option.split(",") if entry.strip()] if option else []
