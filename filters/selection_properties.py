"""What a variance-aware selection keeps: Zhan et al. 2021 (VAT) §4.4, Figures 5-8 and Table 4.

Given the kept items of a suite (tsqe's own ``filter`` selection or the released VAT ids, both as the
``{"sl-tl": [0-based positions]}`` file ``export_selection`` writes), per group of items or words the share in
the original suite and in the kept subset and the change between them in percentage points (the paper's
"absolute constitution changes"):

- **sentence length** (Figure 5): the items in thirds by the source's word count (Short, Medium, Long). Thirds by
  rank, ties broken by position, so each group holds a third of the original exactly; the paper does not say how
  it cut ties.
- **word frequency** (Figure 6): every word of the items' references is Rare, Middle or Frequent by where its
  frequency falls among the frequencies of the word types (at most the 20th percentile, the 60th, above). The
  frequencies come from the suite's own references unless a corpus is given (the paper counted in the systems'
  training data, which a test suite does not have). Shares are of word tokens.
- **edit distance** (Table 4): the mean word-level Levenshtein distance between two reference sets of an item
  (Freitag et al.'s WMT reference and its paraphrase), over all, the removed and the kept items, on sacrebleu's
  13a tokens (punctuation split off): on WMT19 en-de with the released selection that gives 19.76 / 20.23 /
  19.06 against the paper's 19.82 / 20.25 / 19.17, where whitespace tokens give 18.55 / 19.08 / 17.76.

The distribution of the filtering metric (Figure 8): each item's mean score over the suite's systems, for the kept
and the removed items (``filters.distributions`` bins and draws them); the paper shows it for WMT20 en-de.

Part of speech (Figure 7, on request: the tagger takes seconds to load): the share of each Penn Treebank tag among
the tokens of the English side, the references of a to-English pair and the sources of a from-English one (the
paper's "English part-of-speech"), in the original and the kept items. The paper tagged with NLTK, whose tagger
loads its model from NLTK's data download at run time; tsqe tags with textblob's ``PatternTagger`` (pattern's
lexicon and rules, inside the wheel: nothing downloaded), on pattern's own tokens, punctuation included as NLTK
tags it. Pattern splits contractions unlike NLTK ("doesn't": does / n / ' / t, where NLTK has does / n't), so
those few tokens' tags differ; typographic quotes are made ASCII first, which pattern's tokenizer expects. A
suite without an English side is not tagged, and the result says so. Words (length, frequency) are lower-cased
runs of letters and digits (``\\w+``).
"""
from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from sqlalchemy import select

from store import Database
from store.models import Item
from suite.errors import TsqeError
from suite.references import RefChoice, read_references
from suite.suites import find_suite
from suite.tables import Cell, Column, Table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LENGTH_GROUPS = ("Short", "Medium", "Long")
FREQUENCY_GROUPS = ("Rare", "Middle", "Frequent")
FREQUENCY_PERCENTILES = (20.0, 60.0)
"""Upper bounds of Rare and Middle among the word types' frequencies (Frequent: up to the 100th)."""
NOT_ASKED = "Part of speech (the paper's Figure 7): not asked for (tagging the English side takes seconds to load)."
ASCII_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return WORD.findall(text.lower())


@dataclass(frozen=True)
class GroupShare:
    group: str
    original: int
    kept: int
    original_total: int
    kept_total: int

    @property
    def original_share(self) -> float:
        return self.original / self.original_total if self.original_total else 0.0

    @property
    def kept_share(self) -> float:
        return self.kept / self.kept_total if self.kept_total else 0.0

    @property
    def removed_share(self) -> float:
        removed_total = self.original_total - self.kept_total
        return (self.original - self.kept) / removed_total if removed_total else 0.0

    @property
    def change(self) -> float:
        """Kept share minus original share, in percentage points."""
        return 100 * (self.kept_share - self.original_share)


