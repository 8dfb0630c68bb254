// Board drawings: the helpers every drawing uses, the table of drawings by game family, and the
// drawing of a game that ships none (its text rendering and a button per legal click).
//
// A game's drawing lives in the game's own folder (game.web.drawing, e.g.
// board_arena/engines/mancala/web.js); the page loads it from /games/<family>.js, and it calls
// registerDrawing(family, draw). draw(view, opts) returns an element (an <svg>, usually) drawn
// from plain data only: view.board (state.board()), view.layout (game.web.layout()),
// view.highlights (game.web.highlights(): groups of element names to mark after the last move),
// view.human (the person's seat, or null) and view.text (the text rendering, for games without a
// drawing). Every element a person may click carries data-click, its click name as the game's
// move_clicks spells it; opts.targets (a Set) are the legal next clicks, drawn highlighted;
// opts.selected the clicks made so far; opts.hint the clicks of a hinted move. The drawing keeps
// no rule: which clicks are legal, and what they mean, come from the engine.
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

// The two players' pieces where they have colours (Morabaraba's cows, Konane's stones).
const PIECE = { 0: { fill: "#f7f3ea", stroke: "#5a4a3a" }, 1: { fill: "#27221d", stroke: "#000" } };

const DRAWINGS = {};

function registerDrawing(family, draw) {
  DRAWINGS[family] = draw;
}

// A game without a drawing of its own: its text rendering, and a button for each legal next
// click (by default a click is a whole move, named as the move is written).
function drawText(view, opts) {
  const box = document.createElement("div");
  box.className = "text-board";
  const text = document.createElement("pre");
  text.textContent = view.text || "";
  box.appendChild(text);
  const marked = new Set((view.highlights || []).flat());
  const choices = document.createElement("div");
  choices.className = "text-moves";
  for (const token of [...(opts.selected || []), ...(opts.targets || [])]) {
    const button = document.createElement("button");
    button.textContent = token;
    button.dataset.click = token;
    button.className = "clickable";
    if (opts.targets && opts.targets.has(token)) button.classList.add("legal");
    if (opts.selected && opts.selected.includes(token)) button.classList.add("selected");
    if (opts.hint && opts.hint.includes(token)) button.classList.add("hint");
    if (marked.has(token)) button.classList.add("marked");
    choices.appendChild(button);
  }
  box.appendChild(choices);
  return box;
}

function drawBoard(view, opts) {
  return (DRAWINGS[view.family] || drawText)(view, opts || {});
}
