/*
 * kalah.c: a Kalah(6,4) engine that speaks UGI on standard input and output, written as a
 * reference for engines in other languages that play in the board-arena arena.
 *
 * Build:   cc -O2 -o kalah kalah.c          (C99 and POSIX libc; nothing else)
 *
 * Rules, as the arena's "kalah" preset plays them (docs/games/mancala.md):
 *   - two rows of 6 pits with 4 seeds each, a store at each player's right; South (player 1 in
 *     UGI's words, our seat 0) moves first;
 *   - a move takes every seed of one of the mover's non-empty pits and sows them one by one
 *     counter-clockwise: the mover's next pits, the mover's store, the opponent's pits, never the
 *     opponent's store; a lap passes the emptied pit too;
 *   - the last seed in the mover's store: the mover moves again;
 *   - the last seed in an empty pit of the mover's row, opposite a non-empty pit: that pit's
 *     seeds and the last seed go to the mover's store;
 *   - when either row is empty after a move, each player banks the seeds left in their own row
 *     and the game is over; most seeds in store wins.
 *
 * Moves are written as our notation writes them: the letter of the mover's pit, "a" (the
 * mover's leftmost) to "f" (the one next to the mover's store).
 *
 * Positions: "position startpos [moves a b ...]" or "position fen SOUTH/NORTH STORE_S STORE_N
 * MOVER [moves ...]", e.g. "4,4,4,4,4,4/4,4,4,4,4,4 0 0 S" (each row from its owner's left,
 * the mover S or N).
 *
 * Search: negamax alpha-beta with iterative deepening on the store difference (mover's store
 * minus the opponent's; exact at the end of the game), a move that earns an extra turn keeping
 * the side to move. The score sent in "info" is "score cp C" with C = 1000 * d / (|d| + 8) for
 * a store difference d, a tanh-like curve inside (-1000, 1000) that an arena reads as the value
 * C / 1000; a search that reaches the end of the game on every line sends "score mate N" (N > 0
 * a win, N < 0 a loss, plies to the end of the principal line) for a decided game, "score cp 0"
 * for a drawn one, then "info string proven: ..." with the exact final store difference.
 */

#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PITS 6
#define SEEDS 4
#define MAX_DEPTH 64
#define INF 1000000
#define MAX_LINE 65536

/* The board from South's side: pits[0] is South's row, pits[1] North's, each from its owner's
 * left (index 0 is pit "a"); stores[p] is player p's store.
 *
 *             North:  f   e   d   c   b   a
 *   store[1]                                 store[0]
 *             South:  a   b   c   d   e   f
 */
typedef struct {
    int pits[2][PITS];
    int stores[2];
    int to_move; /* 0 South, 1 North */
    int over;    /* 1 once a row emptied and the rest was swept */
} Board;

static void board_start(Board *b) {
    for (int p = 0; p < 2; p++)
        for (int j = 0; j < PITS; j++) b->pits[p][j] = SEEDS;
    b->stores[0] = b->stores[1] = 0;
    b->to_move = 0;
    b->over = 0;
}

static int row_sum(const Board *b, int p) {
    int n = 0;
    for (int j = 0; j < PITS; j++) n += b->pits[p][j];
    return n;
}

static int is_legal(const Board *b, int move) {
    return !b->over && move >= 0 && move < PITS && b->pits[b->to_move][move] > 0;
}

/* Plays a legal move: sowing, extra turn, capture, and the sweep at the end. */
static void play(Board *b, int move) {
    const int me = b->to_move, them = 1 - me;
    int seeds = b->pits[me][move];
    b->pits[me][move] = 0;
    /* The cells of a lap, counted from the mover's pit a: 0..5 its pits, 6 its store, 7..12 the
     * opponent's pits (the opponent's store is not a cell). */
    int cell = move;
    while (seeds > 0) {
        cell = (cell + 1) % (2 * PITS + 1);
        if (cell < PITS) b->pits[me][cell]++;
        else if (cell == PITS) b->stores[me]++;
        else b->pits[them][cell - PITS - 1]++;
        seeds--;
    }
    int extra_turn = cell == PITS;
    if (cell < PITS && b->pits[me][cell] == 1 && b->pits[them][PITS - 1 - cell] > 0) {
        b->stores[me] += b->pits[them][PITS - 1 - cell] + 1; /* Kalah banks the last seed too */
        b->pits[them][PITS - 1 - cell] = 0;
        b->pits[me][cell] = 0;
    }
    if (row_sum(b, me) == 0 || row_sum(b, them) == 0) {
        for (int p = 0; p < 2; p++) {
            b->stores[p] += row_sum(b, p);
            for (int j = 0; j < PITS; j++) b->pits[p][j] = 0;
        }
        b->over = 1;
    } else if (!extra_turn) {
        b->to_move = them;
    }
}

