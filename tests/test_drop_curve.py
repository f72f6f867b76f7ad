"""Correlation against the share dropped (Zhan et al. 2021, Figures 2 and 4) on matrices worked out by hand."""
from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import pytest

from filters.drop_curve import DropCurve, DropCurves, curve
from suite.errors import TsqeError

# items x systems; deviations of the filtering metric: 0, 0.816, 1.414, 0
FILTER = np.array([[0, 0, 0], [0, 1, 2], [0, 0, 3], [1, 1, 1]], dtype=float)
METRIC = np.array([[1, 1, 1], [1, 2, 3], [2, 2, 5], [5, 5, 5]], dtype=float)
HUMAN = [1.0, 2.0, 3.0]


def test_each_drop_keeps_what_variance_keeps_and_correlates_the_means() -> None:
    drop0, drop75 = curve(FILTER, METRIC, HUMAN, drops=(0.0, 0.75))
    # drop 0: threshold the 0th percentile (0), items 1 and 2 kept: means 1.5, 2, 4
    assert drop0.kept == 2
    assert math.isclose(drop0.pearson, 2.5 / math.sqrt(2 * 3.5)) and drop0.kendall == pytest.approx(1.0)
    # drop 0.75: threshold 0.816 + 0.25 * (1.414 - 0.816) = 0.966, item 2 alone: 2, 2, 5 (a tie: tau-b 2 / sqrt 6)
    assert drop75.kept == 1
    assert math.isclose(drop75.pearson, 3 / math.sqrt(12)) and math.isclose(drop75.kendall, 2 / math.sqrt(6))


def test_a_drop_keeping_nothing_is_an_error() -> None:
    with pytest.raises(TsqeError, match="keeps none"):
        curve(np.zeros((3, 3)), METRIC[:3], HUMAN, drops=(0.5,))


def test_table_and_figure() -> None:
    curves = DropCurves("s", "chrf", 3, [DropCurve("bleu", "chrf", curve(FILTER, METRIC, HUMAN, drops=(0.0, 0.75)))])
    assert [row[2].value for row in curves.to_table().body] == [2, 1]
    assert cast(Any, curves.to_dict()["curves"])[0]["points"][1]["kept"] == 1
    assert len(curves.figure().axes[0].lines) == 1
