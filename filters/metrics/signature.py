"""A score's signature: the metric's name and every setting that changes its figures, after sacrebleu's.

Printed as ``name|key:value|key:value`` (sacrebleu's own spelling, so a sacrebleu signature reads the same
inside tsqe's), parsed back by :meth:`Signature.parse`. Cached scores are keyed by the printed form, so two
scores share a cache entry only when every field agrees: the library versions, the tokenisation, the model
and layer, and, for a reference set other than the default, ``refs:`` and ``combine:``. A field without a
value prints as its bare key (the label metric's ``effective``), as the signatures stored before this type.
"""
from __future__ import annotations

from dataclasses import dataclass

from suite.errors import TsqeError

SEPARATOR = "|"


@dataclass(frozen=True)
class Signature:
    name: str
    fields: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return SEPARATOR.join([self.name, *(f"{key}:{value}" if value else key for key, value in self.fields)])

    @classmethod
    def parse(cls, text: str) -> Signature:
        """The signature printed as ``text``; the name is everything before the first ``|`` (``qe:NAME``
        keeps its colon), each field splits at its first ``:``."""
        name, *parts = text.split(SEPARATOR)
        if not name or any(not part for part in parts):
            raise TsqeError(f"not a metric signature: {text!r} (expected name|key:value|...)")
        fields = tuple((part.partition(":")[0], part.partition(":")[2]) for part in parts)
        return cls(name, fields)

    def get(self, key: str) -> str | None:
        return next((value for k, value in self.fields if k == key), None)

    def with_fields(self, *fields: tuple[str, str]) -> Signature:
        """This signature with ``fields`` added at the end (an existing key takes the new value in place)."""
        new = dict(fields)
        kept = tuple((key, new.pop(key, value)) for key, value in self.fields)
        return Signature(self.name, kept + tuple(new.items()))

    def renamed(self, name: str) -> Signature:
        return Signature(name, self.fields)