/* ---- the search -------------------------------------------------------------------------- */

static long long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

typedef struct {
    long long deadline;  /* ms on the monotonic clock; 0: none */
    long long max_nodes; /* 0: none */
    long long nodes;
    int stopped;         /* the budget ran out, or "stop" arrived */
    int quit_after;      /* "quit" arrived during the search */
    int reached_end;     /* every line of the last iteration ended the game */
    int pv[MAX_DEPTH + 1][MAX_DEPTH + 1];
    int pv_length[MAX_DEPTH + 1];
    int root_order[PITS];
} Search;

static void check_input(Search *s);

/* The store difference from the mover's side. */
static int evaluate(const Board *b) {
    return b->stores[b->to_move] - b->stores[1 - b->to_move];
}

static int alphabeta(Search *s, const Board *b, int depth, int ply, int alpha, int beta) {
    s->pv_length[ply] = ply;
    if (b->over) return evaluate(b); /* the final margin: exact */
    if (depth == 0) {
        s->reached_end = 0;
        return evaluate(b);
    }
    if (s->max_nodes && ++s->nodes > s->max_nodes) s->stopped = 1;
    else if (!s->max_nodes) s->nodes++;
    if ((s->nodes & 1023) == 0) { /* the clock and the input, now and then */
        if (s->deadline && now_ms() >= s->deadline) s->stopped = 1;
        check_input(s);
    }
    if (s->stopped) return 0;
    /* Moves that end in the own store (an extra turn) first: they are often best. */
    int order[PITS], n = 0;
    const int me = b->to_move;
    if (ply == 0) {
        for (int i = 0; i < PITS; i++)
            if (is_legal(b, s->root_order[i])) order[n++] = s->root_order[i];
    } else {
        for (int j = PITS - 1; j >= 0; j--)
            if (b->pits[me][j] > 0 && b->pits[me][j] == PITS - j) order[n++] = j;
        for (int j = PITS - 1; j >= 0; j--)
            if (b->pits[me][j] > 0 && b->pits[me][j] != PITS - j) order[n++] = j;
    }
    int best = -INF;
    for (int i = 0; i < n; i++) {
        Board child = *b;
        play(&child, order[i]);
        /* The same side to move after an extra turn (or at the end, scored for its mover). */
        int same = child.over ? 0 : child.to_move == me;
        int value;
        if (child.over) {
            value = child.stores[me] - child.stores[1 - me];
            s->pv_length[ply + 1] = ply + 1;
        } else if (same) {
            value = alphabeta(s, &child, depth - 1, ply + 1, alpha, beta);
        } else {
            value = -alphabeta(s, &child, depth - 1, ply + 1, -beta, -alpha);
        }
        if (s->stopped) return 0;
        if (value > best) {
            best = value;
            s->pv[ply][ply] = order[i];
            for (int k = ply + 1; k < s->pv_length[ply + 1]; k++) s->pv[ply][k] = s->pv[ply + 1][k];
            s->pv_length[ply] = s->pv_length[ply + 1];
        }
        if (best > alpha) alpha = best;
        if (alpha >= beta) break;
    }
    return best;
}

/* ---- input, one line at a time, read with read(2) so that poll(2) sees what is pending ---- */

static char in_buffer[MAX_LINE];
static size_t in_length = 0;
static int in_closed = 0;

/* Moves the next whole line into `line` (without its newline) and returns 1, or returns 0 when
 * none is complete yet (`wait`: block until one is, or until the input ends). */
static int next_line(char *line, int wait) {
    for (;;) {
        char *newline = memchr(in_buffer, '\n', in_length);
        if (newline != NULL) {
            size_t n = (size_t)(newline - in_buffer);
            memcpy(line, in_buffer, n);
            line[n] = '\0';
            if (n > 0 && line[n - 1] == '\r') line[n - 1] = '\0';
            memmove(in_buffer, newline + 1, in_length - n - 1);
            in_length -= n + 1;
            return 1;
        }
        if (in_closed) {
            if (in_length == 0) return 0;
            memcpy(line, in_buffer, in_length); /* a last line without its newline */
            line[in_length] = '\0';
            in_length = 0;
            return 1;
        }
        if (!wait) {
            struct pollfd fd = {0, POLLIN, 0};
            if (poll(&fd, 1, 0) <= 0) return 0;
        }
        if (in_length == sizeof in_buffer - 1) in_length = 0; /* a line longer than any command: dropped */
        ssize_t got = read(0, in_buffer + in_length, sizeof in_buffer - 1 - in_length);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) in_closed = 1;
        else in_length += (size_t)got;
    }
}

