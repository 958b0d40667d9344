// The score sheet of a match: players in seating order, the rule preset fixed when the match
// starts, a target (points or number of games), each game's scores from the service, and
// undo, edit and delete. The service scores and stores every game (/games/{id}/end) and adds
// them up (/games/sheet); the page keeps the match (which games, in which order) in
// localStorage, so a reload or a dead battery loses nothing.

import { $, api, ask, el, rackIndices, say, sayError, setsText, state } from "./core.js";

const KEY = "rummi.match";
const UNDO_KEY = "rummi.match.undo";
const NOT_OPENED_LABEL = { could_not: "never opened, could not have", could_have: "never opened, could have", announced: "never opened, announced" };

// {players, rules: {preset, overrides}, presetTitle, end: {kind, goal}, rounds: [{game, winner,
//  racks, notOpened, scores, explanations}], game: {id, next, table, turns, opened} | null,
//  sheet: {totals, match_winner, finished} | null}
let match = null;
let undoStack = []; // [{what, match (JSON)}]
let page = null;
let scanningFor = null; // whose rack the next picture is
let editing = -1; // index of the round being corrected, or -1 for a new one
const unsure = {}; // player -> tiles the reader was unsure of, until someone confirms them

export function current() {
  return match;
}

export function save() {
  localStorage.setItem(KEY, JSON.stringify(match));
  localStorage.setItem(UNDO_KEY, JSON.stringify(undoStack.slice(-20)));
}

function remember(what) {
  undoStack.push({ what, match: JSON.stringify(match) });
  $("#undo").disabled = false;
}

function presetInfo(name) {
  return (state.presets || []).find(p => p.name === name) || (state.presets || [])[0] || null;
}

// The rules the match plays under, as the preset says them with the match's own changes.
export function matchRules() {
  if (!match) return null;
  const preset = presetInfo(match.rules.preset);
  return preset ? { ...preset.rules, ...match.rules.overrides } : match.rules.overrides;
}

export function isOver() {
  if (!match) return false;
  if (match.end.kind === "score") return Boolean(match.sheet && match.sheet.finished);
  if (match.end.kind === "games") return match.rounds.length >= match.end.goal;
  return false;
}

// ---- starting a match -------------------------------------------------------------------------

function parsePlayers(text) {
  return text.split(",").map(name => name.trim()).filter(Boolean);
}

async function startMatch(event) {
  event.preventDefault();
  const players = parsePlayers($("#players").value);
  if (players.length < 2) return say("Name at least two players, in seating order, separated by commas.", { error: true });
  if (new Set(players.map(p => p.toLowerCase())).size !== players.length) return say("Two players have the same name: tell them apart.", { error: true });
  const presetName = $("#preset").value || (state.presets && state.presets[0] ? state.presets[0].name : null);
  const preset = presetInfo(presetName);
  const overrides = {};
  const limit = parseInt($("#turn-limit").value, 10);
  if (limit > 0 && (!preset || preset.rules.turn_seconds !== limit)) overrides.turn_seconds = limit;
  const kind = $("#match-end").value;
  const goal = parseInt($("#match-goal").value, 10);
  if (kind !== "none" && !(goal > 0)) return say("Say how many points or games the match is played to.", { error: true });
  if (kind === "score") Object.assign(overrides, { match_end: "target_score", target_score: goal });
  if (match) remember(`new match (the previous one was ${match.players.join(", ")})`);
  match = {
    players,
    rules: { preset: presetName, overrides },
    presetTitle: preset ? preset.title : presetName,
    end: { kind, goal: kind === "none" ? null : goal },
    rounds: [],
    game: null,
    sheet: null,
    started: new Date().toISOString(),
  };
  for (const name of Object.keys(unsure)) delete unsure[name];
  editing = -1;
  save();
  show();
  say(`Match for ${players.join(", ")} under ${match.presetTitle}. Referee the turns, or score each game at its end.`);
}

async function askNewMatch() {
  if (match && (match.rounds.length || match.game)) {
    const games = match.rounds.length;
    const yes = await ask(
      `Start a new match? The sheet of ${match.players.join(", ")} (${games} game${games === 1 ? "" : "s"}) is replaced; Undo brings it back.`,
      { yes: "New match", danger: true },
    );
    if (!yes) return;
  }
  $("#new-match").hidden = false;
  $("#match-info").hidden = true;
  if (match) $("#players").value = match.players.join(", ");
  $("#players").focus();
}

// ---- the game in progress (the referee's) -----------------------------------------------------

