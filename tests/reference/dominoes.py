"""Plain-Python Dominoes, written from docs/games/dominoes.md without the engine's bit tricks: a rules reference
and a brute-force enumeration of the deals consistent with a player's view.

Tiles are (high, low) pairs; ``tile_id`` maps them to the engine's ids only to compare moves.
"""

from __future__ import annotations

import itertools

from board_arena.engines.dominoes.kernels import MOVE_DRAW, MOVE_PASS, tile_order


def greater(a, b) -> bool:
    """Text 001: A > B if A is a double and B is not; else more pips; else a higher high end."""
    a_double, b_double = a[0] == a[1], b[0] == b[1]
    if a_double != b_double:
        return a_double
    if sum(a) != sum(b):
        return sum(a) > sum(b)
    return max(a) > max(b)


class DominoesReference:
    """One game from a given deal: ``hands`` two lists of (high, low) tiles, ``boneyard`` in order."""

    def __init__(self, max_pips, hands, boneyard, drawing=True, block_rule="boneyard-empty"):
        self.ids = {t: i for i, t in enumerate(tile_order(max_pips))}
        self.hands = [list(hands[0]), list(hands[1])]
        self.boneyard = list(boneyard)
        self.drawing = drawing
        self.block_rule = block_rule
        everything = self.hands[0] + self.hands[1]
        best = everything[0]
        for t in everything[1:]:
            if greater(t, best):
                best = t
        self.to_move = 0 if best in self.hands[0] else 1
        self.line: list[tuple[int, int]] = []  # (left pips, right pips) from left to right
        self.passes = 0
        self.over = False

    def ends(self):
        return (self.line[0][0], self.line[-1][1]) if self.line else None

    def legal_moves(self) -> list[int]:
        """Engine move ids, sorted (the engine's order differs; sets are compared)."""
        if self.over:
            return []
        hand = self.hands[self.to_move]
        if not self.line:
            return sorted(2 * self.ids[t] for t in hand)
        left, right = self.ends()
        moves = set()
        for t in hand:
            if left in t:
                moves.add(2 * self.ids[t])
            if right in t:
                # Equal ends: placing at either end is the same position, one move (left).
                moves.add(2 * self.ids[t] + (1 if right != left else 0))
        if moves:
            return sorted(moves)
        return [MOVE_DRAW if self.drawing and self.boneyard else MOVE_PASS]

    def apply(self, move: int) -> None:
        me = self.to_move
        self.to_move = 1 - me
        if move == MOVE_PASS:
            self.passes += 1
            self.over = self.passes == 2
            return
        self.passes = 0
        if move == MOVE_DRAW:
            self.hands[me].append(self.boneyard.pop(0))
            self.end_if_no_tile_fits()
            return
        tile = next(t for t in self.hands[me] if self.ids[t] == move >> 1)
        self.hands[me].remove(tile)
        if not self.line:
            self.line.append(tile)
        elif move & 1 == 0:
            shown = self.line[0][0]
            self.line.insert(0, (tile[0] + tile[1] - shown, shown))
        else:
            shown = self.line[-1][1]
            self.line.append((shown, tile[0] + tile[1] - shown))
        self.over = not self.hands[me]
        self.end_if_no_tile_fits()

    def end_if_no_tile_fits(self):
        """Text 001 read literally: the game is over when "none of them may play a tile"."""
        if self.block_rule == "no-tile-fits" and self.line and not self.over:
            left, right = self.ends()
            self.over = not any(left in t or right in t for hand in self.hands for t in hand)

    def result(self) -> float:
        """Player 0's outcome: fewer tiles wins."""
        a, b = len(self.hands[0]), len(self.hands[1])
        return 1.0 if a < b else -1.0 if a > b else 0.0

    def pip_margin(self) -> int:
        return sum(map(sum, self.hands[1])) - sum(map(sum, self.hands[0]))


def consistent_deals(
    max_pips, hand_size, drawing, viewer, leader, dealt_mine, known_boneyard, history, final_hand=None,
    block_rule="boneyard-empty",
):
    """Every deal (opponent's dealt hand as a frozenset, boneyard as a tuple) under which
    ``leader`` leads and the public ``history`` is legal, given what ``viewer`` knows: their dealt hand, the tiles at the
    boneyard positions they drew (``known_boneyard``: position -> tile) and, at the end, the
    opponent's final hand. Tiles are (high, low) pairs."""
    tiles = tile_order(max_pips)
    n_bone = len(tiles) - 2 * hand_size
    unknown = [t for t in tiles if t not in dealt_mine and t not in known_boneyard.values()]
    free = [k for k in range(n_bone) if k not in known_boneyard]
    found = []
    for opp in itertools.combinations(unknown, hand_size):
        rest = [t for t in unknown if t not in opp]
        for order in itertools.permutations(rest):
            bone = [None] * n_bone
            for k, t in known_boneyard.items():
                bone[k] = t
            for k, t in zip(free, order):
                bone[k] = t
            hands = [None, None]
            hands[viewer], hands[1 - viewer] = list(dealt_mine), list(opp)
            game = DominoesReference(max_pips, hands, bone, drawing, block_rule)
            if game.to_move != leader:
                continue
            for move in history:
                if move not in game.legal_moves():
                    break
                game.apply(move)
            else:
                # The game is over exactly when the view says so (the final hand is shown then).
                if game.over != (final_hand is not None):
                    continue
                if final_hand is None or sorted(game.hands[1 - viewer]) == sorted(final_hand):
                    found.append((frozenset(opp), tuple(bone)))
    return found