static void say(const char *text) {
    fputs(text, stdout);
    fputc('\n', stdout);
    fflush(stdout); /* the host reads line by line through a pipe */
}

/* During a search: "stop" and "quit" end it, "isready" is answered at once. */
static void check_input(Search *s) {
    static char line[MAX_LINE];
    while (next_line(line, 0)) {
        if (strcmp(line, "stop") == 0) s->stopped = 1;
        else if (strcmp(line, "quit") == 0) s->stopped = s->quit_after = 1;
        else if (strcmp(line, "isready") == 0) say("readyok");
    }
    if (in_closed) s->stopped = s->quit_after = 1;
}

/* ---- the protocol ------------------------------------------------------------------------- */

static Board board;

static int score_cp(int difference) {
    int magnitude = difference < 0 ? -difference : difference;
    return 1000 * difference / (magnitude + 8);
}

/* Searches the current position within the budget and prints "info" per depth and "bestmove". */
static int go(long long movetime, int max_depth, long long max_nodes) {
    static Search s;
    long long started = now_ms();
    memset(&s, 0, sizeof s);
    s.deadline = movetime > 0 ? started + movetime : 0;
    s.max_nodes = max_nodes;
    int legal[PITS], n = 0;
    for (int j = PITS - 1; j >= 0; j--)
        if (is_legal(&board, j)) legal[n++] = j;
    if (n == 0) {
        say("info string the game is over: no move");
        say("bestmove none");
        return 0;
    }
    for (int i = 0; i < PITS; i++) s.root_order[i] = i < n ? legal[i] : -1;
    int best_move = legal[0];
    char text[4096];
    for (int depth = 1; depth <= max_depth; depth++) {
        s.reached_end = 1;
        int value = alphabeta(&s, &board, depth, 0, -INF, INF);
        if (s.stopped && depth > 1) break; /* an unfinished iteration is not trusted */
        best_move = s.pv[0][0];
        /* The best move first in the next iteration, the others in their order. */
        int k = 0, next_order[PITS];
        next_order[k++] = best_move;
        for (int i = 0; i < PITS; i++)
            if (s.root_order[i] != best_move) next_order[k++] = s.root_order[i];
        memcpy(s.root_order, next_order, sizeof next_order);
        int length = sprintf(text, "info depth %d ", depth);
        if (s.reached_end && value != 0) /* proven: plies to the end of the principal line */
            length += sprintf(text + length, "score mate %d", value > 0 ? s.pv_length[0] : -s.pv_length[0]);
        else
            length += sprintf(text + length, "score cp %d", score_cp(value));
        length += sprintf(text + length, " nodes %lld time %lld pv", s.nodes, now_ms() - started);
        for (int i = 0; i < s.pv_length[0]; i++) length += sprintf(text + length, " %c", 'a' + s.pv[0][i]);
        say(text);
        if (s.reached_end) { /* the game's end is seen on every line: done */
            sprintf(text, "info string proven: the game ends with a store difference of %d for the mover", value);
            say(text);
            break;
        }
        if (s.stopped) break;
    }
    sprintf(text, "bestmove %c", 'a' + best_move);
    say(text);
    return s.quit_after;
}

/* Reads "S/N S N M" (the fen's four fields) into `b`; 0 if it is not a Kalah(6,4) position. */
static int read_fen(Board *b, char **fields) {
    Board read = {0};
    char *row = fields[0];
    for (int p = 0; p < 2; p++) {
        for (int j = 0; j < PITS; j++) {
            char *end;
            long n = strtol(row, &end, 10);
            if (end == row || n < 0 || n > 2 * PITS * SEEDS) return 0;
            read.pits[p][j] = (int)n;
            char expected = j < PITS - 1 ? ',' : (p == 0 ? '/' : '\0');
            if (*end != expected) return 0;
            row = end + 1;
        }
    }
    for (int p = 0; p < 2; p++) {
        char *end;
        long n = strtol(fields[1 + p], &end, 10);
        if (end == fields[1 + p] || *end || n < 0 || n > 2 * PITS * SEEDS) return 0;
        read.stores[p] = (int)n;
    }
    if (strcmp(fields[3], "S") != 0 && strcmp(fields[3], "N") != 0) return 0;
    read.to_move = fields[3][0] == 'N';
    int total = read.stores[0] + read.stores[1] + row_sum(&read, 0) + row_sum(&read, 1);
    if (total != 2 * PITS * SEEDS) return 0;
    int empty0 = row_sum(&read, 0) == 0, empty1 = row_sum(&read, 1) == 0;
    if (empty0 != empty1) return 0; /* one empty row would have ended the game, its seeds swept */
    read.over = empty0;
    *b = read;
    return 1;
}