@dataclass(frozen=True)
class EditDistances:
    first: str
    second: str
    all: float
    removed: float
    kept: float
    items: int


@dataclass(frozen=True)
class PartOfSpeech:
    """Figure 7: each tag's tokens on the English side (``side``), or why none were tagged (``tags`` empty)."""

    side: str | None
    """``references`` or ``sources``; None: the suite has no English side."""
    tags: list[GroupShare]
    note: str


@dataclass(frozen=True)
class SelectionProperties:
    suite: str
    items: int
    kept: int
    length: list[GroupShare]
    frequency: list[GroupShare]
    frequency_from: str
    edit_distances: EditDistances | None
    part_of_speech: PartOfSpeech | None = None
    """None: not asked for."""

    @property
    def part_of_speech_note(self) -> str:
        return NOT_ASKED if self.part_of_speech is None else self.part_of_speech.note

    def to_table(self) -> Table:
        columns = [Column("property", "text"), Column("group", "text"), Column("original", "count"),
                   Column("kept", "count"), Column("original share", "fraction", shaded=False),
                   Column("kept share", "fraction", shaded=False), Column("change (points)", "number", 1)]
        body = [[Cell(what), Cell(g.group), Cell(g.original), Cell(g.kept), Cell(g.original_share),
                 Cell(g.kept_share), Cell(g.change)]
                for what, groups in (("sentence length", self.length), ("word frequency", self.frequency),
                                     ("part of speech", self.part_of_speech.tags if self.part_of_speech else []))
                for g in groups]
        notes = [f"Suite {self.suite}: {self.kept} of {self.items} items kept.",
                 "Sentence length: thirds of the original items by source words (counts: items). Word frequency: "
                 f"the references' words by their frequency in {self.frequency_from} (Rare up to the 20th "
                 "percentile of the word types' frequencies, Middle up to the 60th; counts: word tokens).",
                 self.part_of_speech_note]
        if self.edit_distances is not None:
            e = self.edit_distances
            notes.append(f"Mean word edit distance between {e.first} and {e.second} ({e.items} items with both): "
                         f"all {e.all:.2f}, removed {e.removed:.2f}, kept {e.kept:.2f}.")
        title = "sentence length, word frequency" + (" and part of speech" if self.part_of_speech else "")
        return Table(title=f"What the selection keeps: {title}", columns=columns,
                     body=body, notes=notes)

    def to_dict(self) -> dict[str, object]:
        def groups(shares: list[GroupShare]) -> list[dict[str, object]]:
            return [{"group": g.group, "original": g.original, "kept": g.kept, "original_share": g.original_share,
                     "kept_share": g.kept_share, "removed_share": g.removed_share, "change": g.change}
                    for g in shares]

        e, pos = self.edit_distances, self.part_of_speech
        return {"suite": self.suite, "items": self.items, "kept": self.kept, "length": groups(self.length),
                "frequency": groups(self.frequency), "frequency_from": self.frequency_from,
                "edit_distances": None if e is None else {"first": e.first, "second": e.second, "all": e.all,
                                                          "removed": e.removed, "kept": e.kept, "items": e.items},
                "part_of_speech": None if pos is None or pos.side is None else {"side": pos.side,
                                                                                  "tags": groups(pos.tags)},
                "part_of_speech_note": self.part_of_speech_note}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)


