"""A small constructed suite for the review assistants: groups of alike outputs, neighbours, impact, double
review. Built through the importers and labelled by the rule engine, as a real suite is."""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from store import Database
from store.models import Item, Output
from suite.engine.labelling import relabel
from suite.importers import import_outputs, import_suite

SUITE = """id\tcategory\tphenomenon\tsource\tpositive_regex\tnegative_regex\tgood_translations\tbad_translations
f1\tTense\tFuture\tIch werde gehen.\t\\bwill go\\b\t\\bwent\\b\tI will go.\tI went.
f2\tTense\tFuture\tDu wirst gehen.\t\\bwill go\\b\t\\bwent\\b\tYou will go.\tYou went.
f3\tTense\tFuture\tEr wird gehen.\t\\bwill go\\b\t\\bwent\\b\t\t
f4\tTense\tFuture\tSie wird laufen.\t\\bwill run\\b\t\\bran\\b\t\t
q1\tPunctuation\tQuestion\tKommst du?\t\\?$\t[^?]$\tAre you coming?\t
q2\tPunctuation\tQuestion\tGehst du?\t\\?$\t[^?]$\t\tAre you going.
"""
OUTPUTS = [
    # f1: a pass group of three alike outputs, a fail, and an unknown group of three
    ("f1", "A", "I will go."), ("f1", "B", "i will go"), ("f1", "C", "I will go !"), ("f1", "D", "I went."),
    ("f1", "E", "I shall walk."), ("f1", "F", "i shall walk"), ("f1", "G", "I Shall Walk."),
    # f2 and f3: "home" and "today" added keep the label; went/will go changes it
    ("f2", "A", "You will go."), ("f2", "B", "You will go home."), ("f2", "C", "You went."),
    ("f2", "D", "You will go today."),
    ("f3", "A", "He will go."), ("f3", "B", "He will go home."), ("f3", "C", "He went home."),
    ("f3", "D", "He will go today."), ("f3", "E", "He wants to go."),
    # f4: only passing outputs and two undecided ones: a fail among them would make its first pairs
    ("f4", "A", "She will run."), ("f4", "B", "She will run home."), ("f4", "C", "She will run today."),
    ("f4", "D", "She is running."),
    # q1, q2: the rules tell "?" from "." apart, so these alike texts are not one group
    ("q1", "A", "Are you coming?"), ("q1", "B", "Are you coming."), ("q1", "C", "are you coming?"),
    ("q2", "A", "Are you going?"), ("q2", "B", "Are you going"),
]


def build_review_suite(db: Database, folder: Path) -> None:
    suite = folder / "review-suite.tsv"
    suite.write_text(SUITE, encoding="utf-8")
    outputs = folder / "review-outputs.tsv"
    outputs.write_text("item_id\tsystem\toutput\n" + "".join(f"{i}\t{s}\t{t}\n" for i, s, t in OUTPUTS),
                       encoding="utf-8")
    import_suite(db, suite, name="review", source_lang="de", target_lang="en")
    import_outputs(db, outputs)
    relabel(db)


def output_id(db: Database, text: str, item: str | None = None) -> int:
    with db.session() as session:
        query = select(Output.id).join(Item, Item.id == Output.item_id).where(Output.text == text)
        if item is not None:
            query = query.where(Item.external_id == item)
        return int(session.scalars(query).one())


TEACHING = [("f2", "H", "You shall go."), ("f3", "H", "He shall go."), ("f4", "H", "She shall run.")]
"""Outputs no rule decides: once a reviewer passes the first two, "will" → "shall" has kept the label twice in the
phenomenon, and the third gets a suggestion."""


def add_teaching_outputs(db: Database, folder: Path) -> None:
    outputs = folder / "teaching-outputs.tsv"
    outputs.write_text("item_id\tsystem\toutput\n" + "".join(f"{i}\t{s}\t{t}\n" for i, s, t in TEACHING),
                       encoding="utf-8")
    import_outputs(db, outputs, label=True)
