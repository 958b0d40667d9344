// Referee mode runs a game: whose turn it is, a large timer over the camera with a warning and an
// alarm at the preset's limit, each turn judged and recorded by the service
// (POST /games/{id}/turns) with its time, and the next turn starting by itself from the table
// the last one left. The screen is kept awake while a game runs. With *Automatic* ticked the
// camera watches the table instead (watch.js): the service's turn tracker finds, judges and
// records each turn, and this page shows the state, the turns and the clock it reports.

import { $, api, ask, el, readableSets, say, sayError, setsText, state, tableWithSpots, tilesText } from "./core.js";
import * as match from "./match.js";
import * as watch from "./watch.js";

let page = null;
let waiting = null; // "before" | "after": what the capture being taken is for
let ticker = null;
let audio = null;
let wakeLock = null;
let lastVerdict = null; // {verdict, picture}: the broken sets are drawn red on that picture
let beforePicture = null; // the picture the running turn's "before" was read from, if any
let starting = false; // the game is being created at the service: a capture now would be lost
state.alarms = []; // [{kind: "warning" | "limit", at}] for the browser test and the curious

function game() {
  const m = match.current();
  return m ? m.game : null;
}

function turn() {
  const g = game();
  return g ? g.turn || null : null;
}

function limit() {
  const rules = match.matchRules();
  return rules && rules.turn_seconds ? rules.turn_seconds : null;
}

// ---- the clock ----------------------------------------------------------------------------------

function clockText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// Warn a quarter of the limit before it (10 s at most): time to finish the move.
function warnAt(seconds) {
  return seconds - Math.min(10, seconds * 0.25);
}

function tick() {
  const t = turn();
  const clock = $("#turn-clock");
  if (!t || state.mode !== "referee") {
    clock.hidden = true;
    return;
  }
  clock.hidden = false;
  const elapsed = (Date.now() - t.startedAt) / 1000;
  const max = limit();
  $("#turn-player").textContent = `${t.player}'s turn`;
  $("#turn-time").textContent = max ? `${clockText(elapsed)} / ${clockText(max)}` : clockText(elapsed);
  const warn = max !== null && elapsed >= warnAt(max) && elapsed < max;
  const over = max !== null && elapsed >= max;
  clock.classList.toggle("warn", warn);
  clock.classList.toggle("over", over);
  if (warn && !t.warned) {
    t.warned = true;
    alarm("warning");
  }
  if (over && !t.alarmed) {
    t.alarmed = true;
    alarm("limit");
  }
}

// A beep (WebAudio) and a buzz (vibration): a short one as the warning, three at the limit.
function alarm(kind) {
  state.alarms.push({ kind, at: Date.now() });
  const beeps = kind === "limit" ? 3 : 1;
  try {
    audio = audio || new AudioContext();
    for (let n = 0; n < beeps; n++) {
      const start = audio.currentTime + n * 0.3;
      const osc = audio.createOscillator(), gain = audio.createGain();
      osc.frequency.value = kind === "limit" ? 880 : 660;
      gain.gain.setValueAtTime(0.25, start);
      gain.gain.exponentialRampToValueAtTime(0.001, start + 0.22);
      osc.connect(gain).connect(audio.destination);
      osc.start(start);
      osc.stop(start + 0.25);
    }
  } catch { /* no sound here: the clock still turns red */ }
  if (navigator.vibrate) navigator.vibrate(kind === "limit" ? [300, 120, 300, 120, 300] : [150]);
  const who = turn() ? turn().player : "The player";
  if (kind === "limit") say(`Time! ${who} is over the ${limit()} s limit.`, { error: true });
  else say(`Hurry, ${who}: ${Math.ceil(limit() - warnAt(limit()))} s left.`);
}