def length_groups(lengths: Sequence[int], kept: Sequence[bool]) -> list[GroupShare]:
    """Thirds of the items by length (rank; ties by position), each third's share before and after."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    group = [0] * len(lengths)
    for rank, index in enumerate(order):
        group[index] = min(3 * rank // max(len(lengths), 1), 2)
    return _shares(LENGTH_GROUPS, group, kept)


def frequency_groups(items_words: Sequence[Sequence[str]], kept: Sequence[bool],
                     counts: Counter[str]) -> list[GroupShare]:
    """The words of each item by frequency group; a word the counts lack counts once (the rarest)."""
    frequencies = np.asarray(sorted(counts.values()) or [1], dtype=float)
    rare, middle = np.percentile(frequencies, FREQUENCY_PERCENTILES)
    group, keeps = [], []
    for item_words, keep in zip(items_words, kept):
        for word in item_words:
            frequency = counts.get(word, 1)
            group.append(0 if frequency <= rare else 1 if frequency <= middle else 2)
            keeps.append(keep)
    return _shares(FREQUENCY_GROUPS, group, keeps)


def _shares(names: Sequence[str], group: Sequence[int], kept: Sequence[bool]) -> list[GroupShare]:
    kept_total = sum(kept)
    return [GroupShare(name, sum(1 for g in group if g == index),
                       sum(1 for g, k in zip(group, kept) if g == index and k), len(group), kept_total)
            for index, name in enumerate(names)]


def is_english(language: str) -> bool:
    """``en`` and its regional codes (``en-GB``, ``en_US``)."""
    return re.split(r"[-_]", language.strip().lower())[0] in ("en", "eng")


def english_side(source_language: str, target_language: str) -> str | None:
    """The side Figure 7 tags: the references of a to-English pair, else the sources of a from-English one."""
    return "references" if is_english(target_language) else "sources" if is_english(source_language) else None


@cache
def _pattern_tagger() -> Callable[[str], list[tuple[str, str]]]:
    """Loaded on first use: textblob imports NLTK, seconds that no other command pays."""
    from textblob.en.taggers import PatternTagger  # type: ignore[import-untyped]  # textblob is untyped

    tag: Callable[[str], list[tuple[str, str]]] = PatternTagger().tag
    return tag


def part_of_speech_tags(text: str) -> list[str]:
    """The Penn Treebank tag of each of the text's tokens, punctuation included."""
    return [tag for _, tag in _pattern_tagger()(text.translate(ASCII_QUOTES))]


def part_of_speech_shares(items_tags: Sequence[Sequence[str]], kept: Sequence[bool]) -> list[GroupShare]:
    """Each tag's tokens in the original and the kept items, the most frequent tag first (ties by name)."""
    counts = Counter(tag for tags in items_tags for tag in tags)
    names = sorted(counts, key=lambda tag: (-counts[tag], tag))
    index = {tag: i for i, tag in enumerate(names)}
    group, keeps = [], []
    for tags, keep in zip(items_tags, kept):
        group += [index[tag] for tag in tags]
        keeps += [keep] * len(tags)
    return _shares(names, group, keeps)


def part_of_speech(source_language: str, target_language: str, sources: Sequence[str],
                   references: Sequence[Sequence[str]], kept: Sequence[bool]) -> PartOfSpeech:
    """Figure 7 over the items in suite order (``references[i]``: item i's texts, all of them tagged)."""
    side = english_side(source_language, target_language)
    if side is None:
        return PartOfSpeech(None, [], f"Part of speech (the paper's Figure 7) is not computed: the items are "
                                      f"{source_language}-{target_language}, with no English side, and tsqe's "
                                      "part-of-speech tagger (textblob's PatternTagger) tags English only.")
    texts = [[source] for source in sources] if side == "sources" else references
    tags = [[tag for text in item for tag in part_of_speech_tags(text)] for item in texts]
    return PartOfSpeech(side, part_of_speech_shares(tags, kept),
                        f"Part of speech: the tokens of the {side} (English) by their Penn Treebank tag from "
                        "textblob's PatternTagger (punctuation included; counts: tokens).")


MIN_DRAWN_SHARE = 0.01
"""The part-of-speech figure draws the tags with at least this share of the original tokens in some panel."""


