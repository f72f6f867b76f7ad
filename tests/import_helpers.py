"""Shared material for the importer tests: a small suite, file writing and a whole-database snapshot."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import select

from store import Database
from store.models import Base
from suite.importers import import_outputs, import_suite

# One item per line, so item N starts at line N + 1.
SUITE_JSON = """{"items": [
{"id": "1", "langpair": "deen", "category": "Ambiguity", "phenomenon": "Lexical ambiguity", "source_sentence": "Ihr Mann kam.", "positive_regex": "husband", "negative_regex": "\\\\bman\\\\b", "positive_tokens": [], "negative_tokens": []},
{"id": "2", "langpair": "deen", "category": "Verb tense", "phenomenon": "Future", "source_sentence": "Er wird laufen. ", "positive_regex": "will run", "negative_regex": "", "positive_tokens": ["He will run."], "negative_tokens": ["", "He runs."]},
{"id": "3", "langpair": "deen", "category": "Negation", "phenomenon": "Future", "source_sentence": "Er wird nicht laufen.", "positive_regex": "(won't|will not) run", "negative_regex": "", "positive_tokens": [], "negative_tokens": []}
]}
"""

OUTPUTS_TSV = (
    "item_id\tsystem\toutput\n"
    "1\tA\tHer husband came.\n"
    "1\tB\t  Her husband came.  \n"
    "1\tC\tHer man came.\n"
    "2\tA\tHe will run.\n"
    "2\tB\t\"He said \"\"run\"\".\"\n"
    "2\tC\t\n"
    "3\tA\tHe won't run.\n"
    "3\tB\tHe won't run.\n"
    "3\tC\tHe will run.\n"
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def small_suite(db: Database, tmp_path: Path, *, outputs: bool = True) -> None:
    """Suite ``de-en`` with items 1-3 and (optionally) outputs of systems A, B, C."""
    import_suite(db, write(tmp_path / "de-en" / "items.json", SUITE_JSON))
    if outputs:
        import_outputs(db, write(tmp_path / "outputs.tsv", OUTPUTS_TSV))


def snapshot(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, to show that a rejected import changed nothing at all."""
    with db.session() as session:
        return {table.name: sorted((tuple(row) for row in session.execute(select(table))), key=repr)
                for table in Base.metadata.sorted_tables}

def demetr_record(number: int, **fields: Any) -> dict[str, Any]:
    """An example of a DEMETR perturbation file (``dataset/*.json``), with ``fields`` changed."""
    record = {"id": number, "src_sent": f"Quelle {number}.", "eng_sent": f"The reference {number}.",
              "mt_sent": f"The translation {number}.", "pert_sent": f"The translations {number}.",
              "lang_tag": "german", "data_source": "WMT", "pert_check": True, "severity": "minor", "pert_id": 14,
              "pert_desc": "word swap", "pert_name": "minor_id14_word_swap"}
    return {**record, **fields}