// The phone must not dim in the middle of a turn.
async function keepAwake() {
  if (wakeLock || !("wakeLock" in navigator)) {
    state.wakeLock = wakeLock ? "held" : "unsupported";
    return;
  }
  try {
    wakeLock = await navigator.wakeLock.request("screen");
    state.wakeLock = "held";
    wakeLock.addEventListener("release", () => { wakeLock = null; state.wakeLock = "released"; });
  } catch (error) {
    state.wakeLock = `refused: ${error.name}`;
  }
}

function letSleep() {
  if (wakeLock) wakeLock.release().catch(() => {});
  wakeLock = null;
}

// ---- turns --------------------------------------------------------------------------------------

// `player` and `startedAt` (Date.now() time) default to the game's next player and now; the
// automatic referee passes the tracker's.
function startTurn(before, { player, startedAt, watchStart } = {}) {
  const g = game();
  // One Idempotency-Key per turn: a retry after a lost answer is recorded once, not twice.
  const key = globalThis.crypto && crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
  g.turn = { player: player || g.next, before, startedAt: startedAt || Date.now(), watchStart, warned: false, alarmed: false, key };
  match.save();
  clearInterval(ticker);
  ticker = setInterval(tick, 200);
  keepAwake();
  tick();
  showState();
}

async function startGame() {
  const m = match.current();
  if (!m) return say("Start a match first: name the players in seating order.", { error: true });
  if (match.isOver()) return say("The match is over: start a new match.", { error: true });
  try { audio = audio || new AudioContext(); } catch { /* no sound */ }
  starting = true;
  try {
    const g = await match.ensureGame();
    beforePicture = null;
    startTurn({ text: g.table, spots: [] }); // match.js keeps it as notation
    say(`${g.next} plays. Press Capture when the turn is done, or Drew a tile.`);
  } catch (error) {
    sayError(error, startGame);
  } finally {
    starting = false;
  }
}

async function judge(after) {
  const g = game(), t = turn();
  const seconds = Math.round(((Date.now() - t.startedAt) / 1000) * 10) / 10;
  const rack = $("#ref-rack").value.trim();
  let out;
  try {
    out = await api(`/games/${g.id}/turns`, {
      player: t.player,
      before: t.before.text,
      after: after.text,
      rack: rack || null,
      seconds,
      drew: after.drew ? 1 : 0,
      uncertain: [...t.before.spots, ...after.spots].slice(0, 50),
    }, { headers: { "Idempotency-Key": `game-${g.id}-turn-${t.key}` } });
  } catch (error) {
    // Not judged: the turn goes on, and "after" can be captured again.
    showState();
    throw error;
  }
  match.recordTurn(out);
  $("#ref-rack").value = "";
  lastVerdict = { verdict: out.turn.verdict, picture: after.drew ? null : state.pictures.table };
  showVerdict(out.turn, after);
  // The next turn starts at once, from the table the service says the last one left (the
  // table before it, when the verdict restores it).
  const left = setsText(out.game.table);
  const same = left === after.text;
  const next = same ? { text: after.text, spots: after.spots.map(s => ({ ...s, side: "before" })) } : { text: left, spots: [] };
  beforePicture = same && !after.drew ? state.pictures.table : null;
  startTurn(next);
}

async function drew() {
  if (watch.watching()) return watchDrew();
  const t = turn();
  if (!t) return;
  try {
    await judge({ text: t.before.text, spots: [], drew: true });
  } catch (error) {
    sayError(error, drew);
  }
}

export function nextPicture() {
  if (!match.current()) {
    say("Start a match first: name the players in seating order.", { error: true });
    return null;
  }
  if (starting) {
    say("Starting the game… press Capture again in a moment.");
    return null;
  }
  if (watch.watching()) {
    say("The camera is watching: each turn is found by itself. Stop watching to capture by hand.");
    return null;
  }
  if (!waiting) waiting = turn() ? "after" : "before";
  return { kind: "table", referee: waiting };
}

async function restartTurn() {
  const t = turn();
  if (t) {
    const yes = await ask(`Restart ${t.player}'s turn? The timer starts again and the table is captured again as it is now.`, { yes: "Restart the turn" });
    if (!yes) return;
  }
  waiting = "before";
  page.capture();
}

