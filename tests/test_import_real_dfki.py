"""The real DFKI de-en suite (Macketanz et al., LREC 2022) with the WMT21 systems' outputs on it."""
from __future__ import annotations

from pathlib import Path

import pytest

from store import Database
from suite.engine.output_policy import output_policy
from suite.importers import import_outputs, import_suite
from suite.reading.status import suite_status

pytestmark = pytest.mark.shared


def test_dfki_de_en_with_wmt21_outputs(db: Database, shared_data: Path) -> None:
    suite = import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    assert suite.warnings == []
    assert {k: suite.counts[k] for k in ("items", "categories", "phenomena", "invalid_rules")} == {
        "items": 2767, "categories": 14, "phenomena": 106, "invalid_rules": 0}
    outputs = import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    assert outputs.warnings == []
    assert {k: outputs.counts[k] for k in ("rows", "systems", "distinct_outputs")} == {
        "rows": 52212, "systems": 19, "distinct_outputs": 13985}
    # UF's ``####``, the one output of the file with no letter, listed as a placeholder from the first import on
    assert output_policy(db).placeholders == ("####",) and outputs.counts["placeholders_added"] == 1
    status = suite_status(db)
    assert (status["items"], status["systems"], status["system_outputs"], status["outputs"]) == (2767, 19, 52212, 13985)
    # Re-importing the same file changes nothing.
    again = import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    assert again.counts["system_outputs_unchanged"] == 52212 and again.counts["outputs_added"] == 0
