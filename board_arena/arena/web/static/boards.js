// Board drawings, one per game family, all from state.board() (plain data). Every element a
// person may click carries data-click (its click name, as arena/web/clicks.py spells it);
// `opts.targets` (a Set) are the legal next clicks, drawn highlighted; `opts.selected` the clicks
// made so far; `opts.hint` the clicks of a hinted move.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}

function svgRoot(width, height, label) {
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label });
  return svg;
}

// A highlight under a clickable element: a target ring for legal clicks, a stronger one for the
// clicks already made, a dashed one for a hint.
function marks(parent, token, shape, opts) {
  const { targets, selected, hint } = opts;
  if (targets && targets.has(token)) el(shape.tag, { ...shape.attrs, class: "target" + (hint && hint.includes(token) ? " hint" : ""), "pointer-events": "none" }, parent);
  if (selected && selected.includes(token)) el(shape.tag, { ...shape.attrs, class: "selected-ring", "pointer-events": "none" }, parent);
  else if (hint && hint.includes(token)) el(shape.tag, { ...shape.attrs, class: "hint-ring", "pointer-events": "none" }, parent);
}

function hit(parent, token, shape, opts) {
  const node = el(shape.tag, { ...shape.attrs, fill: "transparent", "data-click": token, class: "clickable" }, parent);
  if (opts.targets && opts.targets.has(token)) node.classList.add("legal");
  return node;
}

const PIECE = { 0: { fill: "#f7f3ea", stroke: "#5a4a3a" }, 1: { fill: "#27221d", stroke: "#000" } };

// ---- Mancala: North's row on top (drawn from North's left, i.e. right to left), South's below;
// North's store on the left, South's on the right, as the seeds travel counter-clockwise.
function drawMancala(view, opts) {
  const b = view.board, n = b.pits[0].length, W = (n + 2) * 100, H = 300;
  const svg = svgRoot(W, H, "Mancala board");
  el("rect", { x: 5, y: 30, width: W - 10, height: 240, rx: 60, fill: "#b07a3f", stroke: "#6e4a22", "stroke-width": 4 }, svg);
  const store = (player, x) => {
    el("rect", { x: x + 15, y: 55, width: 70, height: 190, rx: 35, fill: "#8a5a2b" }, svg);
    el("text", { x: x + 50, y: 160, "text-anchor": "middle", "font-size": 38, fill: "#fff", "font-weight": 700 }, svg, b.stores[player]);
    el("text", { x: x + 50, y: player === 1 ? 22 : 292, "text-anchor": "middle", "font-size": 15, fill: "#3b2f25" }, svg, `${b.players[player]}'s store`);
  };
  store(1, 0);
  store(0, W - 100);
  for (let player = 0; player < 2; player++) {
    for (let i = 0; i < n; i++) {
      const col = player === 0 ? i : n - 1 - i;
      const cx = 150 + col * 100, cy = player === 0 ? 205 : 95;
      const letter = String.fromCharCode(97 + i), token = `pit-${player}-${letter}`;
      const shape = { tag: "circle", attrs: { cx, cy, r: 40 } };
      el("circle", { cx, cy, r: 40, fill: "#8a5a2b" }, svg);
      marks(svg, token, shape, opts);
      el("text", { x: cx, y: cy + 13, "text-anchor": "middle", "font-size": 36, fill: "#fff", "font-weight": 700, "pointer-events": "none" }, svg, b.pits[player][i]);
      el("text", { x: cx, y: player === 0 ? 265 : 48, "text-anchor": "middle", "font-size": 16, fill: "#f3e3c8", "pointer-events": "none" }, svg, letter);
      hit(svg, token, shape, opts);
    }
  }
  el("text", { x: W / 2, y: 292, "text-anchor": "middle", "font-size": 15, fill: "#3b2f25" }, svg, `${b.players[0]} (pits a-${String.fromCharCode(96 + n)} from the left)`);
  el("text", { x: W / 2, y: 22, "text-anchor": "middle", "font-size": 15, fill: "#3b2f25" }, svg, `${b.players[1]} (pits a-${String.fromCharCode(96 + n)} from their left)`);
  return svg;
}

// ---- Morabaraba: the 7x7 drawing of docs/rules.md, the lines from the server, cows in hand below.
function pointXY(name) {
  return [60 + (name.charCodeAt(0) - 97) * 80, 60 + (7 - Number(name[1])) * 80];
}

