"""The assistants on the real DFKI de-en suite with the WMT21 outputs: no suggestion contradicts a decided output
of any item, and rule health agrees with what labelling stored. Skipped when ../shared is absent."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import SHARED_DATA
from sqlalchemy import func, select

from store import Database, open_database
from store.models import AutoLabel
from suite.assist.context import SuggestionContext
from suite.assist.evidence import suite_evidence
from suite.assist.rule_health import rule_health
from suite.assist.rule_suggestions import matcher, suggest_rules
from suite.importers import import_outputs, import_suite
from suite.labelling import relabel
from suite.suites import find_suite


@pytest.fixture(scope="module")
def dfki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data/external is not present")
    shared_data = SHARED_DATA
    db = open_database(tmp_path_factory.mktemp("dfki") / "dfki.sqlite")
    import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    relabel(db)
    yield db
    db.close()


def test_no_suggestion_contradicts_a_decided_text_of_any_item(dfki: Database) -> None:
    with dfki.session() as session:
        items = suite_evidence(session, find_suite(session).id)
    context = SuggestionContext.of(items)
    offered = decided = 0
    for item in items:
        for suggestion in suggest_rules(item, context):
            decides = matcher(suggestion.polarity, suggestion.pattern, suggestion.ignore_case)
            assert not any(decides(text) for text in item.texts("fail" if suggestion.label == "pass" else "pass")), \
                (item.external_id, suggestion.pattern)
            assert suggestion.decides and all(decides(o.text) for o in item.undecided
                                              if o.output_id in suggestion.decides)
            offered += 1
            decided += len(suggestion.decides)
    assert offered > 500 and decided > 500  # 883 suggestions deciding 1,175 outputs (with repeats) when written


def test_rule_health_agrees_with_the_stored_labels(dfki: Database) -> None:
    report = rule_health(dfki)
    assert len(report.rules) == 3718
    with dfki.session() as session:
        by_rules = session.scalar(select(func.count()).select_from(AutoLabel)
                                  .where(AutoLabel.rule_id.is_not(None), AutoLabel.label.in_(("pass", "fail"))))
    assert sum(rule.decisions for rule in report.rules) == by_rules
    assert all(rule.decisions <= rule.matches <= rule.outputs for rule in report.rules)
    assert sum(rule.dead for rule in report.rules) > 500  # most never-matching rules guard against rare errors
