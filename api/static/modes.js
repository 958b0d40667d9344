// What each mode does with a reading. Every answer comes from the service; these functions
// only ask and then show the answer, on the picture (outline colours) and in the mode's panel.

import { api, rackText, rulesChoice, say, state, tableText, tableWithSpots } from "./core.js";

const $ = sel => document.querySelector(sel);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

// Notation with each tile in its ink colour.
function tilesText(text) {
  const span = el("span", { class: "notation" });
  const words = text.split(/\s+/).filter(Boolean);
  words.forEach((word, i) => {
    const ink = word === "|" ? "" : word[0] === "J" ? "ink-J" : `ink-${word[0]}`;
    span.append(el("span", { class: `tile ${ink}` }, word));
    if (i < words.length - 1) span.append(" ");
  });
  return span;
}

// ---- table: each set valid or not, with the reason -------------------------------------------

async function tableMode() {
  const list = $("#table-sets");
  list.replaceChildren();
  const sets = state.scan.sets.filter(set => set.some(i => state.scan.tiles[i].tile));
  if (!sets.length) {
    list.append(el("li", {}, "No sets found on the table."));
    return;
  }
  const verdict = await api("/table/check", { table: tableText(), rules: rulesChoice() });
  // Sets with no readable tile are left out of tableText(); walk both lists in step.
  sets.forEach((set, n) => {
    const answer = verdict.sets[n];
    for (const i of set) state.styles.set(i, answer.valid ? "valid" : "invalid");
    const why = answer.valid ? `${answer.kind}, ${answer.value} points` : answer.reason;
    list.append(
      el("li", { class: answer.valid ? "valid" : "invalid" },
        el("strong", {}, answer.valid ? "✓ " : "✗ "), tilesText(answer.text), el("span", { class: "why" }, why)),
    );
  });
  for (const problem of verdict.inventory_problems) list.append(el("li", { class: "invalid" }, problem));
  say(verdict.summary);
}

// ---- my rack: the best move, shown on the picture ------------------------------------------------

async function rackMode() {
  const box = $("#hint-result");
  box.replaceChildren();
  const rack = rackText();
  if (!rack) {
    box.append(el("p", {}, "No rack in the picture: show your tiles below the table, apart from the sets."));
    return;
  }
  const hint = await api("/hint", {
    table: tableText(),
    rack,
    opened: $("#opened").checked,
    rules: rulesChoice(),
  });
  const played = new Map();
  for (const tile of hint.play) played.set(tile, (played.get(tile) || 0) + 1);
  // Outline on the picture the rack tiles the move plays (each copy once).
  for (const i of state.scan.rack) {
    const label = state.scan.tiles[i].tile;
    if (played.get(label) > 0) {
      state.styles.set(i, "play");
      played.set(label, played.get(label) - 1);
    }
  }
  if (hint.draw) {
    box.append(el("p", { class: "verdict bad" }, "Draw a tile"), el("p", {}, hint.reason));
    say(`No move: ${hint.reason}`);
    return;
  }
  box.append(el("p", { class: "verdict ok" }, `Play ${hint.tiles_played} tile${hint.tiles_played === 1 ? "" : "s"} (${hint.value_played} points)`));
  box.append(el("p", {}, "Play: ", tilesText(hint.play.join(" "))));
  const steps = el("ol");
  for (const line of hint.explanation) steps.append(el("li", {}, line));
  if (hint.explanation.length) box.append(steps);
  box.append(el("p", {}, "Table after: ", tilesText(hint.table.map(set => set.join(" ")).join(" | "))));
  say(`Best move: ${hint.play.join(" ")} (outlined in purple).`);
}

// ---- end of game: each loser's rack, the score, the running sheet --------------------------------

// A match is a run of games between the same players; the service keeps each game, the page
// keeps the list of their ids (in localStorage, so a reload does not lose the sheet).
const MATCH_KEY = "rummi.match";
let match = null; // {players, rules, games: [ids], sheet}
let scanningFor = null; // the player whose rack the next picture is

