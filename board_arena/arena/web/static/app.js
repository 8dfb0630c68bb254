// The page: setup, clicks turned into moves, the agent's turns, spectator games, tournament runs.
// It knows no game: each is drawn by its own drawing (boards.js), and the legal moves arrive
// with the clicks that make them and the game's words for a click (view.moves, view.prompts).
"use strict";

const $ = (id) => document.getElementById(id);
const ui = {
  catalog: null, tab: "play", view: null, prefix: [], hint: null, busy: false,
  paused: false, timer: null, replay: null,
};

async function api(method, path, body) {
  const response = await fetch(path, {
    method, headers: body ? { "Content-Type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function say(text, kind) {
  const box = $("message");
  box.textContent = text || "";
  box.className = kind || "";
}

// ---- setup ---------------------------------------------------------------------------------

function currentGame() {
  return ui.catalog.games.find((g) => g.name === $("game").value);
}

function fillParams() {
  const game = currentGame(), box = $("params");
  box.innerHTML = "";
  $("game-summary").textContent = game.summary;
  $("help").textContent = game.help;
  $("opponent").value = game.default_opponent;
  if (!game.perfect_information) {
    if (!/^(pimc|ismcts|random)/.test($("agent0").value)) $("agent0").value = "ismcts:iterations=2000";
    if (!/^(pimc|ismcts|random)/.test($("agent1").value)) $("agent1").value = "pimc:worlds=10";
  } else {
    if (/^(pimc|ismcts)/.test($("agent0").value)) $("agent0").value = "mcts:iterations=2000";
    if (/^(pimc|ismcts)/.test($("agent1").value)) $("agent1").value = "alphabeta:depth=4";
  }
  for (const p of game.params) {
    const label = document.createElement("label");
    label.title = `${p.doc}; ${p.allowed}`;
    label.textContent = p.name;
    let input;
    if (p.type === "bool") {
      input = document.createElement("select");
      for (const v of ["true", "false"]) input.add(new Option(v, v, false, String(p.default) === v));
    } else if (p.choices) {
      input = document.createElement("select");
      for (const v of p.choices) input.add(new Option(v, v, false, p.default === v));
    } else {
      input = document.createElement("input");
      input.value = p.default === null ? "none" : p.default;
    }
    input.dataset.param = p.name;
    input.dataset.initial = input.value;
    label.appendChild(input);
    const doc = document.createElement("span");
    doc.className = "small";
    doc.textContent = p.allowed;
    label.appendChild(doc);
    box.appendChild(label);
  }
}

function chosenParams() {
  const params = {};
  for (const input of $("params").querySelectorAll("[data-param]")) {
    if (input.value !== input.dataset.initial) params[input.dataset.param] = input.value;
  }
  return params;
}

async function newGame() {
  stopTimer();
  const seedText = $("seed").value.trim();
  let seats;
  if (ui.tab === "watch") seats = [$("agent0").value.trim(), $("agent1").value.trim()];
  else {
    const side = $("side-choice").value;  // "random": the server draws it from the seed
    seats = side === "1" ? [$("opponent").value.trim(), null] : [null, $("opponent").value.trim()];
  }
  const body = { game: $("game").value, params: chosenParams(), seats, random_side: ui.tab === "play" && $("side-choice").value === "random" };
  if (seedText) body.seed = Number(seedText);
  try {
    ui.paused = false;
    $("pause").textContent = "Pause";
    show(await api("POST", "/api/games", body));
    say("");
  } catch (error) {
    say(error.message);
  }
}

// ---- the game ------------------------------------------------------------------------------

function candidates() {
  const p = ui.prefix;
  return ui.view.moves.filter((m) => m.clicks.length >= p.length && p.every((c, i) => m.clicks[i] === c));
}

function nextClicks() {
  const set = new Set();
  for (const m of candidates()) if (m.clicks.length > ui.prefix.length) set.add(m.clicks[ui.prefix.length]);
  return set;
}

function complete() {
  return candidates().find((m) => m.clicks.length === ui.prefix.length) || null;
}

// What the game says about the clicks made so far (Morabaraba: a mill, shoot), if anything.
function prompt() {
  const entry = ui.view.prompts.find((p) => p.clicks.length === ui.prefix.length && p.clicks.every((c, i) => c === ui.prefix[i]));
  return entry ? entry.text : null;
}

function show(view) {
  ui.view = view;
  ui.prefix = [];
  ui.hint = null;
  ui.replay = null;
  $("replay-controls").hidden = true;
  $("run-view").innerHTML = "";
  render();
  scheduleAgent();
}

function seatName(view, seat) {
  const who = view.human === null ? view.seats[seat] : seat === view.human ? "you" : view.seats[seat];
  return `${view.board.players[seat]} (${who})`;
}

function render() {
  const view = ui.view;
  if (!view) return;
  const targets = view.moves.length ? nextClicks() : new Set();
  const board = drawBoard(view, { targets, selected: ui.prefix, hint: ui.hint ? ui.hint.clicks : null });
  board.addEventListener("click", onBoardClick);
  $("board").replaceChildren(board);
  const b = view.board;
  let status = view.status;
  if (b.to_move !== null) {
    status = `${seatName(view, b.to_move)} to move`;
    if (view.agent_to_move) status += ui.paused ? " (paused)" : " — thinking";
  }
  $("status").textContent = status;
  $("status").classList.toggle("thinking", view.agent_to_move && !ui.paused && b.to_move !== null);
  $("result").textContent = view.result || "";
  // Buttons beside the board: those the game always shows (Dominoes' draw and pass), and one for
  // each legal move of one click that the drawing does not show (a pass).
  const buttons = $("move-buttons");
  buttons.replaceChildren();
  const onBoard = new Set([...board.querySelectorAll("[data-click]")].map((node) => node.dataset.click));
  const wanted = new Map(view.buttons);
  for (const m of view.moves) {
    const [click] = m.clicks;
    if (m.clicks.length === 1 && !onBoard.has(click) && !wanted.has(click)) wanted.set(click, click[0].toUpperCase() + click.slice(1));
  }
  for (const [name, label] of wanted) {
    const button = document.createElement("button");
    button.id = `button-${name}`;
    button.textContent = label;
    const legal = view.moves.find((m) => m.clicks.length === 1 && m.clicks[0] === name);
    button.disabled = !legal || ui.prefix.length > 0;
    button.onclick = () => sendMove(legal.name);
    buttons.appendChild(button);
  }
  const done = complete();
  $("stop-here").hidden = !(done && targets.size > 0);
  $("stop-here").onclick = () => done && sendMove(done.name);
  const myTurn = view.moves.length > 0;
  $("hint").disabled = !myTurn || ui.busy;
  $("undo").disabled = !view.can_undo || ui.busy;
  $("step").disabled = !(view.agent_to_move && ui.paused);
  $("record").hidden = !view.record_ready;
  $("record").href = `/api/games/${view.id}/record`;
  const log = $("log");
  log.replaceChildren();
  for (const entry of view.log) {
    const li = document.createElement("li");
    li.textContent = `${b.players[entry.player]}: ${entry.move}`;
    if (entry.summary) {
      const s = document.createElement("span");
      s.className = "summary";
      s.textContent = entry.summary;
      li.appendChild(s);
    }
    log.appendChild(li);
  }
  log.scrollTop = log.scrollHeight;
}

function onBoardClick(event) {
  const node = event.target.closest("[data-click]");
  if (!node || !ui.view || ui.replay || ui.busy) return;  // busy: a move is on its way
  const token = node.dataset.click;
  const view = ui.view;
  if (!view.moves.length) {
    say(view.board.to_move === null ? "The game is over: start a new game." : "Wait for your turn.");
    return;
  }
  const next = nextClicks();
  if (next.has(token)) {
    ui.prefix.push(token);
    const rest = nextClicks(), done = complete();
    if (done && rest.size === 0) return sendMove(done.name);  // a complete move with nothing longer
    const words = prompt();
    if (words) say(words, "info");
    else if (done) say("Click on, or click Stop here.", "info");
    else say("");
    return render();
  }
  if (ui.prefix.length && token === ui.prefix[ui.prefix.length - 1]) {
    const done = complete();
    if (done) return sendMove(done.name);
    ui.prefix.pop();  // a second click on the selected piece lets it go
    say("");
    return render();
  }
  if (ui.prefix.length && view.moves.some((m) => m.clicks[0] === token)) {
    ui.prefix = [token];  // another piece of one's own: choose it instead
    say("");
    return render();
  }
  // Not a legal click: the engine says why; nothing changes.
  explain(ui.prefix.concat([token]));
}

async function explain(clicks) {
  try {
    await api("POST", `/api/games/${ui.view.id}/move`, { clicks });
    say("");  // unreachable for an illegal click; refresh in case the page was stale
    show(await api("GET", `/api/games/${ui.view.id}`));
  } catch (error) {
    say(error.message);
  }
}

async function sendMove(name) {
  ui.busy = true;
  ui.prefix = [];
  say("");
  try {
    show(await api("POST", `/api/games/${ui.view.id}/move`, { move: name }));
  } catch (error) {
    say(error.message);
    ui.prefix = [];
    render();
  } finally {
    ui.busy = false;
  }
}

function stopTimer() {
  if (ui.timer) clearTimeout(ui.timer);
  ui.timer = null;
}

function scheduleAgent() {
  stopTimer();
  const view = ui.view;
  if (!view || !view.agent_to_move || view.board.to_move === null || ui.paused) return;
  const delay = view.human === null ? Number($("delay").value) : 50;
  ui.timer = setTimeout(agentMove, delay);
}

// The agent thinks on the server; the page stays live (fetch does not block it).
async function agentMove() {
  ui.timer = null;
  const id = ui.view.id;
  try {
    const view = await api("POST", `/api/games/${id}/agent`);
    if (ui.view && ui.view.id === id) show(view);
  } catch (error) {
    say(error.message);
  }
}

async function hint() {
  $("hint").disabled = true;
  say("Thinking about your move…", "info");
  try {
    const answer = await api("POST", `/api/games/${ui.view.id}/hint`);
    ui.hint = answer;
    say(`Hint: ${answer.move} (${answer.summary})`, "info");
  } catch (error) {
    say(error.message);
  }
  render();
}

async function undo() {
  try {
    show(await api("POST", `/api/games/${ui.view.id}/undo`));
    say("Took back your last move and the reply.", "info");
  } catch (error) {
    say(error.message);
  }
}

// ---- tournament runs -----------------------------------------------------------------------

async function listRuns() {
  const box = $("runs-list");
  box.innerHTML = "";
  try {
    const data = await api("GET", "/api/runs");
    const head = document.createElement("p");
    head.className = "small";
    head.textContent = data.runs.length ? `Runs in ${data.runs_dir}:` : `No runs in ${data.runs_dir} (arena run writes them; arena serve --runs DIR).`;
    box.appendChild(head);
    for (const name of data.runs) {
      const button = document.createElement("button");
      button.textContent = name;
      button.onclick = () => showRun(name);
      box.appendChild(button);
    }
  } catch (error) {
    say(error.message);
  }
}

function cell(row, text, tag) {
  const c = document.createElement(tag || "td");
  c.textContent = text;
  row.appendChild(c);
  return c;
}

async function showRun(name) {
  stopTimer();
  ui.view = null;
  const out = $("run-view");
  try {
    const run = await api("GET", `/api/runs/${encodeURIComponent(name)}`);
    out.innerHTML = "";
    $("board").replaceChildren();
    $("status").textContent = run.settings;
    $("result").textContent = "";
    const table = document.createElement("table");
    table.id = "standings";
    const head = table.insertRow();
    for (const h of ["Rank", "Agent", "Elo", "95% interval", "Games", "Score", "Draws"]) cell(head, h, "th");
    for (const s of run.standings) {
      const row = table.insertRow();
      for (const v of [s.rank, s.agent, s.elo === null ? "-" : (s.elo > 0 ? "+" : "") + s.elo, s.interval === null ? "-" : `[${s.interval.map(x => (x > 0 ? "+" : "") + x).join(", ")}]`, s.games, s.score, s.draws]) cell(row, v);
    }
    out.appendChild(table);
    for (const plot of run.plots) {
      const img = document.createElement("img");
      img.src = `/api/runs/${encodeURIComponent(name)}/plot/${plot}`;
      img.alt = plot;
      out.appendChild(img);
    }
    const games = document.createElement("table");
    games.id = "run-games";
    const gh = games.insertRow();
    for (const h of ["Game", "Players", "Result", "Plies", "End", ""]) cell(gh, h, "th");
    for (const g of run.games) {
      const row = games.insertRow();
      cell(row, g.id);
      cell(row, `${g.players[0]} vs ${g.players[1]}`);
      cell(row, g.result > 0 ? "1-0" : g.result < 0 ? "0-1" : "½-½");
      cell(row, g.plies);
      cell(row, g.end_reason);
      const button = document.createElement("button");
      button.textContent = "Replay";
      button.className = "replay";
      button.onclick = () => replayGame(name, g.id);
      row.insertCell().appendChild(button);
    }
    out.appendChild(games);
  } catch (error) {
    say(error.message);
  }
}

async function replayGame(name, id) {
  try {
    const data = await api("GET", `/api/runs/${encodeURIComponent(name)}/games/${id}`);
    ui.replay = { data, ply: 0 };
    $("replay-controls").hidden = false;
    $("replay-slider").max = data.positions.length - 1;
    showReplay(0);
    $("board").scrollIntoView({ behavior: "smooth" });
  } catch (error) {
    say(error.message);
  }
}

function showReplay(ply) {
  const { data } = ui.replay;
  ply = Math.max(0, Math.min(data.positions.length - 1, ply));
  ui.replay.ply = ply;
  const position = data.positions[ply];
  const view = { ...position, family: data.family, layout: data.layout, human: null, moves: [] };
  $("board").replaceChildren(drawBoard(view, {}));
  $("replay-slider").value = ply;
  const last = ply > 0 ? data.positions[ply - 1].move : null;
  $("replay-ply").textContent = `ply ${ply} of ${data.positions.length - 1}${last ? `, after ${last}` : ""}`;
  $("status").textContent = `${data.players[0]} vs ${data.players[1]}`;
  $("result").textContent = ply === data.positions.length - 1 ? data.result : "";
}

// ---- wiring --------------------------------------------------------------------------------

function setTab(tab) {
  ui.tab = tab;
  document.body.dataset.tab = tab;
  for (const b of document.querySelectorAll("button.tab")) b.classList.toggle("active", b.dataset.tab === tab);
  $("setup").hidden = tab === "runs";
  $("runs-list").hidden = tab !== "runs";
  if (tab === "runs") { stopTimer(); listRuns(); }
}

// Each game's drawing is a script of its own folder (served as /games/<family>.js).
function loadScript(src) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`could not load the drawing ${src}`));
    document.head.appendChild(script);
  });
}

