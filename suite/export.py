"""Exporting labels as a TSV, one row per system output, for review in a spreadsheet or for analysis."""
from __future__ import annotations

import csv
import os

from sqlalchemy import select

from store import Database
from store.models import AutoLabel, Item, ManualLabel, Output, Rule, System, SystemOutput
from suite.labels import automatic_label, effective_label, join_labels, rule_number
from suite.rules import describe
from suite.safe_export import spreadsheet_text, writing_text
from suite.suites import find_suite

LABEL_COLUMNS = ("item_id", "system", "output", "auto_label", "decided_by", "manual_label", "reviewer",
                 "reviewed_at", "comment", "effective_label", "rule_id")
"""``decided_by`` names a rule by its number as the editor shows it ("negative rule 1: …"); ``rule_id`` is the
stored rule's id, for machines (empty when no rule decided)."""


def export_labels(db: Database, path: str | os.PathLike[str], suite_name: str | None = None) -> int:
    """Write the labels TSV (ordered by item position, then system name) and return its number of rows.

    Missing values are empty cells; ``reviewed_at`` is ISO 8601. Written with csv quoting, like the
    outputs TSV the importers read, so that outputs with tabs or quotes survive the round trip; texts a
    spreadsheet would run as formulas get an apostrophe that the importers take off (``suite.safe_export``).
    The file is replaced whole or not at all.
    """
    with db.session() as session:
        suite = find_suite(session, suite_name)
        query = (
            join_labels(
                select(Item.external_id, System.name, Output.text, automatic_label(Output.id), AutoLabel.rule_id,
                       rule_number(), Rule.polarity, Rule.pattern, AutoLabel.reason, ManualLabel.label,
                       ManualLabel.reviewer,
                       ManualLabel.reviewed_at, ManualLabel.comment, effective_label(Output.id))
                .select_from(SystemOutput)
                .join(System, System.id == SystemOutput.system_id)
                .join(Item, Item.id == SystemOutput.item_id)
                .join(Output, Output.id == SystemOutput.output_id),
                Output.id, Output.item_id)
            .outerjoin(Rule, Rule.id == AutoLabel.rule_id)
            .where(System.suite_id == suite.id)
            .order_by(Item.position, Item.id, System.name)
        )
        rows = 0
        with writing_text(path) as file:
            writer = csv.writer(file, dialect="excel-tab", lineterminator="\n")
            writer.writerow(LABEL_COLUMNS)
            for item, system, text, auto, rule_id, number, polarity, pattern, reason, *review in session.execute(query):
                decided_by = None if auto is None else describe(auto, number, polarity, pattern, reason)
                writer.writerow(["" if value is None else
                                 value.isoformat() if hasattr(value, "isoformat") else spreadsheet_text(str(value))
                                 for value in (item, system, text, auto, decided_by, *review, rule_id)])
                rows += 1
    return rows
