// The Dominoes table (arena serve): the drawing that game.web.drawing names, loaded by the page
// from /games/dominoes.js; helpers and the contract of a drawing in
// board_arena/arena/web/static/boards.js.
// Dominoes: the line (wrapped in rows, left to right), the open ends to click, the hands.
"use strict";

(() => {
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

  registerDrawing("dominoes", drawDominoes);
})();
