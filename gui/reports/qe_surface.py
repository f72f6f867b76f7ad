"""What the QE accuracy tab's parts (the QE systems pane, the stability page) use of the tab, declared once for mypy.

At run time ``QESurface`` is ``object`` and the parts are plain mixins of ``gui.reports.qe.QETab``, which builds
every attribute named here; for mypy it is a ``ReportTab`` with them, so each part is checked.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gui.elided_label import ElidedLabel
    from gui.reports.tab import ReportTab
    from qe.evaluation import AccuracyOptions, EvaluationInputs
    from qe.stability import StabilityResult

    class QESurface(ReportTab):
        status: ElidedLabel
        stability: StabilityResult | None
        _inputs: EvaluationInputs | None

        def options(self) -> AccuracyOptions: ...
else:
    QESurface = object