function drawMorabaraba(view, opts) {
  const b = view.board, svg = svgRoot(600, 700, "Morabaraba board");
  el("rect", { x: 10, y: 10, width: 580, height: 580, rx: 12, fill: "#e2c28f", stroke: "#a57a43", "stroke-width": 3 }, svg);
  for (const line of view.lines) {
    const [x1, y1] = pointXY(line[0]), [x2, y2] = pointXY(line[2]);
    el("line", { x1, y1, x2, y2, stroke: "#5a4128", "stroke-width": 4, "stroke-linecap": "round" }, svg);
  }
  if (view.mill) {
    const [x1, y1] = pointXY(view.mill[0]), [x2, y2] = pointXY(view.mill[2]);
    el("line", { x1, y1, x2, y2, stroke: "#e0531f", "stroke-width": 14, "stroke-linecap": "round", opacity: 0.6, class: "mill" }, svg);
  }
  for (let c = 0; c < 7; c++) {
    el("text", { x: 60 + c * 80, y: 585, "text-anchor": "middle", "font-size": 15, fill: "#6e4a22" }, svg, String.fromCharCode(97 + c));
    el("text", { x: 22, y: 65 + c * 80, "text-anchor": "middle", "font-size": 15, fill: "#6e4a22" }, svg, 7 - c);
  }
  b.point_names.forEach((name, p) => {
    const [cx, cy] = pointXY(name), owner = b.points[p];
    const shape = { tag: "circle", attrs: { cx, cy, r: 27 } };
    if (owner === null) el("circle", { cx, cy, r: 8, fill: "#5a4128" }, svg);
    else el("circle", { cx, cy, r: 24, fill: PIECE[owner].fill, stroke: PIECE[owner].stroke, "stroke-width": 3, class: `cow cow-${owner}` }, svg);
    marks(svg, name, shape, opts);
    hit(svg, name, shape, opts);
  });
  for (let player = 0; player < 2; player++) {
    const y = 630 + player * 45;
    el("text", { x: 20, y: y + 6, "font-size": 17, fill: "#3b2f25" }, svg,
      `${b.players[player]}: ${b.in_hand[player]} in hand, ${b.cows[player].length} on the board (${b.stage[player]})`);
    for (let i = 0; i < b.in_hand[player]; i++) {
      el("circle", { cx: 390 + i * 16, cy: y, r: 7, fill: PIECE[player].fill, stroke: PIECE[player].stroke, "stroke-width": 2 }, svg);
    }
  }
  return svg;
}

// ---- Konane: the grid as drawn by the engine, rows from the top, coordinates a.. and 1...
function drawKonane(view, opts) {
  const b = view.board, n = b.size, S = 70, W = n * S + 60, H = n * S + 100;
  const svg = svgRoot(W, H, "Konane board");
  el("rect", { x: 30, y: 10, width: n * S, height: n * S, rx: 8, fill: "#c89b62", stroke: "#8a5a2b", "stroke-width": 3 }, svg);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const name = String.fromCharCode(97 + c) + (n - r), cx = 30 + c * S + S / 2, cy = 10 + r * S + S / 2;
      const shape = { tag: "circle", attrs: { cx, cy, r: S * 0.42 } };
      el("circle", { cx, cy, r: 7, fill: "#8a5a2b" }, svg);
      const cell = b.grid[r][c];
      if (cell !== ".") {
        // The grid names colours (Black is player 0 here, unlike Morabaraba's White).
        const look = cell === "B" ? PIECE[1] : PIECE[0], owner = cell === "B" ? 0 : 1;
        el("circle", { cx, cy, r: S * 0.36, fill: look.fill, stroke: look.stroke, "stroke-width": 3, class: `stone stone-${owner}` }, svg);
      }
      marks(svg, name, shape, opts);
      hit(svg, name, shape, opts);
    }
  }
  for (let i = 0; i < n; i++) {
    el("text", { x: 30 + i * S + S / 2, y: n * S + 30, "text-anchor": "middle", "font-size": 15, fill: "#6e4a22" }, svg, String.fromCharCode(97 + i));
    el("text", { x: 15, y: 15 + i * S + S / 2, "text-anchor": "middle", "font-size": 15, fill: "#6e4a22" }, svg, n - i);
  }
  const moving = b.to_move === null ? "" : `; ${b.players[b.to_move]} to move`;
  el("text", { x: 30, y: n * S + 60, "font-size": 16, fill: "#3b2f25" }, svg,
    `Captures: ${b.players[0]} ${b.captures[0]}, ${b.players[1]} ${b.captures[1]}${b.opening ? "; opening: remove a stone" : ""}${moving}`);
  return svg;
}

// ---- Dominoes: the line (wrapped in rows, left to right), the open ends to click, the hands.
const PIPS = [[], [4], [0, 8], [0, 4, 8], [0, 2, 6, 8], [0, 2, 4, 6, 8], [0, 2, 3, 5, 6, 8],
  [0, 2, 3, 4, 5, 6, 8], [0, 1, 2, 3, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5, 6, 7, 8]];

