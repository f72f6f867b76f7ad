"""bench/papers.py's tables by key: each paper's figures and embedding-only tables name tables it makes, and the
keys asked for are made in the order asked, so that ``--only`` and ``--no-embeddings`` skip what they say."""
from __future__ import annotations

import pytest

from bench.paper_tables import zhan2021vat
from bench.papers import PAPERS, chosen


@pytest.mark.parametrize("paper", list(PAPERS))
def test_figures_and_embedding_tables_are_tables_of_their_paper(paper: str) -> None:
    module = PAPERS[paper]
    assert set(getattr(module, "FIGURES", {})) <= set(module.TABLES)
    assert set(getattr(module, "EMBEDDING_TABLES", ())) <= set(module.TABLES)


def test_vat_figures_2_to_4_are_chosen_in_the_order_asked() -> None:
    picked = chosen("zhan2021vat:figure4,zhan2021vat:figure2,xiang2022:table5")
    assert picked == [("zhan2021vat", "figure4"), ("zhan2021vat", "figure2"), ("xiang2022", "table5")]
    assert [table for _, table in chosen("zhan2021vat")][:5] == ["table3", "table4", "figure2", "figure3", "figure4"]
    assert "figure4" not in zhan2021vat.EMBEDDING_TABLES  # BLEU and chrF filter without a model