async function newGame(event) {
  event.preventDefault();
  const players = $("#players").value.split(",").map(name => name.trim()).filter(Boolean);
  if (players.length < 2) {
    say("Name at least two players, separated by commas.", { error: true });
    return;
  }
  match = { players, rules: rulesChoice(), games: [], sheet: null };
  localStorage.setItem(MATCH_KEY, JSON.stringify(match));
  showMatch();
  say(`New score sheet for ${players.join(", ")}. At the end of each game pick the winner and scan the others' racks.`);
}

function showMatch() {
  $("#round").hidden = !match;
  if (!match) return;
  const winner = $("#winner");
  const chosen = winner.value;
  winner.replaceChildren(...match.players.map(name => new Option(name, name)));
  if (match.players.includes(chosen)) winner.value = chosen;
  const losers = $("#losers");
  const kept = Object.fromEntries([...losers.querySelectorAll("input")].map(input => [input.dataset.player, input.value]));
  losers.replaceChildren();
  for (const name of match.players) {
    if (name === winner.value) continue;
    const input = el("input", { placeholder: "tiles left, e.g. r4 b8 J", "data-player": name, "aria-label": `${name}'s rack` });
    input.value = kept[name] || "";
    const button = el("button", { type: "button" }, "Scan rack");
    button.addEventListener("click", () => {
      scanningFor = name;
      say(`Capture ${name}'s rack.`);
    });
    losers.append(el("div", { class: "loser" }, el("strong", {}, name), el("div", { class: "row" }, input, button)));
  }
  drawSheet();
}

