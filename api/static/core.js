// What every part of the page shares: the pictures and their readings, the service, the status
// line, a question to the user, and the notation the service takes.

import { TileTracker } from "./merge.js";

const API = "/api/v1";
const TOKEN_KEY = "rummi.token";
export const $ = sel => document.querySelector(sel);

// Everything the page knows right now. A picture is {kind, scan, photo, blob, corrected}: `kind`
// "table" (sets, maybe a rack below them) or "rack" (one player's tiles, no sets); `scan` the
// service's reading with the user's corrections applied; `photo` what it was read from. The
// table and my rack are kept apart so the hint can use both; `shown` says which is on screen.
export const state = {
  mode: "table",
  stream: null,
  pictures: { table: null, rack: null },
  shown: "table",
  target: "table", // where the next capture goes in My rack mode
  styles: new Map(), // tile index of the shown picture -> outline style chosen by the mode
  arrows: [], // [{from: tile index, to: [x, y]}]: where the hinted tiles go
  live: false,
  busy: false,
  reads: 0, // readings shown so far (the browser test waits on it)
  scansSent: 0,
  tracker: new TileTracker(),
  get picture() { return this.pictures[this.shown]; },
  get scan() { return this.picture ? this.picture.scan : null; },
};

// ---- the organiser's token ------------------------------------------------------------------

// On a LAN bind the service wants `Authorization: Bearer <token>`. The link (or QR code) a phone
// opens carries it as `#token=...`: keep it, and take it out of the address bar so it is not
// shown, bookmarked or shared by accident.
export function takeTokenFromUrl() {
  const match = location.hash.match(/(?:^#|&)token=([^&]+)/);
  if (!match) return;
  localStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
  const rest = location.hash.replace(/(?:^#|&)token=[^&]+/, "").replace(/^&/, "");
  history.replaceState(null, "", location.pathname + location.search + (rest ? `#${rest}` : ""));
}

// ---- talking to the service --------------------------------------------------------------

// A failure a person can act on: `message` says what to do, `retry` (when set) is worth a button.
export class Trouble extends Error {
  constructor(message, { status = 0, retry = false } = {}) {
    super(message);
    this.status = status;
    this.retry = retry;
  }
}

export async function api(path, body, { form = false, method, headers = {} } = {}) {
  const init = { method: method || (body === undefined ? "GET" : "POST"), headers: { ...headers } };
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    if (form) init.body = body;
    else {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
  }
  let response;
  try {
    response = await fetch(API + path, init);
  } catch {
    throw new Trouble("Can't reach the Rummi server — same Wi-Fi? Is it still running?", { retry: true });
  }
  let data = null;
  try { data = await response.json(); } catch { /* an empty or non-JSON answer */ }
  if (!response.ok) {
    if (response.status === 401) {
      throw new Trouble("This server wants the organiser's link: open the page from its QR code or printed URL again.", { status: 401 });
    }
    const detail = data && data.detail ? data.detail : `${response.status} ${response.statusText}`;
    const text = typeof detail === "string" ? detail : JSON.stringify(detail);
    throw new Trouble(text, { status: response.status, retry: response.status >= 500 || response.status === 409 });
  }
  return data;
}

let retryAction = null;

// The status line. `retry`: a function the Retry button beside the message runs again.
export function say(text, { error = false, retry = null } = {}) {
  $("#status-text").textContent = text;
  $("#status").classList.toggle("error", error);
  retryAction = retry;
  $("#retry").hidden = !retry;
}

export function sayError(error, retry = null) {
  say(error.message, { error: true, retry: error.retry ? retry : null });
}

export function initStatus() {
  $("#retry").addEventListener("click", () => {
    const again = retryAction;
    say("Trying again…");
    if (again) again();
  });
}

// A question in a modal dialog (never the browser's confirm(), which a phone may suppress).
// Resolves true for `yes`, false for `no` or Escape.
export function ask(question, { yes = "Yes", no = "Cancel", danger = false } = {}) {
  const dialog = $("#ask");
  $("#ask-text").textContent = question;
  const ok = $("#ask-yes"), cancel = $("#ask-no");
  ok.textContent = yes;
  cancel.textContent = no;
  ok.classList.toggle("danger", danger);
  return new Promise(resolve => {
    const done = answer => {
      ok.onclick = cancel.onclick = dialog.oncancel = null;
      dialog.close();
      resolve(answer);
    };
    ok.onclick = () => done(true);
    cancel.onclick = () => done(false);
    dialog.oncancel = () => done(false);
    dialog.showModal();
    ok.focus();
  });
}

export function rulesChoice() {
  const preset = $("#preset").value;
  return preset ? { preset } : {};
}

// ---- small DOM helpers ------------------------------------------------------------------------

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

export function inkClass(word) {
  return word === "|" ? "" : word[0] === "J" ? "ink-J" : `ink-${word[0]}`;
}

// Notation with each tile in its ink colour.
export function tilesText(text) {
  const span = el("span", { class: "notation" });
  const words = text.split(/\s+/).filter(Boolean);
  words.forEach((word, i) => {
    span.append(el("span", { class: `tile ${inkClass(word)}` }, word));
    if (i < words.length - 1) span.append(" ");
  });
  return span;
}

// ---- a picture's reading as notation ------------------------------------------------------------

// The sets of a picture that hold a readable tile, as lists of tile indices. Their order is the
// set numbers shown on the picture and in the lists (1-based), so "set 2" means the same thing
// everywhere.
export function readableSets(picture) {
  if (!picture) return [];
  const { scan } = picture;
  return scan.sets.map(set => set.filter(i => scan.tiles[i].tile)).filter(set => set.length);
}

// A table in the service's JSON form (a list of sets, each a list of tiles) as notation text.
export function setsText(sets) {
  return sets.map(set => set.join(" ")).join(" | ");
}

export function tableText(picture = state.pictures.table) {
  return readableSets(picture).map(set => set.map(i => picture.scan.tiles[i].tile).join(" ")).join(" | ");
}

// The table as notation, and where in it the tiles the reader was unsure of sit
// ({side, set, index}), for the referee: a verdict that hangs on such a tile says so.
export function tableWithSpots(picture, side) {
  if (!picture) return { text: "", spots: [], sets: [] };
  const unsure = new Set(picture.scan.uncertain);
  const sets = readableSets(picture);
  const spots = [];
  sets.forEach((set, n) => set.forEach((i, index) => unsure.has(i) && spots.push({ side, set: n, index })));
  return { text: sets.map(set => set.map(i => picture.scan.tiles[i].tile).join(" ")).join(" | "), spots, sets };
}

// Indices of a picture's rack tiles that were read.
export function rackIndices(picture) {
  if (!picture) return [];
  return picture.scan.rack.filter(i => picture.scan.tiles[i].tile);
}

// My rack for the hint: the rack photo when there is one (it replaces the rack seen below the
// table, which is the same rack from further away), else the rack part of the table photo.
export function myRack() {
  const source = state.pictures.rack || state.pictures.table;
  const indices = rackIndices(source);
  return {
    source,
    indices,
    text: indices.map(i => source.scan.tiles[i].tile).join(" "),
    unsure: indices.filter(i => source.scan.uncertain.includes(i)).map(i => source.scan.tiles[i].tile),
  };
}