def part_of_speech_figure(drawn: Mapping[str, Sequence[GroupShare]], *, title: str) -> Figure:
    """Figure 7's bars: each tag's change of share in points, a bar per label (direction) side by side, the
    tags of at least 1 % of the original tokens, in the first label's order."""
    from matplotlib.figure import Figure

    from filters.correlation_figure import LINE_COLOURS
    from suite.safe_export import figure_text

    tags = list(dict.fromkeys(g.group for shares in drawn.values() for g in shares
                              if g.original_share >= MIN_DRAWN_SHARE))
    figure = Figure(figsize=(min(12.0, max(6.0, 0.45 * len(tags))), 3.6), layout="constrained")
    axes = figure.add_subplot()
    width = 0.8 / max(len(drawn), 1)
    for index, (label, shares) in enumerate(drawn.items()):
        change = {g.group: g.change for g in shares}
        axes.bar([t + (index - (len(drawn) - 1) / 2) * width for t in range(len(tags))],
                 [change.get(tag, 0.0) for tag in tags], width, color=LINE_COLOURS[index % len(LINE_COLOURS)],
                 label=figure_text(label))
    axes.axhline(0.0, color="black", linewidth=0.8)
    axes.set_xlim(-0.6, len(tags) - 0.4)
    axes.set_xticks(range(len(tags)), [figure_text(tag) for tag in tags], fontsize=8, rotation=45)
    axes.set_ylabel("change of share (points)")
    axes.set_title(figure_text(title), fontsize=9, loc="left")
    axes.grid(alpha=0.3, axis="y")
    axes.legend(fontsize=8)
    return figure


