"""Serialising trained scikit-learn estimators into ``QESystem.model`` and reading them back.

joblib pickles are only guaranteed to load under the library versions that wrote them, so the versions are
recorded in the model's meta and a mismatch on loading is warned about rather than silently trusted.
"""
from __future__ import annotations

import io
import platform
import warnings
from typing import Any

import joblib
import numpy
import sklearn


def library_versions() -> dict[str, str]:
    return {"scikit-learn": sklearn.__version__, "numpy": numpy.__version__, "joblib": joblib.__version__,
            "python": platform.python_version()}


def dump_estimator(estimator: Any) -> bytes:
    buffer = io.BytesIO()
    joblib.dump(estimator, buffer, compress=3)
    return buffer.getvalue()


class VersionMismatchWarning(UserWarning):
    """A stored model was written by other library versions; its predictions may differ or fail."""


def load_estimator(model: bytes, meta: dict[str, Any], name: str) -> Any:
    saved = meta.get("versions", {})
    current = library_versions()
    for library in ("scikit-learn", "numpy"):
        if saved.get(library) != current[library]:
            warnings.warn(f"QE system {name!r} was trained with {library} {saved.get(library, 'unknown')}, this is "
                          f"{current[library]}; its predictions may differ -- train it again to be sure",
                          VersionMismatchWarning, stacklevel=2)
    return joblib.load(io.BytesIO(model))
