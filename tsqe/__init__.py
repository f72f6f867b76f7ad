"""tsqe as a library: the public face of the same core the ``tsqe`` command and the window use.

::

    import tsqe
    db = tsqe.open("demo.sqlite")               # a path or a SQLAlchemy URL, as --db
    suite = db.suite()                          # the only suite, or db.suite("de-en")
    table = suite.accuracy(by="category", ties="half", bootstrap=0)
    table.to_pandas()                           # one row per category, as `tsqe accuracy` prints it

Names follow the command line's (``tsqe accuracy --by category --ties half`` is ``suite.accuracy(by="category",
ties="half")``); every report is a frozen dataclass holding the core's own result (``.result``) with
``.to_pandas()``. Long operations take ``progress``: a callback of ``Progress`` reports, or a ``TaskState`` whose
``cancel()`` (from any thread, or from the callback) stops the work between two steps with ``Cancelled``, as
Ctrl+C and the window's Cancel do.

Importing this package loads neither SQLAlchemy's engine nor NumPy, pandas, torch or Qt: each method imports
what it needs when it runs (``tests/test_public_api.py`` checks it in a fresh interpreter).
"""
from __future__ import annotations

from filters.metrics import MetricOptions
from suite.domain import Combine, Ties
from suite.tasks import Cancelled, CancelledPartway, Progress, TaskState
from suite.version import VERSION as __version__
from tsqe.database import Database, open
from tsqe.suite import Suite

__all__ = ["Cancelled", "CancelledPartway", "Combine", "Database", "MetricOptions", "Progress", "Suite", "TaskState",
           "Ties", "__version__", "open"]