export async function onPicture(next) {
  const picture = state.pictures.table;
  if (next && next.corrected && turn() && picture && picture === beforePicture && state.shown === "table") {
    // A tile of the table before the running turn was misread: the turn is judged against
    // the corrected table (the turn already judged keeps its verdict).
    turn().before = tableWithSpots(picture, "before");
    match.save();
    say(`Corrected: ${turn().player}'s turn starts from ${turn().before.text || "an empty table"}.`);
  }
  if (!next || !next.referee) {
    markBroken();
    return;
  }
  // What this picture is for travels with it, so a Retry after a failure judges it again.
  const step = next.referee;
  waiting = null;
  if (step === "before") {
    if (!game()) await match.ensureGame();
    beforePicture = picture;
    startTurn(tableWithSpots(picture, "before"));
    say(`${turn().player} plays: the table before the turn is kept. Press Capture when done.`);
    return;
  }
  if (step === "after" && turn()) {
    const after = tableWithSpots(picture, "after");
    await judge(after);
    markBroken();
  }
}

export function pictureFailed(next) {
  if (next && next.referee) waiting = null;
  $("#verdict").replaceChildren();
  lastVerdict = null;
}

// The sets the verdict found broken, drawn red (dashed) on the picture they were seen in; the
// tiles played drawn as played.
function markBroken() {
  if (!lastVerdict || lastVerdict.picture !== state.picture || !state.picture) return;
  const sets = readableSets(state.picture);
  const broken = new Set();
  for (const v of lastVerdict.verdict.violations) {
    if (v.code === "tile_removed") continue;
    for (const n of v.sets || []) broken.add(n);
  }
  sets.forEach((members, n) => {
    for (const i of members) state.styles.set(i, broken.has(n) ? "invalid" : lastVerdict.verdict.status === "legal" ? "valid" : "plain");
  });
}

function showVerdict(recorded, after) {
  const verdict = recorded.verdict;
  const box = $("#verdict");
  const tone = verdict.status === "legal" ? "ok" : verdict.status === "uncertain" ? "unsure" : "bad";
  const title = after.drew && verdict.status === "legal" ? "LEGAL (drew a tile)" : verdict.status.toUpperCase();
  box.replaceChildren(el("p", { class: `verdict ${tone}` }, `${recorded.player}: ${title}`));
  if (verdict.played.length) box.append(el("p", {}, "Played: ", tilesText(verdict.played.join(" "))));
  const list = el("ul");
  for (const v of verdict.violations) {
    const where = v.code !== "tile_removed" && v.sets && v.sets.length ? ` (set ${v.sets.map(n => n + 1).join(", ")}, red on the picture)` : "";
    list.append(el("li", {}, v.message + where));
  }
  if (verdict.violations.length) box.append(list);
  for (const note of verdict.notes || []) box.append(el("p", { class: "help" }, note));
  if (verdict.status !== "legal" && verdict.consequence && verdict.consequence.text) {
    const label = verdict.status === "uncertain" ? "If confirmed: " : "Penalty: ";
    box.append(el("p", { class: "penalty" }, el("strong", {}, label), verdict.consequence.text));
  }
  showState();
}