// The game being played, created at the service on first need.
export async function ensureGame() {
  if (match.game) return match.game;
  const game = await api("/games", { players: match.players, rules: match.rules });
  match.game = { id: game.id, next: game.next_player, table: setsText(game.table), turns: [], opened: {} };
  save();
  return match.game;
}

// Keep what the referee's turn changed: whose turn is next, the table it left, who has opened.
export function recordTurn(out) {
  const game = match.game;
  game.next = out.game.next_player;
  game.table = setsText(out.game.table);
  const verdict = out.turn.verdict;
  if (verdict.opens) game.opened[out.turn.player] = true;
  game.turns.push({
    number: out.turn.number,
    player: out.turn.player,
    status: verdict.status,
    seconds: out.turn.seconds,
    played: verdict.played,
    drew: out.turn.drew,
    why: verdict.violations.length > 1
      ? `${verdict.violations[0].message} (+${verdict.violations.length - 1} more)`
      : verdict.violations.map(v => v.message).join(""),
    penalty: verdict.consequence && verdict.consequence.text,
  });
  save();
}

// ---- the end of a game: racks, never-opened, unsure tiles ---------------------------------------

export function show() {
  const info = $("#match-info"), form = $("#new-match");
  form.hidden = Boolean(match);
  info.hidden = !match;
  $("#round").hidden = !match || isOver();
  $("#export").hidden = !match || !match.rounds.length;
  $("#share").hidden = !navigator.share;
  $("#undo").disabled = !undoStack.length;
  showPresetNote();
  if (!match) {
    $("#sheet").replaceChildren();
    return;
  }
  const rules = matchRules() || {};
  const end = match.end.kind === "score" ? `to ${match.end.goal} points` : match.end.kind === "games" ? `${match.end.goal} games` : "until you stop";
  $("#match-summary").textContent = `${match.players.join(", ")} · game ${match.rounds.length + (isOver() ? 0 : 1)} · ${end}`;
  const limit = rules.turn_seconds ? `${rules.turn_seconds} s a turn` : "no turn limit";
  $("#match-preset").textContent = `Preset: ${match.presetTitle} (fixed for this match) · joker ${rules.joker_penalty ?? "?"} · ${limit}`;
  const chosen = $("#preset").value;
  const change = $("#change-preset");
  const other = chosen && chosen !== match.rules.preset ? presetInfo(chosen) : null;
  change.hidden = !other;
  if (other) change.textContent = `Use ${other.title} for this match…`;
  showRound();
  drawSheet();
}

function showPresetNote() {
  const preset = presetInfo($("#preset").value);
  $("#match-preset-note").textContent = preset
    ? `Preset: ${preset.title} (choose another under Rules before starting; it stays fixed for the match).`
    : "";
  if (preset && !$("#turn-limit").value) $("#turn-limit").placeholder = preset.rules.turn_seconds ? String(preset.rules.turn_seconds) : "none";
}

function showRound() {
  const winner = $("#winner");
  const round = editing >= 0 ? match.rounds[editing] : null;
  const chosen = round ? round.winner : winner.value;
  winner.replaceChildren(...match.players.map(name => new Option(name, name)));
  if (match.players.includes(chosen)) winner.value = chosen;
  const losers = $("#losers");
  const kept = Object.fromEntries([...losers.querySelectorAll("input")].map(input => [input.dataset.player, input.value]));
  const keptOpened = Object.fromEntries([...losers.querySelectorAll("select")].map(s => [s.dataset.player, s.value]));
  losers.replaceChildren();
  const rules = matchRules() || {};
  const penalty = rules.never_opened_penalty;
  for (const name of match.players) {
    if (name === winner.value) continue;
    const input = el("input", { placeholder: "tiles left, e.g. r4 b8 J", "data-player": name, "aria-label": `${name}'s rack`, autocomplete: "off" });
    input.value = round ? round.racks[name] || "" : kept[name] || "";
    input.addEventListener("input", () => { delete unsure[name]; showUnsure(name); });
    const scan = el("button", { type: "button", onclick: () => scanRack(name) }, "Scan rack");
    const box = el("div", { class: "loser", "data-player": name },
      el("strong", {}, name), el("div", { class: "row" }, input, scan), el("div", { class: "unsure-box" }));
    if (penalty) {
      const select = el("select", { "data-player": name, "aria-label": `Did ${name} open?` },
        new Option("Opened", ""),
        new Option(`${NOT_OPENED_LABEL.could_not} (−${penalty[0]})`, "could_not"),
        new Option(`${NOT_OPENED_LABEL.could_have} (−${penalty[1]})`, "could_have"));
      if (rules.never_opened_waiver) select.append(new Option(NOT_OPENED_LABEL.announced, "announced"));
      // A refereed game knows who opened: the service decides the rest from the racks (could
      // the player have opened?) unless someone says otherwise here.
      const refereed = !round && match.game && match.game.turns.length;
      if (refereed) select.prepend(new Option(match.game.opened[name] ? "As refereed (opened)" : "As refereed (never opened)", "auto"));
      // A choice someone made survives a re-render; the default follows the game's record.
      select.value = round ? (round.notOpened || {})[name] || "" : keptOpened[name] || (refereed ? "auto" : "");
      if (select.selectedIndex < 0) select.value = "";
      box.append(el("label", {}, "Opening ", select));
    }
    losers.append(box);
    showUnsure(name);
  }
  $("#score-round").textContent = editing >= 0 ? `Save game ${editing + 1}` : "Score this game";
}

