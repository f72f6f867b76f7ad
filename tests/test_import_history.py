"""Imports that change a suite are edits like any other: in the history under the importing author, with the
versions an edit would bump, so an editor or reviewer who read a changed row before is refused; an item removed
by an update can be restored from its history."""
from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from reviewing import review_outputs
from sqlalchemy import Connection, select, text
from table_dump import dump

from store import Database
from store.domain import Label
from store.models import Item, Rule
from suite.demo import DEMO_SUITE, create_demo
from suite.editing import items
from suite.editing.api import (
    ItemSnapshot,
    change_item,
    change_rule,
    find_item,
    item_detail,
    item_history,
    restore_removed_item,
)
from suite.editing.history import checked_row, checked_update
from suite.editing.items import snapshot_items
from suite.editing.review import SeenOutput
from suite.errors import EditConflict
from suite.importers import import_outputs, import_suite

DEMO_TSV = Path(__file__).resolve().parents[1] / "suite" / "demo" / "suite.tsv"
CHANGED = r"changed by importer at \d{4}-\d\d-\d\d [\d:]+ UTC: now "


@pytest.fixture
def demo(any_db: Database) -> Database:
    create_demo(any_db)
    return any_db


def edited_suite(tmp_path: Path, edit: dict[str, list[str]], drop: str | None = None,
                 add: list[str] | None = None) -> Path:
    """The demo's suite file as a linguist changed it in a spreadsheet: cells of some rows replaced (column
    name -> value), one row dropped, one added."""
    lines = DEMO_TSV.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    rows = [line.split("\t") for line in lines[1:] if line.strip()]
    out = []
    for row in rows:
        if row[0] == drop:
            continue
        for change in edit.get(row[0], []):
            column, value = change.split("=", 1)
            row[header.index(column)] = value
        out.append(row)
    if add:
        out.append(add)
    path = tmp_path / "suite.tsv"
    path.write_text("\n".join("\t".join(row) for row in [header, *out]) + "\n", encoding="utf-8")
    return path


def test_an_update_is_in_the_history_and_refuses_stale_editors(demo: Database, tmp_path: Path) -> None:
    last = DEMO_TSV.read_text(encoding="utf-8").splitlines()[-1].split("\t")[0]  # its rules have the largest ids
    bank, lock, vase, last_item = (item_detail(demo, find_item(demo, name))
                                   for name in ("amb-01", "amb-02", "amb-03", last))
    removed_outputs = item_detail(demo, find_item(demo, "amb-04")).outputs
    path = edited_suite(tmp_path, {
        "amb-01": [r"negative_regex=\bbanks?\b"],                  # one rule changed, the other kept
        "amb-02": ["source=Das Schloss an der Gartentür klemmt."],  # the item's own field
        "amb-03": ["good_translations=She put the flowers in a vase of fresh water."],
        last: [r"negative_regex=\bnever matches\b"],               # the rule with the largest id goes
    }, drop="amb-04", add=["new-01", "Ambiguity", "Lexical ambiguity", "Der Hund schläft.", r"\bdog\b", "", "",
                           "", ""])
    result = import_suite(demo, path, name=DEMO_SUITE, update=True, remove_missing=True, author="importer")
    assert (result.counts["items_updated"], result.counts["items_added"], result.counts["items_removed"]) == (4, 1, 1)
    imported = dump(demo)  # the same file again changes nothing and records nothing
    again = import_suite(demo, path, name=DEMO_SUITE, update=True, remove_missing=True, author="importer")
    assert again.counts["items_updated"] == 0 and dump(demo) == imported

    # amb-01: the kept rule has its id and version; the changed one was removed and added, as an edit would
    positive, negative = bank.rules
    now = item_detail(demo, bank.id)
    assert now.rules[0] == positive and now.rules[1].spec.pattern == r"\bbanks?\b" and now.rules[1].id != negative.id
    entries = [(h.entity, h.entity_id, h.action, h.author, h.before, h.after)
               for h in item_history(demo, "amb-01") if h.author == "importer"]
    assert entries == [
        ("rule", now.rules[1].id, "add", "importer", None,
         {"polarity": "negative", "pattern": r"\bbanks?\b", "ignore_case": False, "position": 0}),
        ("rule", negative.id, "remove", "importer",
         {"polarity": "negative", "pattern": r"\bbank\b", "ignore_case": False, "position": 0}, None)]
    with pytest.raises(EditConflict, match=CHANGED + "removed"):
        change_rule(demo, negative.id, pattern=r"\bseat\b", author="ada", expected_version=negative.version)
    assert change_rule(demo, positive.id, pattern=r"\bbenches?\b", author="ada",
                       expected_version=positive.version).version == positive.version + 1

    # amb-02: its source changed: a new version and the change in its history
    (change,) = [h for h in item_history(demo, "amb-02") if h.author == "importer"]
    assert (change.entity, change.action, change.version) == ("item", "change", lock.version + 1)
    assert (change.before, change.after) == ({"source": lock.source},
                                             {"source": "Das Schloss an der Gartentür klemmt."})
    with pytest.raises(EditConflict, match=CHANGED + "'Das Schloss an der Gartentür klemmt.'"):
        change_item(demo, lock.id, comment="mine", author="ada", expected_version=lock.version)

    # amb-03: a known translation added; the item's own version is untouched
    (added,) = [h for h in item_history(demo, "amb-03") if h.author == "importer"]
    assert (added.entity, added.action, added.after) == (
        "known", "add", {"kind": "good", "text": "She put the flowers in a vase of fresh water."})
    assert item_detail(demo, vase.id).version == vase.version

    # the last item's rule with the largest id: a reused id (SQLite) starts above the removed rule's version
    old_rule = last_item.rules[-1]
    new_rule = item_detail(demo, last_item.id).rules[-1]
    if new_rule.id == old_rule.id:
        assert new_rule.version > old_rule.version
    with pytest.raises(EditConflict, match=CHANGED):
        change_rule(demo, old_rule.id, pattern="x", author="ada", expected_version=old_rule.version)

    # new-01 was added, amb-04 removed with all it held, and the removal can be undone
    assert [(h.entity, h.action) for h in item_history(demo, "new-01")] == [("item", "add")]
    removal = item_history(demo, "amb-04")[0]
    assert (removal.action, removal.author, len(removal.before["outputs"])) == (  # type: ignore[index]
        "remove", "importer", len(removed_outputs))
    restore_removed_item(demo, "amb-04", DEMO_SUITE, author="ada")
    restored = item_detail(demo, find_item(demo, "amb-04")).outputs
    assert [(o.text, o.manual_label, o.reviewer) for o in restored] == [
        (o.text, o.manual_label, o.reviewer) for o in removed_outputs]


