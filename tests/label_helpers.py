"""Automatic labels written straight into a test database, stored the way ``suite.engine.labelling`` stores them."""
from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from store import Database
from store.models import AutoLabel, LabelFingerprint, Output
from suite.reading.browse import output_rows


def write_automatic_labels(session: Session, labels: Mapping[int, str]) -> None:
    """Give each output id its automatic label: a row unless ``unknown``, and its item a fingerprint covering
    its outputs up to the largest id given (a made-up fingerprint, so a real labelling run redoes them)."""
    decided = [{"output_id": output_id, "label": label} for output_id, label in labels.items() if label != "unknown"]
    if decided:
        session.execute(insert(AutoLabel), decided)
    covered = session.execute(select(Output.item_id, func.max(Output.id)).where(Output.id.in_(list(labels)))
                              .group_by(Output.item_id)).all()
    session.execute(delete(LabelFingerprint).where(LabelFingerprint.item_id.in_([item for item, _ in covered])))
    session.execute(insert(LabelFingerprint), [{"item_id": item, "fingerprint": "written by a test",
                                                "labelled_through": through} for item, through in covered])


def seen_version(db: Database, output_id: int) -> int:
    """The output's manual label version as a reviewer reads it before deciding (0: not reviewed): what a decision
    passes back to replace or remove another reviewer's decision knowingly."""
    [row] = output_rows(db, [output_id])
    return row.manual_version