function showState() {
  const m = match.current(), g = game(), t = turn();
  const whose = $("#ref-whose");
  const auto = watch.watching();
  $("#ref-start").hidden = Boolean(t) || auto;
  $("#ref-start").textContent = g ? `Start ${g.next}'s turn` : "Start the game";
  $("#ref-after").disabled = !t;
  $("#ref-drew").disabled = !t;
  $("#ref-before").disabled = !t;
  // Watching, the camera captures: the buttons of refereeing by hand go away.
  $("#ref-after").hidden = $("#ref-before").hidden = $("#ref-rack-box").hidden = auto;
  $("#ref-auto").checked = auto;
  $("#ref-auto-stop").hidden = !auto;
  $("#ref-amend").disabled = auto; // a session's setting: stop and start again to change it
  $("#ref-auto-state").hidden = !auto;
  $("#turn-state").hidden = !auto;
  $("#ref-help").textContent = auto
    ? "The camera finds each turn by itself: keep it still, looking down at the table. Press Drew a tile when a player draws."
    : "Start the game: each turn's timer starts by itself; press Capture when the player is done.";
  if (state.mode === "referee") $("#capture").textContent = auto ? "Watching…" : t ? "Capture: turn done" : "Capture";
  $("#capture").disabled = auto || !state.stream;
  if (!m) whose.textContent = "Start a match above: the players in seating order.";
  else if (t) {
    const order = m.players;
    const next = order[(order.indexOf(t.player) + 1) % order.length];
    whose.replaceChildren(el("strong", {}, `${t.player}'s turn`), ` · then ${next}`);
  } else whose.textContent = g ? `Game in progress: ${g.next} is next.` : `${m.players[0]} starts.`;
  const list = $("#turns");
  list.replaceChildren();
  for (const rec of g ? g.turns : []) {
    const played = rec.played && rec.played.length ? ` · played ${rec.played.join(" ")}` : rec.drew ? " · drew" : "";
    list.append(el("li", { class: rec.status },
      el("strong", {}, `${rec.player}: ${rec.status === "uncertain" ? "not sure" : rec.status}`),
      ` · ${rec.seconds ?? "?"} s${played}`,
      rec.why ? el("span", { class: "why" }, rec.why) : null));
  }
}

// ---- mode changes -----------------------------------------------------------------------------

export function entered() {
  showState();
  resumeWatching();
  if (turn()) {
    clearInterval(ticker);
    ticker = setInterval(tick, 200);
    keepAwake();
  }
  tick();
}

export function left() {
  $("#turn-clock").hidden = true;
  if (watch.watching()) stopWatching("Automatic refereeing stopped: it runs in Referee mode only.");
  letSleep();
}

// ---- AUTOMATIC REFEREE: the camera finds each turn ---------------------------------------------

// The tracker at the service reads the table, finds each settled change and judges it under the
// game's rules; a session started with the game's id records each turn in the game. The page
// shows what it reports: the state, each turn as it is found, and the clock from when the
// tracker says the turn began.
let watchReason = null; // why the table was last reported disturbed
let answering = Promise.resolve(); // answers are shown in order, one at a time

// Show `out` once the answers before it are shown (one that failed does not hold up the rest).
function inOrder(out) {
  answering = answering.catch(() => {}).then(() => watchAnswer(out));
  return answering;
}

const watchHooks = {
  grab: async () => (await page.grabFrame(1280)).blob,
  answer: inOrder,
  failed: error => {
    page.watching(false);
    showState();
    say(`Automatic refereeing stopped: ${error.message}`, { error: true, retry: error.retry ? startWatching : null });
  },
};

async function startWatching() {
  const m = match.current();
  if (!m || match.isOver() || !state.stream) {
    $("#ref-auto").checked = false;
    if (!m) return say("Start a match first: name the players in seating order.", { error: true });
    if (match.isOver()) return say("The match is over: start a new match.", { error: true });
    return say("Automatic refereeing needs the camera: allow it (Try the camera again).", { error: true });
  }
  try { audio = audio || new AudioContext(); } catch { /* no sound */ }
  starting = true;
  say("Starting to watch the table…");
  try {
    const g = await match.ensureGame();
    const out = await watch.start(g.id, watchHooks, { amendPauses: $("#ref-amend").checked });
    g.turn = null; // the clock starts when the camera has read the table
    match.save();
    watchReason = null;
    page.watching(true);
    showWatch(out);
    say(`Watching the table: keep hands off it until it is read. Then ${out.next_player} plays.`);
  } catch (error) {
    $("#ref-auto").checked = false;
    sayError(error, startWatching);
  } finally {
    starting = false;
  }
  showState();
}