function showUnsure(name) {
  const box = $(`#losers .loser[data-player="${CSS.escape(name)}"] .unsure-box`);
  if (!box) return;
  box.replaceChildren();
  if (!unsure[name] || !unsure[name].length) return;
  box.append(
    el("p", { class: "unsure-note" }, `Unsure: ${unsure[name].join(" ")} — check them on the picture (tap to correct).`),
    el("button", { type: "button", class: "confirm-unsure", onclick: () => { delete unsure[name]; showUnsure(name); say(`${name}'s rack confirmed.`); } },
      "They are right"),
  );
}

function scanRack(name) {
  scanningFor = name;
  if (state.stream) page.capture();
  else say(`Use Photo… for ${name}'s rack.`);
}

export function nextPicture() {
  if (!match) {
    say("Start a match first: name the players.", { error: true });
    return null;
  }
  if (!scanningFor) {
    const empty = [...$("#losers").querySelectorAll("input")].find(input => !input.value.trim());
    scanningFor = empty ? empty.dataset.player : null;
  }
  if (!scanningFor) {
    say("Every rack is filled in: press Scan rack beside a name to scan it again.");
    return null;
  }
  return { kind: "rack", owner: scanningFor };
}

// A rack picture: every tile on it counts, wherever the layout put it; tiles the reader is
// unsure of wait for a person's word before they are scored.
export async function onPicture(next) {
  const picture = state.pictures.rack;
  if (!next || !picture || !picture.owner || next.kind !== "rack") return;
  const name = picture.owner;
  scanningFor = null;
  const input = $(`#losers input[data-player="${CSS.escape(name)}"]`);
  const indices = rackIndices(picture).length ? rackIndices(picture) : picture.scan.tiles.map((_, i) => i).filter(i => picture.scan.tiles[i].tile);
  // Tiles moved out of the rack ("not on my rack") are not counted.
  const counted = indices.filter(i => picture.scan.rack.includes(i) || !picture.scan.sets.some(s => s.includes(i)));
  const tiles = counted.map(i => picture.scan.tiles[i].tile);
  if (input) input.value = tiles.join(" ");
  const doubtful = counted.filter(i => picture.scan.uncertain.includes(i)).map(i => picture.scan.tiles[i].tile);
  if (doubtful.length) unsure[name] = doubtful;
  else delete unsure[name];
  showUnsure(name);
  say(`${name}: ${tiles.join(" ") || "no tiles read"}${doubtful.length ? ` (unsure: ${doubtful.join(" ")})` : ""}`);
}

export function pictureFailed(next) {
  if (next && next.owner) scanningFor = next.owner;
}

async function scoreRound() {
  const winner = $("#winner").value;
  const racks = {}, notOpened = {};
  for (const name of match.players) racks[name] = "";
  for (const input of $("#losers").querySelectorAll("input")) racks[input.dataset.player] = input.value.trim();
  const selects = [...$("#losers").querySelectorAll("select")];
  for (const select of selects) {
    const name = select.dataset.player;
    // "As refereed" beside an explicit answer: the record's word for that player.
    const value = select.value === "auto" ? (match.game && match.game.opened[name] ? "" : "could_not") : select.value;
    if (value) notOpened[name] = value;
  }
  // Every loser left "as refereed": the service decides from the game's record.
  const decided = selects.length && selects.every(select => select.value === "auto") ? null : notOpened;
  const doubtful = Object.keys(unsure).filter(name => name !== winner && unsure[name].length);
  if (doubtful.length) {
    return say(`Check the unsure tiles of ${doubtful.join(", ")} first (correct them on the picture, or press "They are right").`, { error: true });
  }
  const empty = match.players.filter(name => name !== winner && !racks[name]);
  if (empty.length) {
    const yes = await ask(`${empty.join(" and ")} ${empty.length === 1 ? "has" : "have"} no tiles entered. Score ${empty.length === 1 ? "that rack" : "those racks"} as empty (0 points)?`, { yes: "Score as empty" });
    if (!yes) return;
  }
  try {
    if (editing >= 0) {
      const round = await scoreGame(null, racks, winner, notOpened);
      remember(`correcting game ${editing + 1}`);
      match.rounds[editing] = round;
      say(`Game ${editing + 1} corrected.`);
      editing = -1;
    } else {
      const game = match.game && !match.game.finished ? match.game : null;
      const round = await scoreGame(game ? game.id : null, racks, winner, game ? decided : notOpened);
      remember(`scoring game ${match.rounds.length + 1}`);
      match.rounds.push(round);
      match.game = null;
      say(Object.entries(round.explanations).map(([p, why]) => `${p}: ${why}`).join("; "));
    }
    for (const input of $("#losers").querySelectorAll("input")) input.value = "";
    for (const select of $("#losers").querySelectorAll("select")) select.value = "";
    await refreshSheet();
    save();
    show();
    if (isOver()) say(matchOverText());
  } catch (error) {
    sayError(error, scoreRound);
  }
}

