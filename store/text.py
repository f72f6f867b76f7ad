"""The one normal form of stored text, apart from the models: the rule engine normalises patterns with it, and
``tsqe --help`` loads the rule engine's names without SQLAlchemy (issue 16's start-up)."""
from __future__ import annotations

import unicodedata


def nfc(text: str) -> str:
    """``text`` in Unicode NFC; ASCII text, which ``isascii`` tells at no cost, is NFC already."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)
