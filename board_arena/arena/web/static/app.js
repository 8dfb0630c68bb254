// The page: setup, clicks turned into moves, the agent's turns, spectator games, tournament runs.
// It knows no game: each is drawn by its own drawing (boards.js), and the legal moves arrive
// with the clicks that make them and the game's words for a click (view.moves, view.prompts).
"use strict";

const $ = (id) => document.getElementById(id);
// epoch: bumped by what makes a pending answer stale (a new game, an undo), which is then dropped.
const ui = {
  catalog: null, tab: "play", view: null, prefix: [], hint: null, busy: false,
  paused: false, timer: null, replay: null, run: null, epoch: 0,
};
// The server's token, which every API request carries (see server.py: who may ask).
const TOKEN = document.querySelector('meta[name="arena-token"]').content;
const RUN_POLL_MS = 1000;   // a run being played: standings, crosstable, SPRT, games in progress
const GAME_POLL_MS = 400;   // a game in progress being watched
const BUSY_RETRY_MS = 1000; // every search slot taken: the agent asks again

async function api(method, path, body) {
  const headers = { "X-Arena-Token": TOKEN };
  if (body) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  let data;
  try {
    data = await response.json();
  } catch (_) {
    data = { error: `HTTP ${response.status}` };
  }
  if (!response.ok) {
    const error = new Error(data.error || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
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
  stopRun();
  ui.epoch += 1;
  const seedText = $("seed").value.trim();
  let seats;
  if (ui.tab === "watch") seats = [$("agent0").value.trim(), $("agent1").value.trim()];
  else {
    const side = $("side-choice").value;  // "random": the server draws it from the seed
    seats = side === "1" ? [$("opponent").value.trim(), null] : [null, $("opponent").value.trim()];
  }
  const body = { game: $("game").value, params: chosenParams(), seats, random_side: ui.tab === "play" && $("side-choice").value === "random" };
  if (seedText) body.seed = Number(seedText);
  if (ui.view) body.replaces = ui.view.id;  // its search, if any, stops
  try {
    ui.paused = false;
    $("pause").textContent = "Pause";
    show(await api("POST", "/api/games", body));
    say("");
    if (window.innerWidth < 800) $("stage").scrollIntoView({ block: "start" });
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
  stopReplay();
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

// A move typed in the game's notation (see "Rules and notation"): the engine checks it, and an
// illegal one comes back with its reason.
async function typedMove() {
  const text = $("move-text").value.trim();
  if (!text || !ui.view || ui.busy) return;
  if (!ui.view.moves.length) {
    say(ui.view.board.to_move === null ? "The game is over: start a new game." : "Wait for your turn.");
    return;
  }
  ui.busy = true;
  ui.prefix = [];
  try {
    show(await api("POST", `/api/games/${ui.view.id}/move`, { move: text }));
    $("move-text").value = "";
    say("");
  } catch (error) {
    say(error.message);
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

// The agent thinks on the server, in a search process; the page stays live (fetch does not
// block it), and an undo or a new game meanwhile stops the search (the answer is then dropped).
async function agentMove() {
  ui.timer = null;
  const epoch = ui.epoch;
  try {
    const view = await api("POST", `/api/games/${ui.view.id}/agent`);
    if (ui.epoch === epoch) show(view);
  } catch (error) {
    if (ui.epoch !== epoch) return;
    say(error.message, error.status === 503 ? "info" : undefined);
    if (error.status === 503) ui.timer = setTimeout(agentMove, BUSY_RETRY_MS);  // every slot busy: ask again
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
  stopTimer();
  ui.epoch += 1;
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
    for (const run of data.runs) {
      const button = document.createElement("button");
      button.textContent = run.name;
      button.dataset.run = run.name;
      if (run.running) {
        const badge = document.createElement("span");
        badge.className = "live-badge";
        badge.textContent = "playing now";
        button.appendChild(badge);
      }
      button.onclick = () => showRun(run.name);
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

// A table of rows of text, the first row its header (as arena report prints them).
function textTable(id, rows) {
  const table = document.createElement("table");
  table.id = id;
  rows.forEach((cells, i) => {
    const row = table.insertRow();
    for (const text of cells) cell(row, text, i === 0 ? "th" : "td");
  });
  return table;
}

function heading(text) {
  const h = document.createElement("h3");
  h.textContent = text;
  return h;
}

function stopRun() {
  if (ui.run && ui.run.timer) clearTimeout(ui.run.timer);
  ui.run = null;
  stopReplay();
}

function stopReplay() {
  if (ui.replay && ui.replay.timer) clearTimeout(ui.replay.timer);
  ui.replay = null;
  $("replay-follow-box").hidden = true;
}

async function showRun(name) {
  stopTimer();
  stopRun();
  ui.epoch += 1;
  ui.view = null;
  ui.run = { name, timer: null, shown: null };
  $("board").replaceChildren();
  $("result").textContent = "";
  $("replay-controls").hidden = true;
  $("run-view").innerHTML = "";
  say("");
  await refreshRun();
}

// A run is fetched again every RUN_POLL_MS while it is being played: its standings, crosstable
// and SPRT change as games end, and the games in progress come and go.
async function refreshRun() {
  const current = ui.run;
  if (!current) return;
  current.timer = null;
  try {
    const run = await api("GET", `/api/runs/${encodeURIComponent(current.name)}`);
    if (ui.run !== current) return;
    renderRun(run);
    // A run not finished may start (again) any moment: looked at less often.
    if (run.running || run.done < run.total) current.timer = setTimeout(refreshRun, run.running ? RUN_POLL_MS : 5 * RUN_POLL_MS);
  } catch (error) {
    if (ui.run !== current) return;
    say(error.message);
    current.timer = setTimeout(refreshRun, 3 * RUN_POLL_MS);  // a database being written may refuse a read for a moment
  }
}

function renderRun(run) {
  const name = ui.run.name;
  ui.run.shown = run;
  if (!ui.replay) $("status").textContent = run.settings;
  const out = $("run-view");
  const parts = [];
  const state = document.createElement("p");
  state.id = "run-state";
  const progress = `${run.done} of ${run.total} games`;
  state.textContent = run.running ? `Being played now: ${progress}, ${run.in_progress.length} in progress (updated live)` : `Not being played: ${progress}`;
  state.className = run.running ? "live" : "";
  parts.push(state);
  const bar = document.createElement("progress");
  bar.id = "run-progress";
  bar.max = run.total;
  bar.value = run.done;
  parts.push(bar);
  if (run.standings.length) {
    parts.push(heading("Standings"), textTable("standings", run.standings));
    parts.push(heading("Crosstable (wins-draws-losses of the row agent against the column agent)"), textTable("crosstable", run.crosstable));
  } else {
    parts.push(heading("No game finished yet."));
  }
  if (run.sprt.length) {
    const pre = document.createElement("pre");
    pre.id = "sprt";
    pre.textContent = run.sprt.join("\n");
    parts.push(pre);
  }
  if (run.in_progress.length) {
    const live = document.createElement("table");
    live.id = "run-live";
    const head = live.insertRow();
    for (const h of ["Game", "Players", "Plies", ""]) cell(head, h, "th");
    for (const g of run.in_progress) {
      const row = live.insertRow();
      cell(row, g.id);
      cell(row, `${g.players[0]} vs ${g.players[1]}`);
      cell(row, g.plies);
      const button = document.createElement("button");
      button.textContent = "Watch";
      button.className = "watch";
      button.dataset.game = g.id;
      button.onclick = () => replayGame(name, g.id);
      row.insertCell().appendChild(button);
    }
    parts.push(heading("Games in progress"), live);
  }
  for (const plot of run.plots) {
    const img = document.createElement("img");
    img.src = `/api/runs/${encodeURIComponent(name)}/plot/${plot}`;
    img.alt = plot;
    parts.push(img);
  }
  if (run.games.length) {
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
    const shown = run.games.length < run.done ? ` (the last ${run.games.length})` : "";
    parts.push(heading(`Finished games${shown}`), games);
  }
  out.replaceChildren(...parts);
}

// A stored game, or one in progress: then fetched again every GAME_POLL_MS, the board following
// its last move (unless the watcher has stepped back) until it ends.
async function replayGame(name, id) {
  stopReplay();
  const replay = { name, id, data: null, ply: 0, timer: null, misses: 0 };
  ui.replay = replay;
  await loadReplay(replay);
}

async function loadReplay(replay) {
  replay.timer = null;
  try {
    const data = await api("GET", `/api/runs/${encodeURIComponent(replay.name)}/games/${replay.id}`);
    if (ui.replay !== replay) return;
    replay.data = data;
    $("replay-controls").hidden = false;
    $("replay-follow-box").hidden = data.over;
    showReplay(data.over ? 0 : data.positions.length - 1);
    if (!data.over) replay.timer = setTimeout(followGame, GAME_POLL_MS);
    $("board").scrollIntoView({ behavior: "smooth", block: "nearest" });
  } catch (error) {
    if (ui.replay !== replay) return;
    // A game that has just ended is briefly neither in progress nor stored (see followGame).
    replay.misses += 1;
    if (error.status === 404 && replay.misses < 25) replay.timer = setTimeout(() => loadReplay(replay), GAME_POLL_MS);
    else say(error.message);
  }
}

async function followGame() {
  const replay = ui.replay;
  if (!replay) return;
  replay.timer = null;
  try {
    const data = await api("GET", `/api/runs/${encodeURIComponent(replay.name)}/games/${replay.id}`);
    if (ui.replay !== replay) return;
    const atEnd = replay.ply === replay.data.positions.length - 1;
    replay.data = data;
    replay.misses = 0;
    $("replay-follow-box").hidden = data.over;
    showReplay(atEnd && $("replay-follow").checked ? data.positions.length - 1 : replay.ply);
    if (!data.over) replay.timer = setTimeout(followGame, GAME_POLL_MS);
  } catch (error) {
    if (ui.replay !== replay) return;
    // Between its last move and its place in the database a game is briefly in neither.
    replay.misses += 1;
    if (error.status === 404 && replay.misses < 25) replay.timer = setTimeout(followGame, GAME_POLL_MS);
    else say(error.message);
  }
}

function showReplay(ply) {
  if (!ui.replay || !ui.replay.data) return;  // still loading
  const { data } = ui.replay;
  ply = Math.max(0, Math.min(data.positions.length - 1, ply));
  ui.replay.ply = ply;
  const position = data.positions[ply];
  const view = { ...position, family: data.family, layout: data.layout, human: null, moves: [] };
  $("board").replaceChildren(drawBoard(view, {}));
  $("replay-slider").max = data.positions.length - 1;
  $("replay-slider").value = ply;
  const last = ply > 0 ? data.positions[ply - 1].move : null;
  const going = data.over ? "" : " so far (in progress)";
  $("replay-ply").textContent = `ply ${ply} of ${data.positions.length - 1}${going}${last ? `, after ${last}` : ""}`;
  $("status").textContent = `Game ${data.id}: ${data.players[0]} vs ${data.players[1]}`;
  $("result").textContent = data.over && ply === data.positions.length - 1 ? data.result : "";
}

// ---- wiring --------------------------------------------------------------------------------

function setTab(tab) {
  ui.tab = tab;
  document.body.dataset.tab = tab;
  for (const b of document.querySelectorAll("button.tab")) b.classList.toggle("active", b.dataset.tab === tab);
  $("setup").hidden = tab === "runs";
  $("runs-list").hidden = tab !== "runs";
  if (tab === "runs") { stopTimer(); listRuns(); } else stopRun();
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
  // The token came in the address; the page keeps it (and the server's cookie) and drops it
  // from the address bar, where a screenshot or a shared link would show it.
  if (location.search.includes("token=")) history.replaceState(null, "", location.pathname);
  // A page that closes or reloads drops its game, whose search then stops.
  window.addEventListener("pagehide", () => {
    if (ui.view) fetch(`/api/games/${ui.view.id}`, { method: "DELETE", headers: { "X-Arena-Token": TOKEN }, keepalive: true });
  });
  ui.catalog = await api("GET", "/api/catalog");
  // A drawing that fails to load leaves its game to the text drawing; the page goes on.
  const drawings = new Set(ui.catalog.games.map((g) => g.drawing).filter(Boolean));
  await Promise.all([...drawings].map((src) => loadScript(src).catch((error) => console.warn(error.message))));
  for (const g of ui.catalog.games) $("game").add(new Option(`${g.name}`, g.name));
  for (const a of ui.catalog.agents) $("agent-specs").appendChild(new Option(a.name, a.name));
  const limits = ui.catalog.limits;
  $("agent-help").textContent = "Agents: " + ui.catalog.agents.filter((a) => !a.sees_everything).map((a) => a.name).join(", ") +
    ` (name:key=value,...; at most ${limits.max_move_time} s a move and ${limits.max_table_mb} MiB of table here)`;
  $("game").onchange = fillParams;
  fillParams();
  $("new-game").onclick = newGame;
  $("move-form").onsubmit = (event) => { event.preventDefault(); typedMove(); };
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