// After a reload, carry on with the session this page was feeding, if the service still has it.
async function resumeWatching() {
  const g = game();
  if (!g || watch.watching() || !state.stream) return;
  const out = await watch.resume(g.id, watchHooks);
  if (!out) return;
  page.watching(true);
  showWatch(out);
  showState();
  say(`Watching the table again: ${out.next_player}'s turn.`);
}

async function stopWatching(message = "Stopped watching: capture each turn by hand, or tick Automatic again.") {
  page.watching(false);
  const stopping = watch.stop(); // no more frames from now on
  showState();
  try {
    await stopping;
    say(message);
  } catch (error) {
    sayError(error);
  }
  // The game goes on by hand from what the service recorded.
  const g = game();
  if (g) {
    try {
      const record = await api(`/games/${g.id}`);
      g.next = record.next_player;
      g.table = setsText(record.table);
    } catch { /* the local record stands */ }
    g.turn = null;
    match.save();
  }
  clearInterval(ticker);
  tick();
  showState();
}

async function watchDrew() {
  try {
    const out = await watch.drew();
    await inOrder(out);
  } catch (error) {
    sayError(error, watchDrew);
  }
}

async function watchAnswer(out) {
  if (!watch.watching()) return;
  for (const event of out.events) {
    if (event.event === "turn" || event.event === "uncertain") watchedTurn(event, out);
    else if (event.event === "disturbed") watchReason = event.reason;
    else if (event.event === "settled" && event.first) say(`Table read: ${event.tiles} tiles. ${out.next_player} plays.`);
    else if (event.event === "settled" && event.restored) say(`The table is back as it was. ${out.next_player} plays.`);
  }
  showWatch(out);
}

const WATCH_STATES = {
  starting: ["reading", "Reading the table: keep hands off it…"],
  settled: ["settled", "Settled: the table is still."],
  settling: ["reading", "Settling: reading what changed…"],
};
const DISTURBED = {
  hand: "Disturbed: a hand over the table.",
  camera: "Disturbed: the camera moved. Keep it still.",
  "tiles hidden": "Disturbed: tiles hidden. Waiting for the hand to lift.",
};

// The tracker's state in the panel and over the camera, and the clock from when it says the
// turn in progress began (its `turn_started`, in session seconds).
function showWatch(out) {
  const [short, long] = out.state === "disturbed"
    ? [watchReason === "camera" ? "camera moved" : "hand", DISTURBED[watchReason] || DISTURBED.hand]
    : WATCH_STATES[out.state] || [out.state, out.state];
  const tiles = out.table.flat().length;
  $("#ref-auto-state").textContent = out.state === "settled" ? `Settled: ${tiles} tiles read, the table is still.` : long;
  $("#ref-auto-state").dataset.state = out.state;
  $("#turn-state").textContent = short;
  page.watchedTable(out.table);
  $("#ref-amend").checked = out.amend_pauses;
  const g = game(), t = turn();
  if (!g) return;
  if (out.turn_started === null) {
    if (t) { g.turn = null; match.save(); }
    clearInterval(ticker);
    tick();
    return;
  }
  if (!t || t.watchStart !== out.turn_started || t.player !== out.next_player) {
    const startedAt = Date.now() - (watch.clock() - out.turn_started) * 1000;
    g.next = out.next_player;
    startTurn({ text: setsText(out.table), spots: [] }, { player: out.next_player, startedAt, watchStart: out.turn_started });
  }
}

// "not sure, check tiles o7 (or r7), J": the tiles an uncertain verdict hangs on, never a verdict.
function checkText(event) {
  const tiles = [...new Set((event.depends_on || []).map(d => (d.alternatives.length ? `${d.tile} (or ${d.alternatives.join(", ")})` : d.tile)))];
  if (tiles.length) return `not sure, check tiles ${tiles.join(", ")}`;
  return `not sure, check the table${event.reason ? ` (${event.reason})` : ""}`;
}

