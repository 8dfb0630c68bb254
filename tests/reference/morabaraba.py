"""Morabaraba rules in plain Python, written from docs/games/morabaraba.md with a list board and the mill list
copied from it; slow and meant to be obviously right.

Board: ``board[p]`` is None, 0 (White) or 1 (Black) for point p numbered as in docs/games/morabaraba.md. A move is
``(frm, to, shot)`` with ``frm`` None for a placement and ``shot`` None when nothing is shot.
"""

# docs/games/morabaraba.md, "Mills (20)": rows, columns, then diagonals; each listed along its line.
RULES_MILLS = """
0-1-2, 3-4-5, 6-7-8, 9-10-11, 12-13-14, 15-16-17, 18-19-20, 21-22-23;
0-9-21, 3-10-18, 6-11-15, 1-4-7, 16-19-22, 8-12-17, 5-13-20, 2-14-23;
0-3-6, 2-5-8, 15-18-21, 17-20-23
"""
ALL_MILLS = [tuple(int(p) for p in m.split("-")) for m in RULES_MILLS.replace(";", ",").split(",")]
ORTHOGONAL_MILLS = ALL_MILLS[:16]


class MorabarabaReference:
    def __init__(
        self,
        cows=12,
        diagonals=True,
        flying=True,
        no_immediate_remill="off",
        full_board="loss",
        three_cow_draw_plies=10,
        no_shot_draw_plies=None,
        max_plies=1000,
    ):
        self.mills = ALL_MILLS if diagonals else ORTHOGONAL_MILLS
        # Adjacency follows the drawn lines: consecutive points of a mill line.
        self.adjacent = {p: set() for p in range(24)}
        for a, b, c in self.mills:
            self.adjacent[a].add(b)
            self.adjacent[b].update((a, c))
            self.adjacent[c].add(b)
        self.flying_allowed = flying
        # "off", "no-shot" (a re-formed blocked mill shoots nothing) or "forbidden" (its move is illegal)
        self.no_immediate_remill = {False: "off", True: "no-shot"}.get(no_immediate_remill, no_immediate_remill)
        self.full_board = full_board
        self.three_cow_draw_plies = three_cow_draw_plies
        self.no_shot_draw_plies = no_shot_draw_plies
        self.max_plies = max_plies
        self.board = [None] * 24
        self.hand = [cows, cows]
        self.to_move = 0
        self.blocked = [set(), set()]  # mills a player may not count on its next move
        self.plies = 0
        self.no_shot = 0
        self.three_cow = 0
        self.over = False
        self.winner = None

    def set_up(self, white, black, hand, to_move, blocked=(set(), set()), no_shot=0, three_cow=0, plies=0):
        self.board = [None] * 24
        for p in white:
            self.board[p] = 0
        for p in black:
            self.board[p] = 1
        self.hand = list(hand)
        self.to_move = to_move
        self.blocked = [set(blocked[0]), set(blocked[1])]
        self.no_shot, self.three_cow, self.plies = no_shot, three_cow, plies
        self.check_end()

    def cows_of(self, player):
        return [p for p in range(24) if self.board[p] == player]

    def total(self, player):
        return len(self.cows_of(player)) + self.hand[player]

    def in_a_mill(self, p):
        return any(p in m and all(self.board[q] == self.board[p] for q in m) for m in self.mills)

    def flies(self, player):
        return self.flying_allowed and self.hand[player] == 0 and len(self.cows_of(player)) == 3

    def mills_formed(self, player, frm, to):
        """Mills through ``to`` that are complete once the cow is there (indices in self.mills)."""
        after = list(self.board)
        if frm is not None:
            after[frm] = None
        after[to] = player
        return {i for i, m in enumerate(self.mills) if to in m and all(after[q] == player for q in m)}

    def steps(self, player):
        """(frm, to) pairs without the shot, the re-formed blocked mills of "forbidden" left out."""
        steps = self.all_steps(player)
        if self.no_immediate_remill != "forbidden" or not self.blocked[player]:
            return steps
        return [(frm, to) for frm, to in steps if not self.mills_formed(player, frm, to) & self.blocked[player]]

    def all_steps(self, player):
        empty = [p for p in range(24) if self.board[p] is None]
        if self.hand[player] > 0:
            return [(None, to) for to in empty]
        if self.flies(player):
            return [(frm, to) for frm in self.cows_of(player) for to in empty]
        return [(frm, to) for frm in self.cows_of(player) for to in sorted(self.adjacent[frm]) if to in empty]

    def legal_moves(self):
        if self.over:
            return []
        me, opp = self.to_move, 1 - self.to_move
        opponents = self.cows_of(opp)
        outside = [p for p in opponents if not self.in_a_mill(p)]
        targets = outside if outside else opponents
        moves = []
        for frm, to in self.steps(me):
            counting = self.mills_formed(me, frm, to) - self.blocked[me]
            if counting and targets:
                moves += [(frm, to, shot) for shot in targets]
            else:
                moves.append((frm, to, None))
        return moves

    def can_move(self, player):
        return bool(self.steps(player))

    def apply(self, move):
        assert move in self.legal_moves(), move
        frm, to, shot = move
        me = self.to_move
        if frm is None:
            self.hand[me] -= 1
            self.no_shot = 0
            self.blocked[me] = set()
        else:
            if self.no_immediate_remill != "off":
                broken = {i for i, m in enumerate(self.mills) if frm in m and all(self.board[q] == me for q in m)}
                self.blocked[me] = broken if broken and self.mills_formed(me, frm, to) else set()
            self.board[frm] = None
            self.no_shot += 1
        self.board[to] = me
        if shot is not None:
            self.board[shot] = None
            self.no_shot = 0
            self.three_cow = 0
        elif self.total(0) == 3 or self.total(1) == 3:
            self.three_cow += 1
        else:
            self.three_cow = 0
        self.plies += 1
        self.to_move = 1 - me
        self.check_end()

    def check_end(self):
        p = self.to_move
        self.over, self.winner, self.reason = True, None, None
        if self.total(p) <= 2:
            self.winner, self.reason = 1 - p, "two cows"
        elif not self.can_move(p):
            if self.full_board == "draw" and None not in self.board:
                self.reason = "full board"
            else:
                self.winner, self.reason = 1 - p, "blocked"
        elif self.three_cow_draw_plies and self.three_cow >= self.three_cow_draw_plies:
            self.reason = "three cows"
        elif self.no_shot_draw_plies and self.no_shot >= self.no_shot_draw_plies:
            self.reason = "no shot"
        elif self.max_plies and self.plies >= self.max_plies:
            self.reason = "ply cap"
        else:
            self.over = False

    def outcome(self):
        """White's result at the end: 1, 0 or -1."""
        assert self.over
        return 0.0 if self.winner is None else (1.0 if self.winner == 0 else -1.0)
