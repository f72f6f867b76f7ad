"""Label colours (Okabe–Ito), chosen so colour-blind reviewers can tell the labels apart.

Colour is never the only signal: every place that paints a label also writes its word.
"""
from __future__ import annotations

LABEL_COLOURS: dict[str, str] = {
    "pass": "#009E73",
    "fail": "#D55E00",
    "conflict": "#E69F00",
    "unknown": "#999999",
    "error": "#CC79A7",
}
POSITIVE = LABEL_COLOURS["pass"]
NEGATIVE = LABEL_COLOURS["fail"]
