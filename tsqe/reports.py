"""What every report of the API shares: the core's table of the result, as a pandas DataFrame."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from suite.tables import Table


@dataclass(frozen=True)
class TableReport:
    """A report whose figures the core lays out as a ``suite.tables.Table`` (what ``--format`` writes)."""

    def table(self) -> Table:
        """The table as ``tsqe`` prints it and writes it with ``--format``/``--out``."""
        raise NotImplementedError

    def to_pandas(self) -> pd.DataFrame:
        """The table as a DataFrame: one row per body and footer row, fractions as numbers, intervals as
        ``NAME ci_low``/``NAME ci_high`` and the bold mark as a column (``suite.tables.frame``: what the csv and
        xlsx files hold)."""
        from suite.tables import frame

        return frame(self.table())

    def to_text(self) -> str:
        """The table as ``tsqe`` prints it on a terminal."""
        from suite.tables import render

        return render(self.table(), "text")