def test_items_an_update_removes_keep_what_each_held(demo: Database, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An update that drops nearly every item reads their snapshots a chunk of items at a time (a few chunks
    here); each removal's history entry holds what the item alone held, its outputs, reviews and scores."""
    monkeypatch.setattr(items, "SNAPSHOT_CHUNK", 7)
    with demo.session() as session:
        expected = {item.external_id: snapshot_items(session, [item])[0]
                    for item in session.scalars(select(Item).order_by(Item.position))}
    assert any(output.manual_label for snapshot in expected.values() for output in snapshot.outputs)
    assert any(output.qe_scores for snapshot in expected.values() for output in snapshot.outputs)
    lines = DEMO_TSV.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "suite.tsv"
    path.write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")
    kept = lines[1].split("\t")[0]
    result = import_suite(demo, path, name=DEMO_SUITE, update=True, remove_missing=True, author="importer")
    assert result.counts["items_removed"] == len(expected) - 1 > 2 * items.SNAPSHOT_CHUNK
    assert result.counts["outputs_removed"] == sum(len(s.outputs) for name, s in expected.items() if name != kept)
    for name, snapshot in expected.items():
        if name != kept:
            removal = item_history(demo, name)[0]
            assert (removal.action, ItemSnapshot.from_dict(removal.before or {})) == ("remove", snapshot)



def test_a_rule_that_moves_keeps_its_id_and_the_order_is_recorded(demo: Database, tmp_path: Path) -> None:
    item = item_detail(demo, find_item(demo, "amb-01"))
    positive, negative = item.rules
    path = edited_suite(tmp_path, {"amb-01": [r"positive_regex=\bseat\b ||| \bbench\b"]})
    import_suite(demo, path, name=DEMO_SUITE, update=True, author="importer")
    now = item_detail(demo, item.id)
    assert [(r.spec.pattern, r.position) for r in now.rules] == [(r"\bseat\b", 0), (r"\bbench\b", 1), (r"\bbank\b", 0)]
    assert (now.rules[1].id, now.rules[1].version) == (positive.id, positive.version)
    assert now.rules[2] == negative  # moved from the second place to the third, still the first negative rule
    assert [(h.entity, h.action) for h in item_history(demo, "amb-01") if h.author == "importer"] == [
        ("rule", "add")]
    swapped = edited_suite(tmp_path, {"amb-01": [r"positive_regex=\bbench\b ||| \bseat\b"]})
    import_suite(demo, swapped, name=DEMO_SUITE, update=True, author="importer")
    reorder = item_history(demo, "amb-01")[0]
    assert (reorder.entity, reorder.action, reorder.before, reorder.after) == (
        "rule", "reorder", {"rule_ids": [now.rules[0].id, positive.id, negative.id]},
        {"rule_ids": [positive.id, now.rules[0].id, negative.id]})
    assert [rule.id for rule in item_detail(demo, item.id).rules] == [positive.id, now.rules[0].id, negative.id]


def test_a_replaced_output_is_in_the_history_and_refuses_its_reviewer(demo: Database, tmp_path: Path) -> None:
    bank = item_detail(demo, find_item(demo, "amb-01"))
    smt = next(o for o in bank.outputs if o.systems == ("Baseline-SMT",))
    reviewed = next(o for o in bank.outputs if o.manual_label is not None)
    assert smt.manual_label is None and reviewed.systems == ("Online-X",)
    path = tmp_path / "again.tsv"
    path.write_text("item_id\tsystem\toutput\n"
                    "amb-01\tBaseline-SMT\tThe bench at the river shore was fresh painted.\n"
                    "amb-01\tOnline-X\tThe bench by the river bank was freshly painted.\n", encoding="utf-8")
    result = import_outputs(demo, path, author="importer")
    assert result.counts["system_outputs_changed"] == 2 and result.counts["outputs_removed"] == 1
    entries = sorted((h.entity_id, h.action, h.before, h.after) for h in item_history(demo, "amb-01")
                     if h.author == "importer")
    assert entries == sorted([
        (smt.output_id, "change", {"system": "Baseline-SMT", "text": smt.text},
         {"system": "Baseline-SMT", "text": "The bench at the river shore was fresh painted."}),
        (reviewed.output_id, "change", {"system": "Online-X", "text": reviewed.text},
         {"system": "Online-X", "text": "The bench by the river bank was freshly painted."})])
    # the unreviewed output is gone: a reviewer who still shows it is refused, naming who replaced it
    before = dump(demo)
    with pytest.raises(EditConflict, match=rf"^output {smt.output_id}: {CHANGED}removed$"):
        review_outputs(demo, [SeenOutput(reviewed.output_id, reviewed.manual_version),
                                 SeenOutput(smt.output_id, 0)], Label.PASS, "ada")
    assert dump(demo) == before
    # the reviewed one is kept with its label, no longer produced by Online-X
    kept = {o.output_id: o for o in item_detail(demo, bank.id).outputs}[reviewed.output_id]
    assert (kept.manual_label, kept.systems) == (reviewed.manual_label, ())


def test_an_update_reads_what_an_editor_saves_at_the_same_moment(pg: Database, tmp_path: Path) -> None:
    """PostgreSQL: an update that reaches a rule an editor is saving waits for the save (the rows it reads are
    locked) and records what the editor saved as the rule's state before the import, not what it was."""
    create_demo(pg)
    item = find_item(pg, "amb-01")
    rule = item_detail(pg, item).rules[1]
    path = edited_suite(tmp_path, {"amb-01": [r"negative_regex=\bbanks?\b"]})
    failures: list[BaseException] = []

    def update() -> None:
        try:
            import_suite(pg, path, name=DEMO_SUITE, update=True, author="importer")
        except BaseException as error:  # noqa: BLE001 - reported by the test thread
            failures.append(error)

    importing = threading.Thread(target=update)
    with pg.transaction() as editor:  # the editor's save, committed when the import already waits for it
        seen = checked_row(editor, Rule, rule.id, rule.version)
        saved = checked_update(editor, Rule, seen, {"pattern": r"\bshore\b"})
        importing.start()
        with pg.engine.connect() as watcher:
            waiting_for_a_lock(watcher, importing)
    importing.join(timeout=120)
    assert not importing.is_alive() and failures == []
    removal = next(h for h in item_history(pg, "amb-01") if h.action == "remove" and h.entity_id == rule.id)
    assert removal.before == {"polarity": "negative", "pattern": r"\bshore\b", "ignore_case": False, "position": 0}
    assert saved == rule.version + 1 and item_detail(pg, item).rules[1].spec.pattern == r"\bbanks?\b"


def waiting_for_a_lock(connection: Connection, thread: threading.Thread) -> None:
    """Return once another backend of this database waits for a lock (or ``thread`` ended without waiting)."""
    query = text("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                 "AND wait_event_type = 'Lock'")
    deadline = time.monotonic() + 60
    while thread.is_alive() and time.monotonic() < deadline:
        if connection.execute(query).scalar_one():
            return
        connection.rollback()  # a fresh snapshot of pg_stat_activity for the next look
        time.sleep(0.01)
    raise AssertionError("the import never waited for the editor's save")