async function start() {
  ui.catalog = await api("GET", "/api/catalog");
  // A drawing that fails to load leaves its game to the text drawing; the page goes on.
  const drawings = new Set(ui.catalog.games.map((g) => g.drawing).filter(Boolean));
  await Promise.all([...drawings].map((src) => loadScript(src).catch((error) => console.warn(error.message))));
  for (const g of ui.catalog.games) $("game").add(new Option(`${g.name}`, g.name));
  for (const a of ui.catalog.agents) $("agent-specs").appendChild(new Option(a.name, a.name));
  $("agent-help").textContent = "Agents: " + ui.catalog.agents.filter((a) => !a.sees_everything).map((a) => a.name).join(", ") + " (name:key=value,...)";
  $("game").onchange = fillParams;
  fillParams();
  $("new-game").onclick = newGame;
  $("hint").onclick = hint;
  $("undo").onclick = undo;
  $("pause").onclick = () => {
    ui.paused = !ui.paused;
    $("pause").textContent = ui.paused ? "Resume" : "Pause";
    render();
    scheduleAgent();
  };
  $("step").onclick = () => { if (ui.paused && ui.view && ui.view.agent_to_move) agentMove(); };
  $("replay-first").onclick = () => showReplay(0);
  $("replay-prev").onclick = () => showReplay(ui.replay.ply - 1);
  $("replay-next").onclick = () => showReplay(ui.replay.ply + 1);
  $("replay-last").onclick = () => showReplay(1e9);
  $("replay-slider").oninput = (e) => showReplay(Number(e.target.value));
  for (const b of document.querySelectorAll("button.tab")) b.onclick = () => setTab(b.dataset.tab);
  document.addEventListener("keydown", (e) => { if (e.key === "Escape" && ui.view) { ui.prefix = []; say(""); render(); } });
  setTab("play");
  document.body.dataset.ready = "1";
}

start().catch((error) => say(error.message));