static void position(char **words, int count) {
    int i = 1;
    Board b;
    if (i < count && strcmp(words[i], "startpos") == 0) {
        board_start(&b);
        i++;
    } else if (i + 4 < count && strcmp(words[i], "fen") == 0 && read_fen(&b, words + i + 1)) {
        i += 5;
    } else {
        say("info string position: give startpos or fen SOUTH/NORTH STORE_S STORE_N S|N, then moves");
        return;
    }
    if (i < count && strcmp(words[i], "moves") == 0) {
        for (i++; i < count; i++) {
            int move = words[i][0] - 'a';
            if (words[i][1] != '\0' || !is_legal(&b, move)) {
                char text[256];
                snprintf(text, sizeof text, "info string position: move %.20s is not legal there; position left as it was", words[i]);
                say(text);
                return;
            }
            play(&b, move);
        }
    }
    board = b;
}

static long long number_after(char **words, int count, const char *name, long long otherwise) {
    for (int i = 1; i + 1 < count; i++)
        if (strcmp(words[i], name) == 0) return atoll(words[i + 1]);
    return otherwise;
}

static int has_word(char **words, int count, const char *name) {
    for (int i = 1; i < count; i++)
        if (strcmp(words[i], name) == 0) return 1;
    return 0;
}

int main(void) {
    static char line[MAX_LINE];
    static char *words[MAX_LINE / 2 + 1]; /* a line of n characters holds at most n / 2 + 1 words */
    board_start(&board);
    while (next_line(line, 1)) {
        int count = 0;
        for (char *word = strtok(line, " \t"); word != NULL; word = strtok(NULL, " \t")) words[count++] = word;
        if (count == 0) continue;
        const char *command = words[0];
        if (strcmp(command, "ugi") == 0) {
            say("id name kalah-c");
            say("id author board-arena examples");
            say("ugiok");
        } else if (strcmp(command, "isready") == 0) {
            say("readyok");
        } else if (strcmp(command, "uginewgame") == 0) {
            board_start(&board);
        } else if (strcmp(command, "position") == 0) {
            position(words, count);
        } else if (strcmp(command, "go") == 0) {
            /* A clock: a 20th of the mover's time plus half its increment; else movetime,
             * depth, nodes; with nothing given, one second. */
            long long movetime = number_after(words, count, "movetime", 0);
            int depth = (int)number_after(words, count, "depth", MAX_DEPTH);
            long long nodes = number_after(words, count, "nodes", 0);
            const char *mine = board.to_move == 0 ? "p1time" : "p2time";
            const char *increment = board.to_move == 0 ? "p1inc" : "p2inc";
            long long clock = number_after(words, count, mine, -1);
            if (clock >= 0) {
                long long budget = clock / 20 + number_after(words, count, increment, 0) / 2;
                if (budget > clock - 50) budget = clock / 2; /* keep a margin on a low clock */
                movetime = budget > 1 ? budget : 1;
            }
            if (depth < 1) depth = 1;
            if (depth > MAX_DEPTH) depth = MAX_DEPTH;
            if (movetime == 0 && nodes == 0 && depth == MAX_DEPTH && !has_word(words, count, "infinite")) movetime = 1000;
            if (go(movetime, depth, nodes)) break;
        } else if (strcmp(command, "query") == 0 && count > 1) {
            if (strcmp(words[1], "gameover") == 0) say(board.over ? "response true" : "response false");
            else if (strcmp(words[1], "p1turn") == 0) say(!board.over && board.to_move == 0 ? "response true" : "response false");
            else if (strcmp(words[1], "result") == 0) {
                int d = board.stores[0] - board.stores[1];
                say(!board.over ? "response none" : d > 0 ? "response p1win" : d < 0 ? "response p2win" : "response draw");
            } else say("info string query: gameover, p1turn or result");
        } else if (strcmp(command, "stop") == 0) {
            /* no search is running between commands: nothing to stop */
        } else if (strcmp(command, "quit") == 0) {
            break;
        } else if (strcmp(command, "setoption") != 0) {
            char text[256];
            snprintf(text, sizeof text, "info string unknown command %.40s", command);
            say(text);
        }
    }
    return 0;
}
