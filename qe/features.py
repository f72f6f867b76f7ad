"""QuEst-style black-box features of a (source, output) pair, computed without any language model.

The WMT17 baseline (B17, QuEst++) used 17 features, several of which need a language model or a large
parallel corpus (LM probabilities, n-gram frequency quartiles, IBM-1 translation counts). This module keeps
the surface features that need no resource -- token and character counts and their ratios, average token
length, punctuation -- and adds checks that catch typical MT errors on test-suite sentences: numbers or
capitalised words present on one side only, source words copied untranslated, repeated or stuttering
output words, unbalanced brackets and quotes.

Tokenisation is deliberately simple and language-independent: the regular expression ``\\w+|[^\\w\\s]``
(``regex`` package, Unicode-aware), so every word is a run of word characters and every other non-space
character is a token of its own; before it, separators are dropped from numbers (1,999 -> 1999) and
apostrophes from inside words (don't -> dont), as neither is punctuation. Pre-tokenised text (MLQE-PE)
and plain text (MT outputs) thus give the same tokens; character counts exclude whitespace for the same
reason.

``FEATURE_NAMES`` is stored with every trained model; a model whose list differs from the running code's
cannot be used (see ``check_feature_names``).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import regex

from suite.errors import TsqeError

TOKENIZER = r"\w+|[^\w\s]"
_TOKEN = regex.compile(TOKENIZER)
_WORD = regex.compile(r"^\w+$")
_NUMBER = regex.compile(r"\d+(?:[.,]\d+)*")
_CAPITALISED = regex.compile(r"^\p{Lu}")
_APOSTROPHE = regex.compile(r"(?<=\w)['’](?=\w)")

# Punctuation classes compared between source and output; a language may use another glyph for the same
# function (German „…“ for English "…"), so glyphs of one function share a class.
PUNCTUATION_CLASSES: dict[str, str] = {
    "terminal": ".!?…",
    "comma": ",",
    "colon": ":;",
    "quote": "\"'«»„“”‚‘’‹›",
    "bracket": "()[]{}",
    "dash": "-–—",
}
_CLASS_OF = {char: name for name, chars in PUNCTUATION_CLASSES.items() for char in chars}
_OPENING = "([{"
_CLOSING = ")]}"

FEATURE_NAMES: tuple[str, ...] = (
    "src_tokens",                 # number of tokens in the source
    "mt_tokens",                  # number of tokens in the output
    "token_ratio",                # mt_tokens / src_tokens
    "src_chars",                  # non-whitespace characters in the source
    "mt_chars",                   # non-whitespace characters in the output
    "char_ratio",                 # mt_chars / src_chars
    "src_avg_word_length",        # mean length of the source's word tokens
    "mt_avg_word_length",         # mean length of the output's word tokens
    "src_punctuation",            # punctuation tokens in the source
    "mt_punctuation",             # punctuation tokens in the output
    *(f"punct_mismatch_{name}" for name in PUNCTUATION_CLASSES),  # |source count - output count| per class
    "punct_mismatch_other",       # the same for punctuation outside the classes above
    "src_numbers",                # numbers in the source (separators removed: 1,000 == 1.000)
    "numbers_src_only",           # source numbers missing from the output (multiset difference)
    "numbers_mt_only",            # output numbers absent from the source
    "caps_src_only",              # non-initial capitalised source words missing from the output
    "caps_mt_only_ratio",         # share of non-initial capitalised output words absent from the source
    "src_type_token_ratio",       # distinct / all word tokens (lower-cased) in the source
    "mt_type_token_ratio",        # the same in the output
    "mt_repeated_words",          # output word tokens that repeat an earlier one (lower-cased)
    "mt_adjacent_repeats",        # output words identical to the token just before ("the the")
    "src_copied_ratio",           # share of source words (3+ chars) found verbatim in the output
    "mt_copied_ratio",            # share of output words (3+ chars) found verbatim in the source
    "src_alpha_ratio",            # alphabetic share of the source's non-whitespace characters
    "mt_alpha_ratio",             # the same for the output
    "mt_unbalanced",              # |open - close| brackets + odd straight double quotes in the output
)

SOURCE_ONLY_FEATURES = frozenset({"src_tokens", "src_chars", "src_avg_word_length", "src_punctuation",
                                  "src_numbers", "src_type_token_ratio", "src_alpha_ratio"})


class _Side:
    """The token-level facts about one sentence that the features compare."""

    __slots__ = ("tokens", "words", "punctuation", "chars", "alpha", "numbers", "capitalised", "lower_words")

    def __init__(self, text: str) -> None:
        # Separators inside numbers and apostrophes inside words are not punctuation: "1,999" and "don't"
        # are one token each, and a number compares equal whatever its separators (1,000 == 1.000).
        text = _APOSTROPHE.sub("", _NUMBER.sub(lambda m: m[0].replace(",", "").replace(".", ""), text))
        self.tokens: list[str] = _TOKEN.findall(text)
        self.words = [t for t in self.tokens if _WORD.match(t)]
        self.punctuation = [t for t in self.tokens if not _WORD.match(t)]
        self.chars = sum(not c.isspace() for c in text)
        self.alpha = sum(c.isalpha() for c in text)
        self.numbers = Counter(_NUMBER.findall(text))
        # The first word is capitalised by position, not because it is a name.
        self.capitalised = [w for w in self.words[1:] if _CAPITALISED.match(w) and not w.isdigit()]
        self.lower_words = [w.lower() for w in self.words]


def _ratio(a: float, b: float) -> float:
    return a / b if b else (0.0 if a == 0 else float(a))


def _punctuation_classes(tokens: list[str]) -> Counter[str]:
    return Counter(_CLASS_OF.get(t, "other") for t in tokens)


def _copied(words: list[str], other: set[str]) -> float:
    long_words = [w for w in words if len(w) >= 3 and not w.isdigit()]
    return _ratio(sum(w in other for w in long_words), len(long_words))


def _pair_features(src: _Side, mt: _Side) -> list[float]:
    src_classes = _punctuation_classes(src.punctuation)
    mt_classes = _punctuation_classes(mt.punctuation)
    mt_caps = set(mt.capitalised) | set(mt.words)
    src_word_set = set(src.words)
    mt_word_set = set(mt.words)
    return [
        len(src.tokens),
        len(mt.tokens),
        _ratio(len(mt.tokens), len(src.tokens)),
        src.chars,
        mt.chars,
        _ratio(mt.chars, src.chars),
        _ratio(sum(map(len, src.words)), len(src.words)),
        _ratio(sum(map(len, mt.words)), len(mt.words)),
        len(src.punctuation),
        len(mt.punctuation),
        *(abs(src_classes[name] - mt_classes[name]) for name in PUNCTUATION_CLASSES),
        abs(src_classes["other"] - mt_classes["other"]),
        sum(src.numbers.values()),
        sum((src.numbers - mt.numbers).values()),
        sum((mt.numbers - src.numbers).values()),
        sum(w not in mt_caps for w in src.capitalised),
        _ratio(sum(w not in src_word_set for w in mt.capitalised), len(mt.capitalised)),
        _ratio(len(set(src.lower_words)), len(src.lower_words)),
        _ratio(len(set(mt.lower_words)), len(mt.lower_words)),
        len(mt.lower_words) - len(set(mt.lower_words)),
        sum(a == b and _WORD.match(a) is not None for a, b in zip(mt.tokens, mt.tokens[1:])),
        _copied(src.words, mt_word_set),
        _copied(mt.words, src_word_set),
        _ratio(src.alpha, src.chars),
        _ratio(mt.alpha, mt.chars),
        abs(sum(mt.punctuation.count(c) for c in _OPENING) - sum(mt.punctuation.count(c) for c in _CLOSING))
        + mt.punctuation.count('"') % 2,
    ]


def extract_features(sources: Sequence[str], outputs: Sequence[str]) -> np.ndarray:
    """A float matrix, one row per (source, output) pair and one column per name in ``FEATURE_NAMES``.

    A source shared by several outputs (a suite item) is analysed once.
    """
    if len(sources) != len(outputs):
        raise ValueError(f"{len(sources)} sources but {len(outputs)} outputs")
    sides: dict[str, _Side] = {}
    rows = []
    for source, output in zip(sources, outputs):
        src = sides.get(source)
        if src is None:
            src = sides[source] = _Side(source)
        rows.append(_pair_features(src, _Side(output)))
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURE_NAMES))


def check_feature_names(names: Sequence[str], model_name: str) -> None:
    """Refuse a model whose features differ from the ones this version of tsqe computes."""
    if tuple(names) != FEATURE_NAMES:
        raise TsqeError(f"QE system {model_name!r} was trained on a different feature list than this version of "
                        f"tsqe computes; train it again")
