// The Konane board (arena serve): the drawing that game.web.drawing names, loaded by the page
// from /games/konane.js; helpers and the contract of a drawing in
// board_arena/arena/web/static/boards.js.
// Konane: the grid as drawn by the engine, rows from the top, coordinates a.. and 1...
"use strict";

(() => {
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

  registerDrawing("konane", drawKonane);
})();