def edit_distance(first: Sequence[str], second: Sequence[str]) -> int:
    """Levenshtein distance between two word sequences (insertions, deletions, substitutions of one word)."""
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, 1):
        current = [i]
        for j, b in enumerate(second, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


def edit_tokens(text: str) -> list[str]:
    return str(_tokenizer_13a()(text)).split()


@cache
def _tokenizer_13a() -> Callable[[str], str]:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tokenizer: Callable[[str], str] = Tokenizer13a()  # type: ignore[no-untyped-call]  # sacrebleu is untyped
    return tokenizer


def mean_edit_distances(pairs: Sequence[tuple[str, str] | None], kept: Sequence[bool], names: tuple[str, str]
                        ) -> EditDistances | None:
    """Mean word edit distance over the items that have both texts: all, removed, kept (NaN: none)."""
    distances = [(edit_distance(edit_tokens(pair[0]), edit_tokens(pair[1])), keep)
                 for pair, keep in zip(pairs, kept) if pair is not None]
    if not distances:
        return None

    def mean(values: Iterable[int]) -> float:
        found = list(values)
        return float(np.mean(found)) if found else float("nan")

    return EditDistances(names[0], names[1], mean(d for d, _ in distances), mean(d for d, k in distances if not k),
                         mean(d for d, k in distances if k), len(distances))


def kept_and_removed(scores: Iterable[tuple[int, float]], kept_positions: Iterable[int]) -> dict[str, list[float]]:
    """Each item's mean score over systems, from (suite-order index, score) pairs, for the kept and the removed
    items in suite order; an item without a score is in neither (NaN scores are skipped)."""
    sums: dict[int, list[float]] = {}
    for index, score in scores:
        if not np.isnan(score):
            sums.setdefault(index, []).append(score)
    wanted = set(kept_positions)
    means = {index: float(np.mean(values)) for index, values in sorted(sums.items())}
    return {"kept": [m for index, m in means.items() if index in wanted],
            "removed": [m for index, m in means.items() if index not in wanted]}


def metric_by_selection(db: Database, kept_positions: Sequence[int], metric: str, *, suite_name: str | None = None,
                        refs: RefChoice | None = None) -> dict[str, list[float]]:
    """Figure 8's values: each item's mean ``metric`` over the suite's systems, kept against removed."""
    from filters.scoring import score_outputs

    scores = score_outputs(db, metric, suite_name=suite_name, refs=refs)
    with db.session() as session:
        suite = find_suite(session, suite_name)
        order = {external_id: index for index, external_id in enumerate(session.scalars(
            select(Item.external_id).where(Item.suite_id == suite.id).order_by(Item.position, Item.id)))}
    return kept_and_removed(((order[row.item_id], row.score) for row in scores.rows), kept_positions)


def read_kept_positions(path: Path, pair: str | None = None) -> list[int]:
    """The 0-based positions of a ``{"sl-tl": [positions], ...}`` selection file: of ``pair``, or of its one
    language pair (the released VAT files hold all pairs of a year)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise TsqeError(f"{path}: not a readable selection file ({error})") from error
    if not isinstance(document, dict) or not document:
        raise TsqeError(f"{path}: a selection file maps language pairs to kept positions, "
                        f"e.g. {{\"de-en\": [0, 3]}}")
    if pair is None and len(document) > 1:
        raise TsqeError(f"{path}: holds the language pairs {', '.join(sorted(document))}: name one")
    if pair is not None and pair not in document:
        raise TsqeError(f"{path}: has no language pair {pair} (it has {', '.join(sorted(document))})")
    positions = document[pair] if pair is not None else next(iter(document.values()))
    if not isinstance(positions, list) or not all(isinstance(p, int) and p >= 0 for p in positions):
        raise TsqeError(f"{path}: the kept positions must be a list of non-negative whole numbers")
    return positions


def positions_of_items(db: Database, kept_items: Iterable[str], suite_name: str | None = None) -> list[int]:
    """The 0-based suite positions of the items with these external ids (a ranking's kept items, as the
    desktop's Discriminative tab holds them), the positions ``export_selection`` writes for them."""
    wanted = set(kept_items)
    with db.session() as session:
        suite = find_suite(session, suite_name)
        ids = session.scalars(select(Item.external_id).where(Item.suite_id == suite.id)
                              .order_by(Item.position, Item.id)).all()
    return [position for position, external_id in enumerate(ids) if external_id in wanted]


def selection_properties(db: Database, kept_positions: Sequence[int], *, suite_name: str | None = None,
                         refs: RefChoice | None = None, paraphrase: str | None = None,
                         corpus: Sequence[str] | None = None, parts_of_speech: bool = False) -> SelectionProperties:
    """Length, word-frequency groups, (with ``paraphrase``, a reference set) edit distances between the
    references and that set and (with ``parts_of_speech``) the English side's parts of speech, for the items at
    ``kept_positions`` (0-based, suite order) against the rest."""
    choice = refs or RefChoice.default()
    with db.session() as session:
        suite = find_suite(session, suite_name)
        items = session.execute(select(Item.id, Item.source).where(Item.suite_id == suite.id)
                                .order_by(Item.position, Item.id)).all()
        references = read_references(session, suite.id, choice)
        paraphrased = read_references(session, suite.id, RefChoice.parse(paraphrase)) if paraphrase else {}
        name, languages = suite.name, (suite.source_lang, suite.target_lang)
    wanted = set(kept_positions)
    outside = sorted(p for p in wanted if p >= len(items))
    if outside:
        raise TsqeError(f"suite {name} has {len(items)} items: kept positions {outside[:5]} are beyond it")
    kept = [position in wanted for position in range(len(items))]
    reference_words = [words(" ".join(references.get(item_id, []))) for item_id, _ in items]
    counts = Counter(word for line in (corpus or []) for word in words(line)) if corpus else \
        Counter(word for item_words in reference_words for word in item_words)
    distances = None
    if paraphrase:
        pairs = [(references[i][0], paraphrased[i][0]) if references.get(i) and paraphrased.get(i) else None
                 for i, _ in items]
        distances = mean_edit_distances(pairs, kept, (choice.label, paraphrase))
    return SelectionProperties(name, len(items), sum(kept), length_groups([len(words(s)) for _, s in items], kept),
                               frequency_groups(reference_words, kept, counts),
                               "the given corpus" if corpus else "the suite's references", distances,
                               part_of_speech(*languages, [source for _, source in items],
                                              [references.get(item_id, []) for item_id, _ in items], kept)
                               if parts_of_speech else None)