function drawSheet() {
  const sheet = match.sheet;
  if (!sheet) {
    $("#sheet").replaceChildren();
    return;
  }
  const table = el("table", { class: "sheet" });
  table.append(el("thead", {}, el("tr", {}, el("th", {}, "Game"), ...match.players.map(p => el("th", {}, p)))));
  const body = el("tbody");
  sheet.games.forEach((game, n) => {
    body.append(el("tr", {}, el("td", {}, String(n + 1)), ...match.players.map(p => el("td", {}, signed(game.scores[p])))));
  });
  table.append(body);
  table.append(el("tfoot", {}, el("tr", {}, el("td", {}, "Total"), ...match.players.map(p => el("td", {}, signed(sheet.totals[p]))))));
  const leader = sheet.match_winner ? `Leading: ${sheet.match_winner}` : "";
  $("#sheet").replaceChildren(table, el("p", {}, leader));
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

async function scoreRound() {
  const racks = {};
  for (const name of match.players) racks[name] = "";
  for (const input of $("#losers").querySelectorAll("input")) racks[input.dataset.player] = input.value.trim();
  try {
    const game = await api("/games", { players: match.players, rules: match.rules });
    const ended = await api(`/games/${game.id}/end`, { racks, winner: $("#winner").value });
    match.games.push(game.id);
    match.sheet = await api(`/games/sheet?${match.games.map(id => `games=${id}`).join("&")}`);
    localStorage.setItem(MATCH_KEY, JSON.stringify(match));
    say(Object.entries(ended.ending.explanations).map(([p, why]) => `${p}: ${why}`).join("; "));
    for (const input of $("#losers").querySelectorAll("input")) input.value = "";
    showMatch();
  } catch (error) {
    say(error.message, { error: true });
  }
}

async function scoreMode() {
  if (!scanningFor && match) {
    // No player chosen: the picture is the first loser's rack without one.
    const empty = [...$("#losers").querySelectorAll("input")].find(input => !input.value);
    scanningFor = empty ? empty.dataset.player : null;
  }
  if (!scanningFor) return;
  const input = $(`#losers input[data-player="${CSS.escape(scanningFor)}"]`);
  // A rack photo: every tile counts, wherever the layout put it.
  const all = state.scan.tiles.map(t => t.tile).filter(Boolean).join(" ");
  if (input) input.value = all;
  say(`${scanningFor}: ${all || "no tiles read"}`);
  scanningFor = null;
}

function restoreMatch() {
  try {
    match = JSON.parse(localStorage.getItem(MATCH_KEY) || "null");
  } catch {
    match = null;
  }
  showMatch();
}

// ---- referee: before and after, a turn timer, the verdict and the penalty -------------------------

const referee = { before: null, waiting: null, started: 0, timer: null, limit: null };

function tick() {
  const seconds = Math.floor((performance.now() - referee.started) / 1000);
  const text = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  const timer = $("#timer");
  timer.textContent = referee.limit ? `${text} / ${Math.floor(referee.limit / 60)}:${String(referee.limit % 60).padStart(2, "0")}` : text;
  timer.classList.toggle("over", referee.limit !== null && seconds > referee.limit);
}

async function refereeMode() {
  if (referee.waiting === "before") {
    referee.before = tableWithSpots("before");
    referee.waiting = null;
    referee.started = performance.now();
    clearInterval(referee.timer);
    referee.timer = setInterval(tick, 250);
    $("#ref-after").disabled = false;
    showRefState();
    say("Turn started: capture the table again when the player is done.");
  } else if (referee.waiting === "after") {
    referee.waiting = null;
    clearInterval(referee.timer);
    const seconds = (performance.now() - referee.started) / 1000;
    const after = tableWithSpots("after");
    showRefState(after.text);
    const rack = $("#ref-rack").value.trim();
    let verdict;
    try {
      verdict = await api("/turns/judge", {
        before: referee.before.text,
        after: after.text,
        uncertain: [...referee.before.spots, ...after.spots],
        opened: $("#ref-opened").checked,
        rack: rack || null,
        seconds: Math.round(seconds * 10) / 10,
        rules: rulesChoice(),
      });
    } catch (error) {
      // Not judged: the turn goes on, and "after" can be captured again.
      referee.timer = setInterval(tick, 250);
      $("#ref-after").disabled = false;
      throw error;
    }
    showVerdict(verdict);
  }
}

function showRefState(after) {
  const dl = $("#ref-state");
  dl.replaceChildren(el("dt", {}, "Before"), el("dd", {}, tilesText(referee.before.text || "(empty table)")));
  if (after !== undefined) dl.append(el("dt", {}, "After"), el("dd", {}, tilesText(after || "(empty table)")));
}

function showVerdict(verdict) {
  const box = $("#verdict");
  const ok = verdict.status === "legal";
  const tone = ok ? "ok" : verdict.status === "uncertain" ? "unsure" : "bad";
  box.replaceChildren(el("p", { class: `verdict ${tone}` }, verdict.status.toUpperCase()));
  if (verdict.played.length) box.append(el("p", {}, "Played: ", tilesText(verdict.played.join(" "))));
  const list = el("ul");
  for (const v of verdict.violations) list.append(el("li", {}, v.message));
  if (verdict.violations.length) box.append(list);
  for (const note of verdict.notes || []) box.append(el("p", { class: "help" }, note));
  if (!ok && verdict.consequence && verdict.consequence.text) {
    const label = verdict.status === "uncertain" ? "If confirmed: " : "Penalty: ";
    box.append(el("p", { class: "penalty" }, el("strong", {}, label), verdict.consequence.text));
  }
}

async function loadTurnLimit() {
  try {
    const presets = await api("/presets");
    const chosen = $("#preset").value || presets[0].name;
    const preset = presets.find(p => p.name === chosen) || presets[0];
    referee.limit = preset.rules.turn_seconds;
  } catch {
    referee.limit = null;
  }
}

// ---- dispatch ---------------------------------------------------------------------------------

const RUN = { table: tableMode, rack: rackMode, score: scoreMode, referee: refereeMode };

export async function run(mode) {
  if (state.scan) await RUN[mode]();
}

// `refresh` asks again for the current mode's answer and shows it (or the error), as a new
// reading does; the page passes it in, since the redraw lives there.
export function init(refresh) {
  $("#new-game").addEventListener("submit", newGame);
  $("#winner").addEventListener("change", showMatch);
  $("#score-round").addEventListener("click", scoreRound);
  $("#opened").addEventListener("change", refresh);
  $("#ref-before").addEventListener("click", async () => {
    referee.waiting = "before";
    await loadTurnLimit();
    $("#verdict").replaceChildren();
    $("#capture").click();
  });
  $("#ref-after").addEventListener("click", () => {
    referee.waiting = "after";
    $("#ref-after").disabled = true;
    $("#capture").click();
  });
  restoreMatch();
}
