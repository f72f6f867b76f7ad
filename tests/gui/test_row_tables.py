"""The editor's tables on their shared base (``gui.row_table_model``): what the columns as data answer Qt, and
the lists that edit the draft of a real demo item in place."""
from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QApplication

from gui.editor.entries import EntryModel
from gui.editor.rules import RuleModel
from gui.editor.scope import ScopeModel
from store import Database
from store.domain import Polarity
from suite.editing.api import find_item
from suite.editing.item_detail import item_detail
from suite.editing.item_draft import EditorDraft
from suite.engine.preview import DraftRule, preview_scope
from suite.engine.rules import RuleSpec

TOOLTIP = Qt.ItemDataRole.ToolTipRole
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def _tested(model: QAbstractItemModel) -> QAbstractItemModelTester:
    """Qt's own checks of every signal and answer of ``model``, for as long as the tester is kept."""
    return QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)


def _draft(db: Database) -> EditorDraft:
    return EditorDraft.of(item_detail(db, find_item(db, "amb-01")))


def test_the_rule_list_shows_and_edits_one_polarity_of_the_draft(qapp: QApplication, demo_db: Database) -> None:
    model = RuleModel("positive")
    tester = _tested(model)
    assert model.rowCount() == 0 and model.flags(QModelIndex()) == Qt.ItemFlag.ItemIsDropEnabled
    draft = _draft(demo_db)
    model.set_draft(draft)
    patterns = [rule.spec.pattern for rule in draft.rules["positive"]]
    assert patterns and [model.index(row, 1).data() for row in range(model.rowCount())] == patterns
    assert [model.headerData(column, Qt.Orientation.Horizontal) for column in range(4)] == \
        ["", "Pattern", "Aa", "Matches"]
    assert model.headerData(2, Qt.Orientation.Horizontal, TOOLTIP) == "ignore upper/lower case"
    assert model.headerData(0, Qt.Orientation.Vertical) is None
    assert model.index(0, 1).flags() & Qt.ItemFlag.ItemIsEditable
    assert model.index(0, 0).flags() & Qt.ItemFlag.ItemIsDragEnabled
    assert not model.index(0, 3).flags() & (Qt.ItemFlag.ItemIsEditable | Qt.ItemFlag.ItemIsDragEnabled)
    assert model.index(0, 3).data(Qt.ItemDataRole.TextAlignmentRole) == RIGHT
    assert model.index(0, 1).data(Qt.ItemDataRole.TextAlignmentRole) is None
    assert model.data(model.index(model.rowCount(), 1)) is None  # below the last row

    edits: list[None] = []
    model.edited.connect(lambda: edits.append(None))
    row = model.add()
    assert row == len(patterns) and draft.rules["positive"][row].spec.pattern == "" and len(edits) == 1
    assert model.removeRows(row, 1) and [r.spec.pattern for r in draft.rules["positive"]] == patterns
    assert not model.removeRows(row, 1) and len(edits) == 2
    model.set_draft(None)
    assert model.rowCount() == 0 and tester.model() is model


def test_the_entry_lists_edit_the_known_translations_and_references_of_the_draft(qapp: QApplication,
                                                                                 demo_db: Database) -> None:
    draft = _draft(demo_db)
    known = EntryModel(("good", "bad"), lambda d: d.known)
    references = EntryModel(("standard",), lambda d: d.references)
    testers = [_tested(known), _tested(references)]
    known.set_draft(draft)
    references.set_draft(draft)
    assert known.rowCount() == len(draft.known) and references.rowCount() == len(draft.references)
    row = known.add("good")
    assert known.setData(known.index(row, 1), "  The bench  was painted. ")
    assert draft.known[row].text == "The bench was painted." and known.index(row, 1).data() == draft.known[row].text
    assert known.index(row, 0).flags() & Qt.ItemFlag.ItemIsEditable
    assert references.rowCount() == len(draft.references)  # the other list of the same draft is untouched
    assert [tester.model() for tester in testers] == [known, references]


def test_the_scope_table_holds_the_flipped_items_and_right_aligns_their_counts(qapp: QApplication,
                                                                               demo_db: Database) -> None:
    added = [DraftRule(RuleSpec(Polarity.NEGATIVE, r"\bthe\b", True)),
             DraftRule(RuleSpec(Polarity.POSITIVE, r"\bhad\b"))]
    preview = preview_scope(demo_db, find_item(demo_db, "vt-03"), added, "suite")
    assert len(preview.items) > 1
    model = ScopeModel()
    tester = _tested(model)
    model.set_rows(preview.items)
    assert model.rowCount() == len(preview.items) and model.row(1) is preview.items[1]
    for row, item in enumerate(preview.items):
        assert model.index(row, 0).data() == item.external_id
        assert model.index(row, 1).data() == " / ".join(p for p in (item.category, item.phenomenon) if p)
        assert "→" in model.index(row, 2).data() and model.index(row, 3).data() == str(len(item.output_ids))
    assert model.index(0, 3).data(Qt.ItemDataRole.TextAlignmentRole) == RIGHT
    assert model.index(0, 0).data(TOOLTIP) == "double-click to open this item"
    assert model.index(0, 1).data(TOOLTIP) is None
    assert model.index(0, 2).flags() == Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
    model.set_rows([])
    assert model.rowCount() == 0 and tester.model() is model
