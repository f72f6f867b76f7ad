from __future__ import annotations

import numpy as np
import pytest

from qe.features import FEATURE_NAMES, check_feature_names, extract_features
from suite.errors import TsqeError


def features(source: str, output: str) -> dict[str, float]:
    row = extract_features([source], [output])[0]
    return dict(zip(FEATURE_NAMES, row.tolist()))


def test_counts_ratios_and_lengths() -> None:
    f = features("The cat sleeps .", "Die Katze schläft gern.")
    assert f["src_tokens"] == 4 and f["mt_tokens"] == 5
    assert f["token_ratio"] == pytest.approx(5 / 4)
    assert f["src_chars"] == 13 and f["mt_chars"] == 20  # whitespace is not counted
    assert f["char_ratio"] == pytest.approx(20 / 13)
    assert f["src_avg_word_length"] == pytest.approx((3 + 3 + 6) / 3)
    assert f["mt_avg_word_length"] == pytest.approx((3 + 5 + 7 + 4) / 4)
    assert f["src_alpha_ratio"] == pytest.approx(12 / 13)


def test_pretokenised_and_plain_text_give_the_same_features() -> None:
    plain = extract_features(["He said: \"No, (never).\""], ["Er sagte: „Nein, (nie).“"])
    tokenised = extract_features(["He said : \" No , ( never ) . \""], ["Er sagte : „ Nein , ( nie ) . “"])
    np.testing.assert_array_equal(plain, tokenised)


def test_numbers_on_one_side_only() -> None:
    f = features("It cost 1,000 dollars in 1999 and 3.5 more.", "Es kostete 1.000 Dollar im Jahr 1998 und 3,5 mehr.")
    assert f["src_numbers"] == 3
    assert f["numbers_src_only"] == 1  # 1999 is missing; 1,000 == 1.000 and 3.5 == 3,5
    assert f["numbers_mt_only"] == 1  # 1998
    # Separators inside numbers are not punctuation: only the final full stops count.
    assert f["src_punctuation"] == 1 and f["mt_punctuation"] == 1
    assert f["punct_mismatch_comma"] == 0 and f["punct_mismatch_terminal"] == 0


def test_punctuation_mismatch_per_class() -> None:
    f = features('He asked: "Why (really)?"', "Er fragte, warum wirklich.")
    assert f["src_punctuation"] == 6 and f["mt_punctuation"] == 2
    assert f["punct_mismatch_colon"] == 1
    assert f["punct_mismatch_comma"] == 1
    assert f["punct_mismatch_quote"] == 2
    assert f["punct_mismatch_bracket"] == 2
    assert f["punct_mismatch_terminal"] == 0  # "?" and "." share the class of sentence-final marks
    assert f["punct_mismatch_dash"] == 0 and f["punct_mismatch_other"] == 0
    # German quotes „“ are quotes like English ones; an apostrophe inside a word is not punctuation.
    g = features("Don't say \"yes\".", "Sag nicht „ja“.")
    assert g["punct_mismatch_quote"] == 0 and g["src_punctuation"] == 3


def test_copied_untranslated_tokens_and_capitalised_words() -> None:
    f = features("The quick brown fox met Veronica Harrington.", "The quick brown Fuchs traf Veronica Harrington.")
    # Source words of 3+ characters: The quick brown fox met Veronica Harrington -> 5 of 7 found verbatim.
    assert f["src_copied_ratio"] == pytest.approx(5 / 7)
    assert f["mt_copied_ratio"] == pytest.approx(5 / 7)
    assert f["caps_src_only"] == 0
    g = features("She met Veronica in Paris.", "Sie traf Veronika in Berlin.")
    assert g["caps_src_only"] == 2  # Veronica and Paris (the sentence-initial She does not count)
    assert g["caps_mt_only_ratio"] == pytest.approx(1.0)  # Veronika and Berlin are not in the source


def test_repetitions_type_token_ratio_and_balance() -> None:
    f = features("I see the house.", "Ich sehe das das Haus (Haus.")
    assert f["mt_adjacent_repeats"] == 1  # "das das"
    assert f["mt_repeated_words"] == 2  # the second "das" and the second "Haus"
    assert f["mt_type_token_ratio"] == pytest.approx(4 / 6)
    assert f["src_type_token_ratio"] == 1.0
    assert f["mt_unbalanced"] == 1
    assert features("x", 'a "b').get("mt_unbalanced") == 1


def test_empty_output_and_shared_sources() -> None:
    X = extract_features(["One source.", "One source."], ["", "Eine Quelle."])
    assert X.shape == (2, len(FEATURE_NAMES))
    assert np.isfinite(X).all()
    assert X[0, FEATURE_NAMES.index("mt_tokens")] == 0 and X[0, FEATURE_NAMES.index("token_ratio")] == 0


def test_a_model_with_another_feature_list_is_refused() -> None:
    check_feature_names(list(FEATURE_NAMES), "ok")
    with pytest.raises(TsqeError, match="different feature list"):
        check_feature_names(list(FEATURE_NAMES[:-1]), "old")