function drawTile(parent, x, y, a, b, vertical, attrs) {
  const w = vertical ? 40 : 80, h = vertical ? 80 : 40;
  const g = el("g", attrs || {}, parent);
  el("rect", { x, y, width: w, height: h, rx: 6, fill: "#fbf8f0", stroke: "#3b2f25", "stroke-width": 2 }, g);
  if (vertical) el("line", { x1: x + 4, y1: y + 40, x2: x + 36, y2: y + 40, stroke: "#3b2f25", "stroke-width": 1.5 }, g);
  else el("line", { x1: x + 40, y1: y + 4, x2: x + 40, y2: y + 36, stroke: "#3b2f25", "stroke-width": 1.5 }, g);
  [a, b].forEach((pips, half) => {
    const ox = x + (vertical ? 0 : half * 40), oy = y + (vertical ? half * 40 : 0);
    for (const k of PIPS[pips] || []) {
      el("circle", { cx: ox + 10 + (k % 3) * 10, cy: oy + 10 + Math.floor(k / 3) * 10, r: 3.6, fill: "#222" }, g);
    }
  });
  return { w, h };
}

function drawDominoes(view, opts) {
  const b = view.board, perRow = 10, rows = Math.max(1, Math.ceil(b.line.length / perRow));
  const me = view.human === null || view.human === undefined ? 0 : view.human;
  const W = 1000, lineTop = 130, H = lineTop + rows * 100 + 200;
  const svg = svgRoot(W, H, "Dominoes table");
  el("rect", { x: 0, y: 0, width: W, height: H, rx: 14, fill: "#2f6b45" }, svg);
  const handRow = (player, y) => {
    const tiles = b.hands[player];
    const label = `${b.players[player]}${player === view.human ? " (you)" : ""}: ${b.hand_counts[player]} tile${b.hand_counts[player] === 1 ? "" : "s"}`;
    el("text", { x: 20, y: y - 10, "font-size": 18, fill: "#fff", "font-weight": 600 }, svg, label);
    const count = tiles ? tiles.length : b.hand_counts[player];
    for (let i = 0; i < count; i++) {
      const x = 20 + i * 48;
      if (tiles) {
        const [p, q] = tiles[i].split("-").map(Number), token = `tile-${tiles[i]}`;
        const shape = { tag: "rect", attrs: { x: x - 3, y: y - 3, width: 46, height: 86, rx: 8 } };
        drawTile(svg, x, y, p, q, true, { class: "hand-tile", "data-tile": tiles[i] });
        marks(svg, token, shape, opts);
        if (player === view.human || view.human === null) hit(svg, token, shape, opts);
      } else {
        el("rect", { x, y, width: 40, height: 80, rx: 6, fill: "#7a2e1f", stroke: "#fff", "stroke-width": 2, class: "hidden-tile" }, svg);
      }
    }
  };
  const top = 1 - me;
  handRow(top, 40);
  el("text", { x: W - 20, y: 30, "text-anchor": "end", "font-size": 18, fill: "#fff" }, svg, `Boneyard: ${b.boneyard}`);
  // The line: tiles left to right, wrapping; doubles stand across.
  if (b.line.length === 0) {
    el("text", { x: W / 2, y: lineTop + 50, "text-anchor": "middle", "font-size": 20, fill: "#cfe8d6" }, svg,
      b.to_move === null ? "" : `${b.players[b.leader]} leads with any tile`);
  }
  const endShape = (x, y) => ({ tag: "rect", attrs: { x, y, width: 50, height: 80, rx: 10 } });
  let x = 80, y = lineTop;
  b.line.forEach(([p, q], i) => {
    if (i > 0 && i % perRow === 0) { x = 80; y += 100; }
    const vertical = p === q;
    const size = drawTile(svg, x, y + (vertical ? 0 : 20), p, q, vertical, { class: "line-tile" });
    x += size.w + 4;
  });
  if (b.ends) {
    const left = endShape(15, lineTop), right = endShape(Math.min(x + 4, W - 60), y);
    for (const [token, shape, pips] of [["end-L", left, b.ends[0]], ["end-R", right, b.ends[1]]]) {
      el("rect", { ...shape.attrs, fill: "none", stroke: "#cfe8d6", "stroke-width": 2, "stroke-dasharray": "6 4" }, svg);
      marks(svg, token, shape, opts);
      el("text", { x: shape.attrs.x + 25, y: shape.attrs.y + 48, "text-anchor": "middle", "font-size": 22, fill: "#fff", "font-weight": 700, "pointer-events": "none" }, svg, pips);
      hit(svg, token, shape, opts);
    }
  }
  handRow(me, H - 110);
  return svg;
}

const DRAWINGS = { mancala: drawMancala, morabaraba: drawMorabaraba, konane: drawKonane, dominoes: drawDominoes };

function drawBoard(view, opts) {
  return DRAWINGS[view.family](view, opts || {});
}
