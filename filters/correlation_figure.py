"""Kendall tau against the number of top systems, one line per reference entry (Freitag et al. 2020, Fig. 2).

Metrics are often compared on all systems, where the weak ones make ranking easy; Freitag et al. draw
Kendall tau over the k best systems by human score for k down to a handful, which is where the choice of
reference shows. One panel per metric, one line per reference entry, built on ``matplotlib.figure.Figure``
without pyplot (no global state, safe in the GUI's worker threads); the front-ends save it as PNG, SVG or PDF.
"""
from __future__ import annotations

from matplotlib.figure import Figure

from filters.correlation_table import CorrelationTable
from suite.safe_export import figure_text

LINE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
"""Okabe–Ito, readable in grey and by the colour-blind; markers tell lines apart beyond eight entries."""
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
PANEL_INCHES = (6.0, 3.6)


def kendall_by_k_figure(table: CorrelationTable) -> Figure:
    metrics = list(dict.fromkeys(row.metric for row in table.rows))
    figure = Figure(figsize=(PANEL_INCHES[0], PANEL_INCHES[1] * len(metrics) + 0.4), layout="constrained")
    axes_list = figure.subplots(len(metrics), 1, squeeze=False)[:, 0]
    for axes, metric in zip(axes_list, metrics):
        rows = [row for row in table.rows if row.metric == metric]
        for j, row in enumerate(rows):
            ks = [k for k, _ in row.by_k]
            marker = MARKERS[(j // len(LINE_COLOURS)) % len(MARKERS)]
            axes.plot(ks, [tau for _, tau in row.by_k], label=figure_text(row.refs_label),
                      color=LINE_COLOURS[j % len(LINE_COLOURS)], marker=marker, markersize=3.5, linewidth=1.4)
        axes.set_title(figure_text(metric), loc="left", fontsize=10)
        axes.set_ylabel("Kendall τ")
        axes.set_xlabel("top k systems by human score")
        axes.axhline(0.0, color="#999999", linewidth=0.8, linestyle=":")
        axes.grid(True, linewidth=0.4, alpha=0.5)
        if len(rows) > 1 or rows[0].refs is not None:
            axes.legend(title="references", fontsize=8, title_fontsize=8, loc="best")
    figure.suptitle(f"Kendall τ with human scores over the top k systems: {figure_text(table.suite)}", fontsize=11)
    return figure
