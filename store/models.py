"""The tsqe data model.

Distinct output texts are stored once per item (``Output``) and linked to the systems that produced them
(``SystemOutput``), so identical translations of several systems are labelled, reviewed and paired once,
as in Avramidis et al. Automatic and manual labels live in separate tables so that relabelling can never
overwrite a reviewer's decision.
"""
from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    true,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.engine.default import DefaultExecutionContext
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from store.domain import AUTO_LABELS as AUTO_LABELS
from store.domain import CONSTRUCTED_LABELS as CONSTRUCTED_LABELS
from store.domain import MANUAL_LABELS as MANUAL_LABELS
from store.domain import POLICY_LABELS as POLICY_LABELS
from store.domain import STORED_AUTO_LABELS as STORED_AUTO_LABELS
from store.domain import (
    ChallengeFormat,
    EmbeddingPrecision,
    ErrorSeverity,
    HumanScoreKind,
    Label,
    Polarity,
    TranslationKind,
)
from store.group_key import KEY_LENGTH, group_key
from store.text import nfc as nfc  # where the importers have always found it

CHALLENGE_FORMATS: tuple[ChallengeFormat, ...] = tuple(ChallengeFormat)
EMBEDDING_PRECISIONS: tuple[EmbeddingPrecision, ...] = tuple(EmbeddingPrecision)
POLARITIES: tuple[Polarity, ...] = tuple(Polarity)
TRANSLATION_KINDS: tuple[TranslationKind, ...] = tuple(TranslationKind)
STANDARD_REFERENCE = "standard"
"""The kind of a reference whose source says none, and the kind whose sets metrics use by default."""


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp stored in UTC and read back as an aware UTC datetime from every backend: SQLite keeps no
    time zone, so without this the same review would be exported with an offset from PostgreSQL only."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is None:
            return value
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is not None:
            return value
        return value.replace(tzinfo=UTC)


class _NFC(TypeDecorator[str]):
    """A text stored in Unicode NFC, whatever form it is written or looked up in.

    An output typed on a Mac arrives decomposed (NFD), its copy from a web page composed (NFC): the same text to
    a reader, two outputs with different labels to a program (a pattern written in NFC does not match the NFD
    form), and an item id that looks identical is "unknown". Normalising every value bound to these columns,
    in writes and in the comparisons of queries alike, makes them one text; importers normalise what they
    compare in memory too (``suite.importers.table_files``), and migration 0011 normalised what was stored before.
    """

    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else nfc(value)


class NFCText(_NFC):
    impl = Text
    cache_ok = True


class NFCString(_NFC):
    """``NFCText`` of a bounded length, as ``String(N)``."""

    impl = String
    cache_ok = True


def _in(column: str, values: tuple[str, ...]) -> str:
    """A membership check spelled as ORs: SQLite rebuilds an ephemeral table for a constant ``IN`` list on
    every execution of a statement, which doubled the cost of inserting a million labels."""
    return " OR ".join(f"{column} = {str(value)!r}" for value in values)


class Base(DeclarativeBase):
    pass


class Suite(Base):
    __tablename__ = "suites"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(NFCString(200), unique=True)
    source_lang: Mapped[str] = mapped_column(String(20))
    target_lang: Mapped[str] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    challenge: Mapped[str | None] = mapped_column(String(40))
    """The challenge-set layout the suite was imported from (one of ``CHALLENGE_FORMATS``), None for any other
    suite: its outputs carry labels by construction, and its accuracy tables count a tie as wrong by default."""

    categories: Mapped[list[Category]] = relationship(back_populates="suite", cascade="all, delete-orphan",
                                                      passive_deletes=True)
    items: Mapped[list[Item]] = relationship(back_populates="suite", cascade="all, delete-orphan",
                                             passive_deletes=True, order_by="Item.position")
    systems: Mapped[list[System]] = relationship(back_populates="suite", cascade="all, delete-orphan",
                                                 passive_deletes=True)


class StoredOutputPolicy(Base):
    """How a suite's degenerate outputs are labelled: empty ones and placeholders (``OutputPlaceholder``), and
    outputs identical to their item's source (not translated). A suite without a row has the default policy,
    ``unknown`` for both, under which the rules decide them as any output."""

    __tablename__ = "output_policies"
    __table_args__ = (
        CheckConstraint(_in("empty_output", POLICY_LABELS), name="ck_output_policies_empty"),
        CheckConstraint(_in("untranslated_output", POLICY_LABELS), name="ck_output_policies_untranslated"),
    )
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"), primary_key=True)
    empty_output: Mapped[Label] = mapped_column(String(10), server_default="unknown")
    untranslated_output: Mapped[Label] = mapped_column(String(10), server_default="unknown")


