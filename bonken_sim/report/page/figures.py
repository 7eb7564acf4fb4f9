"""The report's figures by name, and how one is drawn into its files.

A figure travels to a worker process as a :data:`FigureSpec`, ``(name, args)``: the name of
a figure function (``deals.figures.contracts``, ``deals.figures.doubling``,
``games.figures``, ``ladder.figures``) and the tables it is drawn from, all picklable.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from matplotlib.figure import Figure

from bonken_sim.processes import held_interrupts
from bonken_sim.report.deals.figures import contracts, doubling
from bonken_sim.report.games import figures as games
from bonken_sim.report.ladder import figures as ladder
from bonken_sim.report.page.figure_kit import style
from bonken_sim.report.strong_play import figures as strong_play

PNG_DPI = 110

#: how to draw a figure: the name of a figure function and its arguments (picklable)
FigureSpec = tuple[str, tuple]

FIGURES: dict[str, Callable[..., Figure]] = {
    f.__name__: f
    for f in (
        contracts.expected_score,
        contracts.score_distribution,
        contracts.hand_features,
        contracts.chooser_value,
        contracts.best_contract,
        contracts.choice_value,
        contracts.trump_value,
        contracts.nt_vs_suit,
        doubling.doubling_mean,
        doubling.doubling_win_rate,
        doubling.doubling_by_hcp,
        games.game_results,
        games.game_contracts,
        games.game_doubling,
        games.doubling_effect,
        games.game_values,
        games.chooser_doubles,
        ladder.strong_play_gaps,
        strong_play.strong_costs,
        strong_play.strong_values,
    )
}


def render_figure(spec: FigureSpec, base: str) -> bytes:
    """Draw one figure and write ``base``.png and ``base``.svg; the PNG bytes (in a worker
    process, or in the command's own: a Ctrl-C there waits for the figure, since matplotlib
    turns an interrupt inside its drawing into an error of its own)."""
    func, args = spec
    with held_interrupts(), style():
        fig = FIGURES[func](*args)
        buf = io.BytesIO()
        # zlib level 1: 40% less CPU than the default 6 for files about 5% larger
        fig.savefig(buf, format="png", dpi=PNG_DPI, pil_kwargs={"compress_level": 1})
        # the PNG pass ran the constrained layout; the SVG reuses its positions
        fig.set_layout_engine("none")
        fig.savefig(base + ".svg", format="svg")
    png = buf.getvalue()
    Path(base + ".png").write_bytes(png)
    return png
