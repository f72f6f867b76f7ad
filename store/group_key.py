"""The key under which a reviewer's group of alike outputs is kept: an output's text with case, punctuation,
quotes, white space and Unicode form normalised away, hashed.

It lives in ``store`` because it is a column default (``Output.group_key``): every writer of outputs, whichever
importer or restore it is, fills the key without knowing of it, and the review queue groups outputs in the
database rather than reading a million texts to normalise them. A 64-bit hash keeps the column and its index
small; two different normalised texts of one item colliding in it is not a concern at a few hundred outputs an
item.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata

KEY_LENGTH = 16
"""Hexadecimal digits of a key."""

_NOT_WORD = re.compile(r"[\W_]+")


def normal_form(text: str) -> str:
    """What two outputs must share to be alike: NFKC (which also folds full-width and compatibility forms),
    case folded, every run of punctuation, quotes, symbols and white space one space. A text of punctuation
    alone ("…", "?") keeps its marks, so that it is alike only to the same marks, not to every other empty one."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    words = " ".join(_NOT_WORD.sub(" ", folded).split())
    return words if words else " ".join(folded.split())


def group_key(text: str) -> str:
    return hashlib.blake2b(normal_form(text).encode("utf-8"), digest_size=KEY_LENGTH // 2).hexdigest()