// One game scored at the service: the referee's game when there is one, else a new record.
async function scoreGame(gameId, racks, winner, notOpened, rules = match.rules) {
  const id = gameId || (await api("/games", { players: match.players, rules })).id;
  // not_opened left out (null) lets the service decide from the refereed turns; a game scored
  // without a referee always says it, even empty ("everyone opened").
  const body = { racks, winner };
  if (notOpened) body.not_opened = notOpened;
  const ended = await api(`/games/${id}/end`, body);
  return { game: id, winner, racks, notOpened, scores: ended.ending.scores, explanations: ended.ending.explanations };
}

async function refreshSheet() {
  if (!match.rounds.length) {
    match.sheet = null;
    return;
  }
  const sheet = await api(`/games/sheet?${match.rounds.map(r => `games=${r.game}`).join("&")}`);
  match.sheet = { totals: sheet.totals, match_winner: sheet.match_winner, finished: sheet.finished, games_won: sheet.games_won };
}

function matchOverText() {
  const winner = match.sheet && match.sheet.match_winner;
  return winner ? `Match over: ${winner} wins with ${signed(match.sheet.totals[winner])}.` : "Match over: a tie at the top.";
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function drawSheet() {
  if (!match.rounds.length) {
    $("#sheet").replaceChildren();
    return;
  }
  const table = el("table", { class: "sheet" });
  table.append(el("caption", {}, "Score sheet"));
  table.append(el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Game"),
    ...match.players.map(p => el("th", { scope: "col" }, p)), el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, "Change")))));
  const body = el("tbody");
  match.rounds.forEach((round, n) => {
    body.append(el("tr", {},
      el("th", { scope: "row" }, `${n + 1}${round.winner ? ` (${round.winner})` : ""}`),
      ...match.players.map(p => el("td", {}, signed(round.scores[p]))),
      el("td", { class: "actions" },
        el("button", { type: "button", class: "small", "aria-label": `Edit game ${n + 1}`, onclick: () => editRound(n) }, "Edit"),
        el("button", { type: "button", class: "small", "aria-label": `Delete game ${n + 1}`, onclick: () => deleteRound(n) }, "Delete"))));
  });
  table.append(body);
  const totals = match.sheet ? match.sheet.totals : {};
  table.append(el("tfoot", {}, el("tr", {}, el("th", { scope: "row" }, "Total"),
    ...match.players.map(p => el("td", {}, signed(totals[p] ?? 0))), el("td"))));
  const lines = [];
  if (isOver()) lines.push(el("p", { class: "verdict ok" }, matchOverText()));
  else if (match.sheet && match.sheet.match_winner) lines.push(el("p", {}, `Leading: ${match.sheet.match_winner}`));
  else if (match.end.kind === "score" && match.sheet) {
    const best = Math.max(...Object.values(match.sheet.totals));
    lines.push(el("p", {}, `First to ${match.end.goal} wins; the best total so far is ${signed(best)}.`));
  }
  $("#sheet").replaceChildren(table, ...lines);
}

function editRound(n) {
  editing = n;
  delete unsure[match.rounds[n].winner];
  show();
  $("#winner").focus();
  say(`Correct game ${n + 1}, then press Save game ${n + 1}.`);
}

async function deleteRound(n) {
  const yes = await ask(`Delete game ${n + 1} from the sheet? Undo brings it back.`, { yes: "Delete", danger: true });
  if (!yes) return;
  remember(`deleting game ${n + 1}`);
  match.rounds.splice(n, 1);
  editing = -1;
  try {
    await refreshSheet();
  } catch (error) {
    sayError(error);
  }
  save();
  show();
  say(`Game ${n + 1} deleted.`);
}

