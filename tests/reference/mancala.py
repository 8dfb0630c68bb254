"""Mancala rules in plain Python, written from docs/games/mancala.md with the classic board array.

Board: ``board[0..P-1]`` South's pits left to right, ``board[P]`` South's store,
``board[P+1..2P]`` North's pits from North's left, ``board[2P+1]`` North's store; sowing goes up
the indices and wraps. The pit opposite ``i`` is ``2P - i``.
"""


class MancalaReference:
    def __init__(self, pits, seeds, capture="opposite", empty_capture=False):
        self.pits = pits
        self.board = [seeds] * pits + [0] + [seeds] * pits + [0]
        self.capture = capture
        self.empty_capture = empty_capture
        self.to_move = 0
        self.over = False

    def own_pits(self, player):
        start = 0 if player == 0 else self.pits + 1
        return list(range(start, start + self.pits))

    def store(self, player):
        return self.pits if player == 0 else 2 * self.pits + 1

    def legal_moves(self):
        if self.over:
            return []
        return [j for j, cell in enumerate(self.own_pits(self.to_move)) if self.board[cell] > 0]

    def apply(self, move):
        assert move in self.legal_moves()
        me, b, P = self.to_move, self.board, self.pits
        pos = self.own_pits(me)[move]
        seeds, b[pos] = b[pos], 0
        while seeds:
            pos = (pos + 1) % (2 * P + 2)
            if pos == self.store(1 - me):
                continue  # the opponent's store is skipped
            b[pos] += 1
            seeds -= 1
        if pos in self.own_pits(me) and b[pos] == 1:  # landed in an own pit that was empty
            opposite = 2 * P - pos
            if self.capture == "kalah":
                if b[opposite] > 0 or self.empty_capture:
                    b[self.store(me)] += b[opposite] + 1
                    b[opposite] = b[pos] = 0
            elif b[opposite] > 0:
                b[self.store(me)] += b[opposite]
                b[opposite] = 0
        if all(b[c] == 0 for c in self.own_pits(0)) or all(b[c] == 0 for c in self.own_pits(1)):
            for player in (0, 1):
                for c in self.own_pits(player):
                    b[self.store(player)] += b[c]
                    b[c] = 0
            self.over = True
        elif pos != self.store(me):
            self.to_move = 1 - me

    def pits_of(self, player):
        return [self.board[c] for c in self.own_pits(player)]

    def stores(self):
        return (self.board[self.store(0)], self.board[self.store(1)])
