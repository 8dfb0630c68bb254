// The Mancala board (arena serve): the drawing that game.web.drawing names, loaded by the page
// from /games/mancala.js; helpers and the contract of a drawing in
// board_arena/arena/web/static/boards.js.
// Mancala: North's row on top (drawn from North's left, i.e. right to left), South's below;
// North's store on the left, South's on the right, as the seeds travel counter-clockwise.
"use strict";

(() => {
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

  registerDrawing("mancala", drawMancala);
})();
