"""The Discriminative tab's detail pane: one ranked item, its deviation over systems, each system's output and
score, and (once computed) its reference tokens shaded by difficulty."""
from __future__ import annotations

import html
from dataclasses import dataclass

from suite.reading.browse import OutputRow

DIFFICULTY_TINT = (0x00, 0x72, 0xB2)  # Okabe–Ito blue: difficulty is no label, so none of the label colours


@dataclass(frozen=True)
class ItemView:
    """What the detail pane shows of one ranked item."""

    item: str
    std: float
    mean: float
    scores: dict[str, float]  # system -> score, the best first
    outputs: dict[str, OutputRow]  # system -> its output
    tokens: list[tuple[str, float]] | None  # reference tokens with difficulty, once computed


def difficulty_html(tokens: list[tuple[str, float]]) -> str:
    """Reference tokens on a white-to-blue ramp (darker is harder), word pieces joined back into words."""
    parts: list[str] = []
    for token, difficulty in tokens:
        strength = min(max(difficulty, 0.0), 1.0)
        red, green, blue = (round(255 + (c - 255) * strength) for c in DIFFICULTY_TINT)
        text_colour = "#ffffff" if strength > 0.55 else "#1a1a1a"
        piece = token.removeprefix("##")
        space = "" if token.startswith("##") or not parts else " "
        parts.append(f'{space}<span style="background-color:#{red:02x}{green:02x}{blue:02x};color:{text_colour}">'
                     f"{html.escape(piece)}</span>")
    return "".join(parts)


def item_html(view: ItemView) -> str:
    some = next(iter(view.outputs.values()), None)
    lines = [f"<h3>{html.escape(view.item)}</h3>",
             f"<p>standard deviation over systems <b>{view.std:.4f}</b> · mean {view.mean:.4f}</p>"]
    if some is not None:
        lines.append(f"<p><b>Source</b><br>{html.escape(some.source)}</p>")
    if view.tokens is None:
        lines.append("<p style='color:#666'>Reference tokens by difficulty: press “Token difficulty” "
                     "(difficulty-aware BERTScore over all systems).</p>")
    else:
        hardest = sorted(view.tokens, key=lambda t: -t[1])[:3]
        lines.append("<p><b>Reference</b>, tokens shaded by difficulty (darker: fewer systems matched it)<br>"
                     f"<span style='font-size:15px'>{difficulty_html(view.tokens)}</span><br>"
                     "<small style='color:#666'>hardest: "
                     + ", ".join(f"{html.escape(t)} {d:.2f}" for t, d in hardest) + "</small></p>")
    rows = "".join(
        f"<tr><td>{html.escape(system)}</td><td align='right'>{score:.4f}</td>"
        f"<td>{html.escape(view.outputs[system].text) if system in view.outputs else ''}</td></tr>"
        for system, score in view.scores.items())
    lines.append('<table cellspacing="0" cellpadding="4" border="1" style="border-collapse:collapse;'
                 'border-color:#ccc"><tr style="background:#f0f0f0"><th>system</th><th>score</th><th>output</th>'
                 f"</tr>{rows}</table>")
    return "".join(lines)
