"""The Review queue's filter bar: label state, category, phenomenon and system choosers, the text search and
"group alike", with the scope the bar cannot show (an item, chosen items, an automatic label) named beside the counts.

The tree's selection and report cells set the bar from outside (``apply_filter``); every change queries the queue once.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
)

from gui.review.scope_chip import ScopeChip
from gui.review.surface import ReviewSurface
from gui.settings import Settings
from gui.state import Selection
from store.domain import Label
from suite.reading.browse import OutputFilter

LABEL_STATES: tuple[tuple[str, OutputFilter], ...] = (
    ("any label", OutputFilter()),
    ("unknown", OutputFilter(label=Label.UNKNOWN)),
    ("conflict", OutputFilter(label=Label.CONFLICT)),
    ("error", OutputFilter(label=Label.ERROR)),
    ("pass", OutputFilter(label=Label.PASS)),
    ("fail", OutputFilter(label=Label.FAIL)),
    ("reviewed", OutputFilter(reviewed=True)),
    ("not reviewed", OutputFilter(reviewed=False)),
    ("manual differs from automatic", OutputFilter(disagree=True)),
    ("empty, placeholder or untranslated", OutputFilter(degenerate=True)),
)
ANY = {"category": "any category", "phenomenon": "any phenomenon", "system": "any system"}
"""Each chooser's first entry, no filter: it names what the chooser filters, so the bar needs no labels beside
them (with them it was 1,135 px wide at least, wider than the window's share of a laptop screen)."""
TEXT_DEBOUNCE_MS = 300
SETTINGS_GROUPED = "review/grouped"


class QueueFilterBar(ReviewSurface):
    """The filter bar's widgets and the filter they make."""

    def _build_bar(self) -> None:
        self.label_box = QComboBox(self)
        for name, _ in LABEL_STATES:
            self.label_box.addItem(name)
        self.label_box.setToolTip("which outputs to show, by label state")
        self.category_box = QComboBox(self)
        self.phenomenon_box = QComboBox(self)
        self.system_box = QComboBox(self)
        for key, box in (("category", self.category_box), ("phenomenon", self.phenomenon_box),
                         ("system", self.system_box)):
            box.addItem(ANY[key])
            box.setToolTip(f"only the outputs of one {key}")
        for box in (self.label_box, self.category_box, self.phenomenon_box, self.system_box):
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(9)  # the list that opens shows whole names
        self.text_box = QLineEdit(self)
        self.text_box.setPlaceholderText("output contains…")
        self.text_box.setClearButtonEnabled(True)
        self.text_box.setMinimumWidth(110)
        self.group_box = QCheckBox("group alike", self)
        self.group_box.setToolTip("show the outputs of an item that differ only in case, punctuation, quotes or "
                                  "spaces, and got the same automatic label, as one row: a decision decides them "
                                  "all")
        self.group_box.setChecked(Settings().flag(SETTINGS_GROUPED, True))
        self.group_box.toggled.connect(self._grouping_toggled)
        self.scope_chip = ScopeChip(self)
        self.scope_chip.clicked.connect(self.clear_scope)
        self.count_label = QLabel(self)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(TEXT_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.requery)
        self.text_box.textChanged.connect(self._debounce.start)
        self.label_box.currentIndexChanged.connect(lambda _: self.requery())
        self.category_box.currentIndexChanged.connect(self._category_chosen)
        self.phenomenon_box.currentIndexChanged.connect(lambda _: self._phenomenon_chosen())
        self.system_box.currentIndexChanged.connect(lambda _: self.requery())
        self._bar = QHBoxLayout()
        for widget in (self.label_box, self.category_box, self.phenomenon_box, self.system_box):
            self._bar.addWidget(widget, 1)
        self._bar.addWidget(self.text_box, 2)
        self._quiet = False  # set while the bar is filled from outside, so one change queries once
        self._keep_bar = False  # set while the chip lets the tree's item go

    def current_filter(self) -> OutputFilter:
        def chosen(box: QComboBox) -> str | None:
            return None if box.currentIndex() <= 0 else box.currentText()

        label = LABEL_STATES[max(self.label_box.currentIndex(), 0)][1]
        return replace(self._scope, label=label.label, reviewed=label.reviewed, disagree=label.disagree,
                       degenerate=label.degenerate,
                       category=chosen(self.category_box), phenomenon=chosen(self.phenomenon_box),
                       system=chosen(self.system_box), contains=self.text_box.text().strip() or None,
                       grouped=self.group_box.isChecked())

    def _grouping_toggled(self, grouped: bool) -> None:
        Settings().set(SETTINGS_GROUPED, "true" if grouped else "false")
        self.requery()

    def requery(self, *, again: bool = False) -> None:
        if self._quiet:
            return
        self._debounce.stop()
        self._show_scope()
        self.model.query(self.current_filter(), again=again)

    def apply_filter(self, filter: OutputFilter) -> None:
        """Show exactly this filter (from a report cell or the tree), in the bar where the bar can show it."""
        self._quiet = True
        try:
            state = next((i for i, (_, f) in enumerate(LABEL_STATES)
                          if (f.label, f.reviewed, f.disagree, f.degenerate) ==
                          (filter.label, filter.reviewed, filter.disagree, filter.degenerate)), 0)
            self.label_box.setCurrentIndex(state)
            self._choose(self.category_box, filter.category)
            self._fill_phenomena()
            self._choose(self.phenomenon_box, filter.phenomenon)
            self._choose(self.system_box, filter.system)
            self.text_box.setText(filter.contains or "")
            self._scope = OutputFilter(item=filter.item, item_ids=filter.item_ids, auto_label=filter.auto_label)
        finally:
            self._quiet = False
        self.requery()

    def _choose(self, box: QComboBox, value: str | None) -> None:
        if value is not None and box.findText(value) < 0:
            box.addItem(value)
        box.setCurrentIndex(0 if value is None else box.findText(value))

    def _show_scope(self) -> None:
        scope = self._scope
        parts = [f"item {scope.item}"] if scope.item else []
        if scope.item_ids:
            named = self._item_name(scope.item_ids[0]) if len(scope.item_ids) == 1 else None
            parts.append(f"item {named}" if named else
                         f"{len(scope.item_ids)} chosen item{'s' if len(scope.item_ids) > 1 else ''}")
        if scope.auto_label:
            parts.append(f"automatic {scope.auto_label}")
        self.scope_chip.setText(" · ".join(parts))

    def _item_name(self, item_id: int) -> str | None:
        """The item's id as the suite names it, from the tree the window read ("item 00470001" says more than "1
        chosen item")."""
        tree = self._state.tree
        return None if tree is None else next((item.external_id for category in tree.categories
                                               for phenomenon in category.phenomena for item in phenomenon.items
                                               if item.item_id == item_id), None)

    def clear_scope(self) -> bool:
        """Take away what the chip shows (an item chosen in the tree stops being chosen there too, since the tree's
        selection would otherwise narrow the queue again); False when nothing was in force."""
        if self._scope == OutputFilter():
            return False
        self._scope = OutputFilter()
        if self._state.selection.item_id is not None:
            self._keep_bar = True  # the tree lets go of the item; the choosers stay as the reviewer set them
            try:
                self._state.select(Selection())
            finally:
                self._keep_bar = False
        self.requery()
        return True

    def clear_filter(self) -> None:
        """Esc: the chip's scope first; with none, every chooser back to "any" and the text search emptied."""
        if self.clear_scope():
            return
        self.apply_filter(OutputFilter(grouped=self.group_box.isChecked()))

    def _fill_systems(self, names: list[str]) -> None:
        self._refill(self.system_box, names)

    def _fill_categories(self) -> None:
        tree = self._state.tree
        self._refill(self.category_box, [c.name for c in tree.categories] if tree else [])
        self._fill_phenomena()

    def _fill_phenomena(self) -> None:
        tree = self._state.tree
        category = self.category_box.currentText()
        names = [p.name for c in (tree.categories if tree else []) if c.name == category for p in c.phenomena]
        self._refill(self.phenomenon_box, names)

    def _refill(self, box: QComboBox, names: list[str]) -> None:
        """New choices, keeping the current one (even if it has gone: the table still shows it)."""
        current = box.currentText() if box.currentIndex() > 0 else None
        quiet, self._quiet = self._quiet, True
        try:
            anything = box.itemText(0)
            box.clear()
            box.addItem(anything)
            box.addItems(names)
            self._choose(box, current)
        finally:
            self._quiet = quiet

    def _category_chosen(self) -> None:
        if self._quiet:
            return
        self._quiet = True
        try:
            self._fill_phenomena()
            self.phenomenon_box.setCurrentIndex(0)
        finally:
            self._quiet = False
        self._phenomenon_chosen()

    def _phenomenon_chosen(self) -> None:
        """A category or phenomenon chosen in the bar replaces the item the tree had chosen: the reviewer asks for
        those outputs, and the item's stayed in force under "any category" (issue 28)."""
        if self._quiet:
            return
        if not self.clear_scope():
            self.requery()

    def _selection_changed(self) -> None:
        """The tree narrows the queue to the category, phenomenon or item chosen there."""
        if self._keep_bar:
            return
        selection = self._state.selection
        current = self.current_filter()
        self.apply_filter(replace(current, category=selection.category, phenomenon=selection.phenomenon,
                                  item=None, item_ids=None if selection.item_id is None else (selection.item_id,)))