async function undo() {
  const last = undoStack.pop();
  if (!last) return;
  const scored = new Set(match ? match.rounds.map(r => r.game) : []);
  match = JSON.parse(last.match);
  // Undoing the scoring of the referee's game: that game is over at the service, so its turns
  // cannot go on; the next turn starts a new game.
  if (match && match.game && scored.has(match.game.id)) match.game = null;
  editing = -1;
  save();
  show();
  say(`Undone: ${last.what}.`);
}

// Changing the preset of a running match is a decision, not a side effect of the Rules menu:
// every game on the sheet is scored again under the new preset.
async function changePreset() {
  const preset = presetInfo($("#preset").value);
  if (!preset) return;
  if (match.game && match.game.turns.length) {
    return say("Score the game in progress first: its turns were refereed under the match's preset.", { error: true });
  }
  const yes = await ask(`Play the rest of the match under ${preset.title}? Every game on the sheet is scored again under it.`, { yes: "Change the preset" });
  if (!yes) return;
  const rules = { preset: preset.name, overrides: { ...match.rules.overrides } };
  try {
    const rounds = [];
    for (const round of match.rounds) rounds.push(await scoreGame(null, round.racks, round.winner, round.notOpened || {}, rules));
    remember(`changing the preset to ${preset.title}`);
    match.rules = rules;
    match.presetTitle = preset.title;
    match.rounds = rounds;
    match.game = null;
    await refreshSheet();
    save();
    show();
    say(`The match now plays under ${preset.title}; the sheet was scored again.`);
  } catch (error) {
    sayError(error, changePreset);
  }
}

// ---- export -----------------------------------------------------------------------------------

function csvCell(value) {
  const text = String(value ?? "");
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function sheetCsv() {
  const rows = [["game", "winner", ...match.players]];
  match.rounds.forEach((round, n) => rows.push([n + 1, round.winner, ...match.players.map(p => round.scores[p])]));
  rows.push(["total", "", ...match.players.map(p => (match.sheet ? match.sheet.totals[p] : 0))]);
  return rows.map(row => row.map(csvCell).join(",")).join("\n") + "\n";
}

export function sheetJson() {
  return JSON.stringify({
    players: match.players,
    preset: match.rules.preset,
    rules: matchRules(),
    end: match.end,
    games: match.rounds.map((round, n) => ({ number: n + 1, id: round.game, winner: round.winner, racks: round.racks, scores: round.scores, explanations: round.explanations })),
    totals: match.sheet ? match.sheet.totals : {},
    match_winner: match.sheet ? match.sheet.match_winner : null,
    finished: isOver(),
  }, null, 2);
}

function download(name, type, text) {
  const link = el("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(link);
  link.click();
  link.remove();
}

function stamp() {
  return (match.started || new Date().toISOString()).slice(0, 10);
}

async function share() {
  try {
    await navigator.share({ title: `Rummi score sheet ${stamp()}`, text: sheetCsv() });
  } catch { /* the user closed the share sheet */ }
}

// ---- set-up -----------------------------------------------------------------------------------

export function presetsLoaded() {
  if (match && match.rules.preset) {
    const preset = presetInfo(match.rules.preset);
    if (preset) match.presetTitle = preset.title;
  }
  show();
}

export function init(pageHooks) {
  page = pageHooks;
  try {
    match = JSON.parse(localStorage.getItem(KEY) || "null");
    undoStack = JSON.parse(localStorage.getItem(UNDO_KEY) || "[]");
  } catch {
    match = null;
    undoStack = [];
  }
  $("#new-match").addEventListener("submit", startMatch);
  $("#new-match-button").addEventListener("click", askNewMatch);
  $("#match-end").addEventListener("change", () => {
    const kind = $("#match-end").value;
    $("#match-goal-box").hidden = kind === "none";
    $("#match-goal").value = kind === "games" ? "4" : "250";
  });
  $("#winner").addEventListener("change", () => showRound());
  $("#score-round").addEventListener("click", scoreRound);
  $("#undo").addEventListener("click", undo);
  $("#change-preset").addEventListener("click", changePreset);
  $("#export-csv").addEventListener("click", () => download(`rummi-sheet-${stamp()}.csv`, "text/csv", sheetCsv()));
  $("#export-json").addEventListener("click", () => download(`rummi-sheet-${stamp()}.json`, "application/json", sheetJson()));
  $("#share").addEventListener("click", share);
  show();
}

