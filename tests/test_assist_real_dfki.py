"""The assistants on the real DFKI de-en suite with the WMT21 outputs: no suggestion contradicts a decided output
of any item, and rule health agrees with what labelling stored. Skipped when ../shared is absent."""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select

from store import Database
from store.models import AutoLabel
from suite.assist.context import SuggestionContext
from suite.assist.evidence import suite_evidence
from suite.assist.rule_health import rule_health
from suite.assist.rule_suggestions import matcher, suggest_rules
from suite.engine.labelling import relabel
from suite.importers import import_outputs, import_suite
from suite.suites import find_suite


def test_suggestions_and_rule_health_on_dfki_de_en(db: Database, shared_data: Path) -> None:
    import_suite(db, shared_data / "mt-testsuite" / "testset" / "de-en" / "items.json")
    import_outputs(db, shared_data / "wmt21-news-systems" / "dfki-testsuite-outputs.de-en.tsv")
    relabel(db)

    with db.session() as session:
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

    report = rule_health(db)
    assert len(report.rules) == 3718
    with db.session() as session:
        by_rules = session.scalar(select(func.count()).select_from(AutoLabel)
                                  .where(AutoLabel.rule_id.is_not(None), AutoLabel.label.in_(("pass", "fail"))))
    assert sum(rule.decisions for rule in report.rules) == by_rules
    assert all(rule.decisions <= rule.matches <= rule.outputs for rule in report.rules)
    assert sum(rule.dead for rule in report.rules) > 500  # most never-matching rules guard against rare errors
