"""Small constructed suites for the assistants' tests (``suite.assist``), imported through the real importers and
labelled by the real engine, so that their labels are the ones a user would have."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from store import Database, open_database
from suite.engine.labelling import relabel
from suite.importers import import_outputs, import_suite

SUITE_HEADER = "id\tcategory\tphenomenon\tsource\tpositive_regex\tnegative_regex\tgood_translations\tbad_translations\n"

# A paradigm of obligation (müssen): passing outputs say must / have to, failing ones may.
OBLIGATION = [
    ("ob-1", "Ich muss früh aufstehen.", ["I have to get up early.", "I must get up early.", "I may get up early."]),
    ("ob-2", "Du musst unterschreiben.", ["You have to sign.", "You must sign.", "You may go to sign."]),
    ("ob-3", "Er muss länger arbeiten.", ["He has to work longer.", "He must work longer.", "He may work longer."]),
    ("ob-4", "Sie muss den Zug erreichen.", ["She has to catch the train.", "She must catch the train.",
                                             "She may go to the train."]),
    ("ob-5", "Ihr müsst leiser sein.", ["You have to be quieter.", "You must be quieter.", "You may be quiet."]),
    ("ob-6", "Wir müssen das Auto reparieren.", ["We have to repair the car.", "We must fix the car.",
                                                "We may take the car to repair."]),
    ("ob-7", "Sie müssen gehen.", ["They have to go.", "They must go now.", "They may go to bed."]),
]
POSITIVE, NEGATIVE = r"\b(have to|has to|must)\b", r"\bmay\b"


def suite_row(item_id: str, source: str, positive: str = "", negative: str = "", *, category: str = "Modal",
              phenomenon: str = "Obligation", good: Sequence[str] = (), bad: Sequence[str] = ()) -> str:
    return "\t".join([item_id, category, phenomenon, source, positive, negative, " ||| ".join(good),
                      " ||| ".join(bad)]) + "\n"


def build(directory: Path, rows: Sequence[str], outputs: Sequence[tuple[str, str]]) -> Database:
    """A labelled database holding the suite ``rows`` and, per item, its outputs (one system per output)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "suite.tsv").write_text(SUITE_HEADER + "".join(rows), encoding="utf-8")
    systems: dict[str, int] = {}
    lines = ["item_id\tsystem\toutput\n"]
    for item_id, text in outputs:
        systems[item_id] = systems.get(item_id, 0) + 1
        lines.append(f"{item_id}\tsystem-{systems[item_id]}\t{text}\n")
    (directory / "outputs.tsv").write_text("".join(lines), encoding="utf-8")
    db = open_database(directory / "tsqe.sqlite")
    import_suite(db, directory / "suite.tsv", name="assist", source_lang="de", target_lang="en")
    import_outputs(db, directory / "outputs.tsv")
    relabel(db, workers=0)
    return db


def obligation(directory: Path, new_item: Sequence[str], *, good: Sequence[str] = (), bad: Sequence[str] = (),
               rules: tuple[str, str] = ("", "")) -> Database:
    """The obligation paradigm with its rules, and one more item ``new`` ("Sie muss gehen.") with the outputs
    ``new_item``, the known translations and the rules given (none by default: an item just added)."""
    rows = [suite_row(item_id, source, POSITIVE, NEGATIVE) for item_id, source, _ in OBLIGATION]
    rows.append(suite_row("new", "Sie muss den Brief abschicken.", *rules, good=good, bad=bad))
    outputs = [(item_id, text) for item_id, _, texts in OBLIGATION for text in texts]
    outputs += [("new", text) for text in new_item]
    return build(directory, rows, outputs)
