// The Morabaraba board (arena serve): the drawing that game.web.drawing names, loaded by the page
// from /games/morabaraba.js; helpers and the contract of a drawing in
// board_arena/arena/web/static/boards.js.
// The 7x7 drawing of docs/games/morabaraba.md: the lines of view.layout, the mills that the last move formed
// (view.highlights), the cows in hand below.
"use strict";

(() => {
  function pointXY(name) {
    return [60 + (name.charCodeAt(0) - 97) * 80, 60 + (7 - Number(name[1])) * 80];
  }

  function drawMorabaraba(view, opts) {
    const b = view.board, svg = svgRoot(600, 700, "Morabaraba board");
    el("rect", { x: 10, y: 10, width: 580, height: 580, rx: 12, fill: "#e2c28f", stroke: "#a57a43", "stroke-width": 3 }, svg);
    for (const line of view.layout.lines) {
      const [x1, y1] = pointXY(line[0]), [x2, y2] = pointXY(line[2]);
      el("line", { x1, y1, x2, y2, stroke: "#5a4128", "stroke-width": 4, "stroke-linecap": "round" }, svg);
    }
    for (const mill of view.highlights || []) {
      const [x1, y1] = pointXY(mill[0]), [x2, y2] = pointXY(mill[mill.length - 1]);
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

  registerDrawing("morabaraba", drawMorabaraba);
})();
