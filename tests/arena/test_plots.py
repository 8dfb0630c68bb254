"""What the plots show reads right: the score heatmap's colour-bar label fits its bar, the
history's legend lists the agents best first, an agent is drawn in the history only once its
games compare it with the others, and agents with the same accuracy do not hide one another."""

import importlib.util
import sys
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg

from board_arena.arena import TournamentSettings, fit_ratings
from board_arena.arena.statistics.ratings import rating_history
from board_arena.arena.tournament.plots import plot_history, plot_scores
from board_arena.arena.tournament.store import GameResult

AGENTS = ["random", "greedy", "alphabeta", "mcts"]


def results_of(pairs):
    """Games as the store holds them, in schedule order: (agent of seat 0, of seat 1, seat 0's score)."""
    return [
        GameResult(id=i, player0=a, player1=b, spec0=a, spec1=b, seed0=0, seed1=0, game_seed=0, moves=[],
                   result=2 * score - 1, score=0, plies=0, time0=0.0, time1=0.0, moves0=0, moves1=0, end_reason="rules")
        for i, (a, b, score) in enumerate(pairs)
    ]


# Two pairs play first, apart; then they meet. mcts beats everyone, random loses to all.
PAIRS = [("random", "greedy", 0.0), ("alphabeta", "mcts", 0.0)] * 3 + [
    ("greedy", "alphabeta", 0.0), ("mcts", "random", 1.0), ("alphabeta", "random", 1.0), ("mcts", "greedy", 1.0),
] * 3


def draw(games, plot, names=AGENTS):
    settings = TournamentSettings.create("kalah", names)
    ratings = fit_ratings([(g.player0, g.player1, g.score_for(0)) for g in games], names)
    return plot(settings, games, ratings), ratings


def test_the_colour_bar_label_of_the_scores_fits_its_bar():
    games = results_of(PAIRS)
    for agents in (2, 4):  # the smallest heatmap has the shortest bar
        kept = [g for g in games if AGENTS.index(g.player0) < agents and AGENTS.index(g.player1) < agents]
        figure, _ = draw(kept, plot_scores, AGENTS[:agents])
        FigureCanvasAgg(figure).draw()
        bar = figure.axes[-1]  # the colour bar's axes
        label = bar.yaxis.label.get_window_extent()
        assert label.height <= bar.get_window_extent().height, "the label runs past the bar"
        assert figure.bbox.contains(label.x0, label.y1) and figure.bbox.contains(label.x1, label.y0)


def test_the_history_legend_lists_the_agents_best_first():
    figure, ratings = draw(results_of(PAIRS), plot_history)
    legend = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert legend == [ratings.names[i] for i in ratings.order()] == ["mcts", "alphabeta", "greedy", "random"]


def test_an_agent_is_drawn_in_the_history_only_once_its_games_compare_it_with_the_others():
    games = results_of(PAIRS)
    first_link = next(i + 1 for i, g in enumerate(games) if {g.player0, g.player1} == {"greedy", "alphabeta"})
    rows = rating_history([(g.player0, g.player1, g.score_for(0)) for g in games], AGENTS, points=len(games))
    starts = {name: min(r["games"] for r in rows if r["agent"] == name) for name in AGENTS}
    assert starts == {"random": 2, "greedy": 2, "alphabeta": first_link, "mcts": first_link}
    figure, _ = draw(games, plot_history)
    for line in figure.axes[0].get_lines():
        assert line.get_xdata()[0] == starts[line.get_label()]


def test_agents_with_the_same_accuracy_are_drawn_apart(tmp_path):
    script = Path(__file__).resolve().parents[2] / "experiments" / "accuracy.py"
    spec = importlib.util.spec_from_file_location("accuracy_for_plots", script)
    accuracy = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = accuracy
    spec.loader.exec_module(accuracy)
    perfect = ("alphabeta", "mcts", "solver")
    rows = [accuracy.Row("kalah", agent, budget, 20, 20, [0] * 20) for agent in perfect for budget in (0.01, 0.1)]
    figure = accuracy.plot(rows, tmp_path / "accuracy.png")
    lines = {c.get_label(): c.lines[0] for c in figure.axes[0].containers}
    assert set(lines) == set(perfect)
    for k in range(2):  # at each budget: all at 100%, each at its own place and with its own marker
        assert {float(line.get_ydata()[k]) for line in lines.values()} == {100.0}
        assert len({float(line.get_xdata()[k]) for line in lines.values()}) == 3
    assert len({line.get_marker() for line in lines.values()}) == 3
