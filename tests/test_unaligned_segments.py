"""newstest2021 de-en's WMT segment scores cannot be aligned with its segments (docs/meta-evaluation.md): the
import records it, and segment-level statistics and soft pairwise accuracy are refused on them with the reason,
before any metric is computed."""
from __future__ import annotations

from pathlib import Path

import pytest

from filters.wmt_statistics import WmtOptions, wmt_meta_evaluate
from store import Database
from store.domain import HumanScoreKind
from suite.agreement import Setting
from suite.domain import Grouping, Level, Statistic
from suite.errors import TsqeError
from suite.importers.human_scores import import_human_scores
from suite.importers.wmt import import_wmt
from suite.reading.human_kinds import segments_aligned
from suite.suites import find_suite

SUITE = "newstest2021-de-en"


@pytest.fixture
def newstest2021(db: Database, shared_data: Path) -> Database:
    folder = shared_data / "wmt21-news-systems" / "newstest2021-de-en"
    import_wmt(db, src=folder / "txt" / "sources" / "newstest2021.de-en.src.de",
               refs=sorted((folder / "txt" / "references").iterdir()), systems=[folder / "txt" / "system-outputs"],
               name=SUITE)
    human = folder / "humaneval"
    import_human_scores(db, human / "ad-sys-scores-de-en.csv", segments=human / "ad-seg-scores-de-en.csv",
                        renames={"Nemo.7": "NVIDIA-NeMo"}, suite_name=SUITE)
    return db


@pytest.mark.shared
@pytest.mark.parametrize(("level", "statistic", "grouping"), [
    (Level.SEGMENT, Statistic.PEARSON, Grouping.NONE), (Level.SEGMENT, Statistic.ACC_EQ, Grouping.ITEM),
    (Level.SEGMENT, Statistic.KENDALL, Grouping.SYSTEM), (Level.SYSTEM, Statistic.SPA, Grouping.NONE)])
def test_segment_statistics_are_refused_on_unaligned_segment_scores(newstest2021: Database, level: Level,
                                                                    statistic: Statistic, grouping: Grouping) -> None:
    with newstest2021.session() as session:
        assert not segments_aligned(session, find_suite(session, SUITE).id, HumanScoreKind.Z)
    options = WmtOptions(suites=(SUITE,), metrics=("chrf",), level=level, settings=(Setting(statistic, grouping),))
    with pytest.raises(TsqeError, match="cannot be aligned: only system-level statistics") as refused:
        wmt_meta_evaluate(newstest2021, options)
    assert "\n" not in str(refused.value) and "--" not in str(refused.value)