class OutputPlaceholder(Base):
    """A text that a suite's systems output instead of a translation (e.g. ``####``); a row each, so that a query
    can tell a placeholder output by a join (Review's filter of degenerate outputs)."""

    __tablename__ = "output_placeholders"
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"), primary_key=True)
    text: Mapped[str] = mapped_column(NFCString(200), primary_key=True)


class Category(Base):
    __tablename__ = "categories"
    __table_args__ = (UniqueConstraint("suite_id", "name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(NFCString(200))

    suite: Mapped[Suite] = relationship(back_populates="categories")
    phenomena: Mapped[list[Phenomenon]] = relationship(back_populates="category", cascade="all, delete-orphan",
                                                       passive_deletes=True)


class Phenomenon(Base):
    __tablename__ = "phenomena"
    __table_args__ = (UniqueConstraint("category_id", "name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    category_id: Mapped[int] = mapped_column(ForeignKey("categories.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(NFCString(200))

    category: Mapped[Category] = relationship(back_populates="phenomena")


class Item(Base):
    """A paradigm: one source sentence testing one phenomenon (none for a plain test set such as newstest)."""

    __tablename__ = "items"
    __table_args__ = (
        UniqueConstraint("suite_id", "external_id"),
        Index("ix_items_suite_position", "suite_id", "position"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"))
    external_id: Mapped[str] = mapped_column(NFCString(100))
    position: Mapped[int] = mapped_column(Integer)
    phenomenon_id: Mapped[int | None] = mapped_column(ForeignKey("phenomena.id", ondelete="SET NULL"), index=True)
    source: Mapped[str] = mapped_column(NFCText)
    comment: Mapped[str | None] = mapped_column(NFCText)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    source_lang: Mapped[str | None] = mapped_column(String(20))
    target_lang: Mapped[str | None] = mapped_column(String(20))
    """The item's own languages in a suite of several (``mul``), as DEMETR's ten source languages; None: the
    suite's."""

    suite: Mapped[Suite] = relationship(back_populates="items")
    phenomenon: Mapped[Phenomenon | None] = relationship()
    references: Mapped[list[Reference]] = relationship(back_populates="item", cascade="all, delete-orphan",
                                                       passive_deletes=True)
    rules: Mapped[list[Rule]] = relationship(back_populates="item", cascade="all, delete-orphan",
                                             passive_deletes=True, order_by="Rule.position")
    known_translations: Mapped[list[KnownTranslation]] = relationship(
        back_populates="item", cascade="all, delete-orphan", passive_deletes=True)
    outputs: Mapped[list[Output]] = relationship(back_populates="item", cascade="all, delete-orphan",
                                                 passive_deletes=True)


def _set_named_after_kind(context: DefaultExecutionContext) -> str:
    return str(context.get_current_parameters().get("kind") or STANDARD_REFERENCE)  # type: ignore[no-untyped-call]


class Reference(Base):
    """One reference translation of an item, in a named set (``wmt``, ``ar``, ``A``...) and of a kind
    (``standard``, ``paraphrase``...). A reference written without a set name is in the set named after its
    kind, which is also what migration 0006 gave the references stored before sets existed."""

    __tablename__ = "references"
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    text: Mapped[str] = mapped_column(NFCText)
    kind: Mapped[str] = mapped_column(NFCString(40), default=STANDARD_REFERENCE)
    set_name: Mapped[str] = mapped_column(NFCString(100), default=_set_named_after_kind,
                                          server_default=STANDARD_REFERENCE)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")

    item: Mapped[Item] = relationship(back_populates="references")


class Rule(Base):
    """A regular expression; an invalid one is kept (``valid`` false, ``error`` set) so it can be fixed."""

    __tablename__ = "rules"
    __table_args__ = (CheckConstraint(_in("polarity", POLARITIES), name="ck_rules_polarity"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    polarity: Mapped[Polarity] = mapped_column(String(10))
    pattern: Mapped[str] = mapped_column(NFCText)
    ignore_case: Mapped[bool] = mapped_column(Boolean, default=False)
    valid: Mapped[bool] = mapped_column(Boolean, default=True)
    error: Mapped[str | None] = mapped_column(Text)
    position: Mapped[int] = mapped_column(Integer, default=0)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")

    item: Mapped[Item] = relationship(back_populates="rules")


class KnownTranslation(Base):
    __tablename__ = "known_translations"
    __table_args__ = (CheckConstraint(_in("kind", TRANSLATION_KINDS), name="ck_known_translations_kind"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    kind: Mapped[TranslationKind] = mapped_column(String(10))
    text: Mapped[str] = mapped_column(NFCText)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")

    item: Mapped[Item] = relationship(back_populates="known_translations")


class System(Base):
    """An MT system whose outputs on a suite were imported."""

    __tablename__ = "systems"
    __table_args__ = (UniqueConstraint("suite_id", "name"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(NFCString(200))

    suite: Mapped[Suite] = relationship(back_populates="systems")


def _group_key_of_text(context: DefaultExecutionContext) -> str:
    return group_key(str(context.get_current_parameters()["text"]))  # type: ignore[no-untyped-call]


class Output(Base):
    """One distinct (whitespace-stripped) translation of an item, shared by all systems that produced it.

    ``group_key`` is the key of its text with case, punctuation, quotes, white space and Unicode form normalised
    away (``store.group_key``): outputs of an item that share it are alike, and a reviewer decides them as one
    group. It is the column's default, so every writer of outputs fills it (an output's text is never updated);
    it is nullable only because migration 0010 added it to tables that hold rows.
    """

    __tablename__ = "outputs"
    __table_args__ = (UniqueConstraint("item_id", "text"), Index("ix_outputs_item_group", "item_id", "group_key"))
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(NFCText)
    group_key: Mapped[str | None] = mapped_column(String(KEY_LENGTH), default=_group_key_of_text)

    item: Mapped[Item] = relationship(back_populates="outputs")
    auto_label: Mapped[AutoLabel | None] = relationship(cascade="all, delete-orphan", passive_deletes=True)
    manual_label: Mapped[ManualLabel | None] = relationship(cascade="all, delete-orphan", passive_deletes=True)


class ConstructedLabel(Base):
    """What a contrastive challenge set says of an output by construction: its good translation passes, its
    perturbed one fails.

    A fact of the data, not a reviewer's decision: it is not a manual label and a reviewer still overrides
    it. The rule engine reads it as it reads an item's known translations (``suite.engine.labelling``), so every
    count, report and pair sees the automatic label it gives, with "by construction" as its reason. Kept in a
    table of its own so that labelling a suite without one costs nothing more.
    """

    __tablename__ = "constructed_labels"
    __table_args__ = (CheckConstraint(_in("label", CONSTRUCTED_LABELS), name="ck_constructed_labels_label"),)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"), primary_key=True)
    label: Mapped[Label] = mapped_column(String(10))


class SystemOutput(Base):
    __tablename__ = "system_outputs"
    system_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"), primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), primary_key=True)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"), index=True)


class AutoLabel(Base):
    """What the rule engine decided, kept compact because a suite has a row per distinct output it decided.

    An output without a row is ``unknown`` if its item's labelling covered it (``LabelFingerprint``), else
    not labelled yet; ``suite.engine.labels`` is where that is read back. ``rule_id`` is the rule that decided (the
    positive one for a conflict), None for a known translation or
    no match; ``reason`` is set only for the rare decisions a rule id cannot describe (an invalid pattern,
    a timed-out search, a conflict). The readable explanation is derived by ``suite.engine.rules.describe``.
    """

    __tablename__ = "auto_labels"
    __table_args__ = (CheckConstraint(_in("label", STORED_AUTO_LABELS), name="ck_auto_labels_label"),)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"), primary_key=True)
    label: Mapped[Label] = mapped_column(String(10))
    rule_id: Mapped[int | None] = mapped_column(ForeignKey("rules.id", ondelete="SET NULL"))
    reason: Mapped[str | None] = mapped_column(Text)


class LabelFingerprint(Base):
    """The fingerprint of an item's rules and known translations under which its automatic labels were made,
    and which of its outputs that labelling covered.

    Relabelling revisits every output of an item whose current fingerprint differs, which makes it
    incremental; one row per item keeps the per-output label rows small. ``labelled_through`` is the largest
    id among the item's outputs when they were labelled: the item's outputs up to it have been labelled (those
    without an ``auto_labels`` row are ``unknown``), larger ids are new. New outputs get ids above every
    existing one, and removing outputs lowers ``labelled_through`` to the item's largest remaining output
    (``suite.importers.outputs``), so a removed id that SQLite hands out again still counts as new. An item
    without a fingerprint has no label rows: labelling writes both, deleting an item deletes both.
    """

    __tablename__ = "label_fingerprints"
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    labelled_through: Mapped[int] = mapped_column(default=0, server_default="0")
    labelled_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ItemLabelCounts(Base):
    """How many of an item's distinct outputs have each AUTOMATIC label (``unlabelled``: not labelled yet),
    kept by every writer of outputs and automatic labels in its own transaction (``suite.engine.label_counts``).

    The tree and the totals of label filters read these few thousand rows instead of joining a million
    outputs to their labels; the reviews' effect is kept beside them (``ItemReviewCounts``). An item without
    a row has no outputs.

    ``stamp`` is a new random number at every write of the row: labelling, which reads an item's outputs
    outside its write transactions, writes the item's labels only if the stamp is still the one it planned
    with, that is if nobody changed the item's outputs, labels or coverage in between (``suite.engine.labelling``).
    """

    __tablename__ = "item_label_counts"
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), primary_key=True)
    passed: Mapped[int] = mapped_column(Integer, server_default="0")
    failed: Mapped[int] = mapped_column(Integer, server_default="0")
    conflict: Mapped[int] = mapped_column(Integer, server_default="0")
    unknown: Mapped[int] = mapped_column(Integer, server_default="0")
    error: Mapped[int] = mapped_column(Integer, server_default="0")
    unlabelled: Mapped[int] = mapped_column(Integer, server_default="0")
    outputs: Mapped[int] = mapped_column(Integer, server_default="0")
    stamp: Mapped[int] = mapped_column(BigInteger, server_default="0")


REVIEWED_AUTOMATIC = (*AUTO_LABELS, "unlabelled")
"""The automatic label of a reviewed output as ``ItemReviewCounts`` keeps it (``unlabelled``: not labelled yet)."""


class ItemReviewCounts(Base):
    """How many of an item's outputs were reviewed, by their automatic and their manual label: what the
    effective counts and the label filters' totals move from the automatic counts (``ItemLabelCounts``)
    without reading every review.

    Kept exact by every writer of manual labels and of automatic labels, in its own transaction
    (``suite.engine.label_counts``); deleting an item deletes its rows. An item without rows has no reviews.
    """

    __tablename__ = "item_review_counts"
    __table_args__ = (CheckConstraint(_in("automatic", REVIEWED_AUTOMATIC), name="ck_item_review_counts_automatic"),
                      CheckConstraint(_in("manual", MANUAL_LABELS), name="ck_item_review_counts_manual"))
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), primary_key=True)
    automatic: Mapped[str] = mapped_column(String(10), primary_key=True)
    manual: Mapped[str] = mapped_column(String(10), primary_key=True)
    reviews: Mapped[int] = mapped_column(Integer)


class ItemGroupCounts(Base):
    """How many groups of alike outputs an item has with each automatic label (``unlabelled``: not labelled
    yet): a group is the item's outputs that share ``Output.group_key`` and the automatic label
    (``suite.assist.groups``). The review queue groups alike outputs by default; its total and its pages read
    these rows instead of grouping every output of the suite (2.2 s of a million outputs' first page).

    Kept exact by every writer of outputs and automatic labels, in its own transaction, beside the label counts
    (``suite.engine.label_counts``); manual labels do not change a group. An item without rows has no outputs.
    """

    __tablename__ = "item_group_counts"
    __table_args__ = (CheckConstraint(_in("automatic", REVIEWED_AUTOMATIC), name="ck_item_group_counts_automatic"),)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), primary_key=True)
    automatic: Mapped[str] = mapped_column(String(10), primary_key=True)
    groups: Mapped[int] = mapped_column(Integer)


class ManualLabel(Base):
    """A reviewer's decision; it always wins over the automatic label and is never touched by relabelling."""

    __tablename__ = "manual_labels"
    __table_args__ = (CheckConstraint(_in("label", MANUAL_LABELS), name="ck_manual_labels_label"),)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"), primary_key=True)
    label: Mapped[Label] = mapped_column(String(10))
    reviewer: Mapped[str] = mapped_column(String(200))
    reviewed_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    comment: Mapped[str | None] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")


HISTORY_ENTITIES = ("item", "rule", "known", "reference", "manual_label", "category", "phenomenon", "suite", "output")
HISTORY_ACTIONS = ("add", "change", "move", "remove", "reorder", "rename", "merge")


class HistoryEntry(Base):
    """One edit of a suite's content or one manual label set or cleared: who, when, what, before and after.

    Imports write entries too: updating a suite from a file, as edits of the items it changes, and replacing
    a system's output of an item (entity ``output``, the output the system no longer produces). Entries about
    the suite itself (entity ``suite``: its name, its languages) and its categories and phenomena have no item.

    Rows are keyed by the suite and the item's external id, not by foreign keys to the edited rows, so that
    the history of an item outlives the item, its rules and its outputs (a removed item's history is how its
    removal is undone). ``before`` and ``after`` are JSON objects of the edited fields (None when the row did
    not exist before or no longer exists after). ``version`` is the edited row's version after the edit, which
    lets a refused save name who changed the row since it was read, and when.
    """

    __tablename__ = "history"
    __table_args__ = (
        CheckConstraint(_in("entity", HISTORY_ENTITIES), name="ck_history_entity"),
        CheckConstraint(_in("action", HISTORY_ACTIONS), name="ck_history_action"),
        Index("ix_history_suite_item", "suite_id", "item_external_id", "id"),
        Index("ix_history_entity", "entity", "entity_id", "id"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"))
    item_external_id: Mapped[str | None] = mapped_column(NFCString(100))
    entity: Mapped[str] = mapped_column(String(20))
    entity_id: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(20))
    author: Mapped[str] = mapped_column(String(200))
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    before: Mapped[str | None] = mapped_column(Text)
    after: Mapped[str | None] = mapped_column(Text)
    version: Mapped[int | None] = mapped_column(Integer)


class QESystem(Base):
    """A QE system: imported scores, a trained model (``model`` holds its serialised estimator) or a metric."""

    __tablename__ = "qe_systems"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    kind: Mapped[str] = mapped_column(String(40))
    higher_is_better: Mapped[bool] = mapped_column(Boolean, default=True)
    meta: Mapped[str] = mapped_column(Text, default="{}")
    model: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class QEScore(Base):
    __tablename__ = "qe_scores"
    qe_system_id: Mapped[int] = mapped_column(ForeignKey("qe_systems.id", ondelete="CASCADE"), primary_key=True)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"), primary_key=True,
                                           index=True)
    score: Mapped[float] = mapped_column(Float)


class MetricScore(Base):
    """A cached segment-level metric score, keyed by the metric's full signature string."""

    __tablename__ = "metric_scores"
    signature: Mapped[str] = mapped_column(String(400), primary_key=True)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"), primary_key=True,
                                           index=True)
    score: Mapped[float] = mapped_column(Float)


class Embedding(Base):
    """Cached contextual token embeddings of one token sequence under one model and layer, at one precision.

    Keyed by the hash of the model's token ids, not of the text: sentences that tokenise alike (under an
    uncased model, ones that differ only in case) share one row and so score exactly alike.
    """

    __tablename__ = "embeddings"
    __table_args__ = (CheckConstraint(_in("precision", EMBEDDING_PRECISIONS), name="ck_embeddings_precision"),)
    model: Mapped[str] = mapped_column(String(400), primary_key=True)
    layer: Mapped[int] = mapped_column(Integer, primary_key=True)
    precision: Mapped[str] = mapped_column(String(10), primary_key=True)
    tokens_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    tokens: Mapped[str] = mapped_column(Text)
    dim: Mapped[int] = mapped_column(Integer)
    vectors: Mapped[bytes] = mapped_column(LargeBinary)


_HUMAN_KINDS = tuple(HumanScoreKind)


def _human_kind_column() -> Mapped[str]:
    """The kind of a human score row (``HumanScoreKind``), part of its key: a suite holds DA and MQM (or ESA) for
    the same segments side by side, and each statistic is computed on the kind chosen for it."""
    return mapped_column(String(10), primary_key=True)


class HumanScore(Base):
    """An official system-level human score (e.g. WMT DA z-score) for one MT system, of one kind."""

    __tablename__ = "human_scores"
    __table_args__ = (CheckConstraint(_in("kind", _HUMAN_KINDS), name="ck_human_scores_kind"),)
    system_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = _human_kind_column()
    lp: Mapped[str] = mapped_column(String(20))
    score: Mapped[float] = mapped_column(Float)


class HumanSegmentScore(Base):
    """A segment-level human score of one MT system on one item (WMT DA: the raw 0-100 mean, the z-score
    standardised per annotator and averaged over the segment's judgements, and how many judgements).

    ``score`` is the value every computation uses: WMT's z-score, or the score of a plain table. A system's
    official DA score is the mean of its segment z-scores, and WMT's significance tests are run on them.
    """

    __tablename__ = "human_segment_scores"
    __table_args__ = (CheckConstraint(_in("kind", _HUMAN_KINDS), name="ck_human_segment_scores_kind"),)
    system_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"), primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), primary_key=True, index=True)
    kind: Mapped[str] = _human_kind_column()
    score: Mapped[float] = mapped_column(Float)
    raw: Mapped[float | None] = mapped_column(Float)
    judgements: Mapped[int | None] = mapped_column(Integer)


class HumanScoreSet(Base):
    """A kind of human scores a suite holds (``HumanScoreKind``), named at import: one row per kind, written with
    the kind's first scores, so the rows are the kinds a statistic can be computed on (migration 0017 gave every
    suite that held scores without a row one for WMT DA z-scores, all that could be imported before 0014)."""

    __tablename__ = "human_score_sets"
    __table_args__ = (CheckConstraint(_in("kind", _HUMAN_KINDS), name="ck_human_score_sets_kind"),)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(10), primary_key=True)
    source: Mapped[str] = mapped_column(NFCString(400))
    segments_aligned: Mapped[bool] = mapped_column(Boolean, server_default=true(), default=True)
    """False when the segment scores name their segments by a numbering that is not the items': WMT's ``SYS SID``
    layout numbers segments as its annotation campaign served them (newstest2021 de-en: read as test-set lines,
    sentence chrF correlates with them at Pearson 0.014), so they serve system means and WMT's tests only."""


class HumanErrorSpan(Base):
    """One annotated error of one system's output of an item (MQM, ESA): where (character offsets into the
    output, or into the source when ``in_source``), how bad, of what category, by whom. A segment's score is
    computed from its errors at import and stored as its ``HumanSegmentScore``; the spans are kept for the window
    to show beside the output."""

    __tablename__ = "human_error_spans"
    __table_args__ = (CheckConstraint(_in("severity", tuple(ErrorSeverity)), name="ck_human_error_spans_severity"),
                      CheckConstraint(_in("kind", _HUMAN_KINDS), name="ck_human_error_spans_kind"),
                      Index("ix_human_error_spans_item", "item_id", "system_id"))
    id: Mapped[int] = mapped_column(primary_key=True)
    system_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"))
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(10))
    """The kind of the scores the error counts in (MQM, ESA): re-importing one kind replaces its spans only."""
    in_source: Mapped[bool] = mapped_column(Boolean)
    start: Mapped[int | None] = mapped_column(Integer)
    end: Mapped[int | None] = mapped_column(Integer)
    """None: the error marks no span (an omission, or the whole segment)."""
    severity: Mapped[str] = mapped_column(String(10))
    category: Mapped[str] = mapped_column(NFCString(200))
    rater: Mapped[str | None] = mapped_column(NFCString(100))
    weight: Mapped[float] = mapped_column(Float)
    """The error's share of the segment's score, by the weights it was imported with."""


class HumanSignificance(Base):
    """An imported pairwise significance result between two systems' human scores (WMT's
    ``ad-DA-diff-wilcoxon-rs-*.csv``): is ``system`` significantly better than ``other``?

    The files give thresholds, not p-values: ``p_below`` is the smallest threshold the difference passed
    (0.05, 0.01 or 0.001), None when it passed none. Every ordered pair of the file's suite systems has a row,
    so a suite whose systems have rows has imported significance even when no pair is significant.
    """

    __tablename__ = "human_significance"
    __table_args__ = (CheckConstraint(_in("kind", _HUMAN_KINDS), name="ck_human_significance_kind"),)
    system_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"), primary_key=True)
    other_id: Mapped[int] = mapped_column(ForeignKey("systems.id", ondelete="CASCADE"), primary_key=True,
                                          index=True)
    kind: Mapped[str] = _human_kind_column()
    """The kind of the scores the test was run on."""
    difference: Mapped[float | None] = mapped_column(Float)
    p_below: Mapped[float | None] = mapped_column(Float)
    source: Mapped[str] = mapped_column(NFCString(400))


class MetricStatistics(Base):
    """Cached sufficient statistics of a corpus-level metric (sacrebleu's per-segment BLEU n-gram counts, chrF
    character n-gram counts, TER edits and reference length) for one output, as float64 bytes.

    A corpus score is a function of the summed statistics, so bootstrap resamples over segments need them per
    segment; computing TER's anew for every run took minutes. ``references`` is a hash of the item's references
    the statistics were computed against: a row whose hash differs from the item's current references is stale.
    """

    __tablename__ = "metric_statistics"
    signature: Mapped[str] = mapped_column(String(400), primary_key=True)
    output_id: Mapped[int] = mapped_column(ForeignKey("outputs.id", ondelete="CASCADE"), primary_key=True,
                                           index=True)
    references: Mapped[str] = mapped_column(String(64))
    statistics: Mapped[bytes] = mapped_column(LargeBinary)


ASSIGNMENT_KINDS = ("double", "control")


class ReviewPlan(Base):
    """A suite's plan for checking its reviewers: the share of reviewed outputs given to a second reviewer, the
    share of control outputs mixed into each reviewer's assignments, and the seed that makes both choices
    repeatable (``suite.assist.double_review``)."""

    __tablename__ = "review_plans"
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"), primary_key=True)
    double_share: Mapped[float] = mapped_column(Float)
    control_share: Mapped[float] = mapped_column(Float)
    seed: Mapped[int] = mapped_column(Integer)
    author: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ReviewAssignment(Base):
    """One output given to a reviewer to decide blind: a second review of an output another reviewer decided
    (``double``; ``expected`` is that first decision as it was when the output was chosen) or a known good or bad
    translation mixed in unmarked (``control``; ``expected`` is pass or fail).

    ``reviewer`` is empty until the assignment is given to someone (a double review goes to the first reviewer
    who asks and is not its first reviewer; a control is made for one reviewer). ``label`` is that reviewer's
    answer, kept here and not as the output's manual label, which stays the first reviewer's until a disagreement
    is adjudicated. The item, output and known translation are referred to with ``SET NULL``: an answer outlives a
    removed item, and ``text`` keeps what the reviewer saw.
    """

    __tablename__ = "review_assignments"
    __table_args__ = (
        CheckConstraint(_in("kind", ASSIGNMENT_KINDS), name="ck_review_assignments_kind"),
        UniqueConstraint("kind", "output_id", name="uq_review_assignments_output"),
        UniqueConstraint("kind", "known_id", "reviewer", name="uq_review_assignments_control"),
        Index("ix_review_assignments_queue", "suite_id", "kind", "reviewer"),
    )
    id: Mapped[int] = mapped_column(primary_key=True)
    suite_id: Mapped[int] = mapped_column(ForeignKey("suites.id", ondelete="CASCADE"))
    item_id: Mapped[int | None] = mapped_column(ForeignKey("items.id", ondelete="SET NULL"))
    kind: Mapped[str] = mapped_column(String(10))
    output_id: Mapped[int | None] = mapped_column(ForeignKey("outputs.id", ondelete="SET NULL"))
    known_id: Mapped[int | None] = mapped_column(ForeignKey("known_translations.id", ondelete="SET NULL"))
    text: Mapped[str] = mapped_column(NFCText)
    category: Mapped[str | None] = mapped_column(String(200))
    """The item's category when the assignment was made: agreement is reported by it even after the item went."""
    expected: Mapped[str] = mapped_column(String(10))
    first_reviewer: Mapped[str | None] = mapped_column(String(200))
    position: Mapped[int] = mapped_column(Integer)
    """The place in a reviewer's queue, drawn at random, so that controls do not stand out by where they are."""
    reviewer: Mapped[str | None] = mapped_column(String(200))
    given_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    label: Mapped[Label | None] = mapped_column(String(10))
    comment: Mapped[str | None] = mapped_column(Text)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    adjudicated_label: Mapped[Label | None] = mapped_column(String(10))
    adjudicated_by: Mapped[str | None] = mapped_column(String(200))
    adjudicated_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