// One turn the tracker found: into the match's list (the service recorded it in the game) and on
// screen with its verdict and consequence.
function watchedTurn(event, out) {
  const unsure = event.event === "uncertain";
  const verdict = event.verdict || { status: "uncertain", played: [], violations: [], opens: false, consequence: null };
  const consequence = verdict.consequence || {};
  const left = consequence.restore_table ? event.before : event.after;
  const g = game();
  // The tracker numbers the session's turns from 1; the game's list holds every turn of the
  // game. Each watched turn keeps the session and the tracker's number it came as, so an amend
  // replaces the very turn it amends (and only one this session showed), never another.
  const last = g.turns[g.turns.length - 1];
  const replaces = Boolean(event.amends && last && last.watched === event.amends && last.session === out.session);
  // An amend that could not be judged changes nothing: the first part's verdict stands (the
  // tracker and the game's record keep it too); only the note below says to check the table.
  const keepsFirstPart = Boolean(event.amends && !event.verdict);
  if (replaces && !keepsFirstPart) {
    // The player went on after a pause: the turn shown at the pause is replaced, not added to.
    g.turns.pop();
    if (!event.opened) delete g.opened[event.player];
  }
  const number = event.game_turn || (replaces ? last.number : g.turns.length + (keepsFirstPart ? 0 : 1));
  if (!keepsFirstPart) {
    match.recordTurn({
      game: { next_player: out.next_player, table: left },
      turn: { number, player: event.player, seconds: event.seconds, drew: event.drew, verdict },
    });
    Object.assign(g.turns[g.turns.length - 1], { watched: event.number, session: out.session });
    if (unsure) g.turns[g.turns.length - 1].why = checkText(event);
    match.save();
  }
  const played = verdict.played || [];
  const what = event.drew ? "drew a tile" : played.length ? `played ${played.join(" ")}` : "played nothing";
  const title = unsure ? checkText(event) : verdict.status.toUpperCase();
  const box = $("#verdict");
  box.replaceChildren(el("p", { class: `verdict ${unsure ? "unsure" : verdict.status === "legal" ? "ok" : "bad"}` },
    `Turn ${number}, ${event.player}${event.amends ? " (went on after a pause)" : ""}: ${title}`));
  box.append(el("p", {}, event.drew ? "Drew a tile" : "Played: ", played.length ? tilesText(played.join(" ")) : event.drew ? "" : "nothing",
    ` · ${event.seconds} s`));
  if (unsure) {
    box.append(el("p", { class: "help" }, "Nothing is decided: look at those tiles on the table. The game goes on."));
  } else {
    const list = el("ul");
    for (const v of verdict.violations) list.append(el("li", {}, v.message));
    if (verdict.violations.length) box.append(list);
    if (consequence.text) {
      box.append(el("p", { class: "penalty" }, verdict.status === "legal" ? "" : el("strong", {}, "Penalty: "), consequence.text));
    }
  }
  if (event.recorded === false) {
    box.append(el("p", { class: "unsure-note" }, `Not in the game's record: ${event.record_error}`));
  }
  lastVerdict = null;
  say(`Turn ${number}: ${event.player} ${what}, ${unsure ? checkText(event) : verdict.status} (${event.seconds} s).`, { error: event.recorded === false });
  showState();
}

export function init(pageHooks) {
  page = pageHooks;
  $("#ref-start").addEventListener("click", startGame);
  $("#ref-after").addEventListener("click", () => {
    waiting = "after";
    page.capture();
  });
  $("#ref-drew").addEventListener("click", drew);
  $("#ref-before").addEventListener("click", restartTurn);
  $("#ref-auto").addEventListener("change", event => (event.target.checked ? startWatching() : stopWatching()));
  $("#ref-auto-stop").addEventListener("click", () => stopWatching());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && turn() && state.mode === "referee") keepAwake();
  });
  showState();
}
