// What every part of the page shares: the current reading, the service, the status line.

import { TileTracker } from "./merge.js";

const API = "/api/v1";
const $ = sel => document.querySelector(sel);

// Everything the page knows right now. `scan` is the current reading (with the user's
// corrections applied); `photo` the picture it was read from (null in live mode).
export const state = {
  mode: "table",
  stream: null,
  scan: null,
  photo: null,
  photoBlob: null,
  corrected: new Set(),
  styles: new Map(), // tile index -> outline style chosen by the mode
  live: false,
  busy: false,
  tracker: new TileTracker(),
};

// ---- talking to the service --------------------------------------------------------------

export async function api(path, body, { form = false } = {}) {
  const init = { method: body === undefined ? "GET" : "POST" };
  if (body !== undefined) {
    if (form) init.body = body;
    else {
      init.body = JSON.stringify(body);
      init.headers = { "Content-Type": "application/json" };
    }
  }
  const response = await fetch(API + path, init);
  let data = null;
  try { data = await response.json(); } catch { /* an empty or non-JSON answer */ }
  if (!response.ok) {
    const detail = data && data.detail ? data.detail : `${response.status} ${response.statusText}`;
    throw new Error(typeof detail === "string" ? detail : JSON.stringify(detail));
  }
  return data;
}

export function say(text, { error = false } = {}) {
  const status = $("#status");
  status.textContent = text;
  status.classList.toggle("error", error);
}

export function rulesChoice() {
  const preset = $("#preset").value;
  return preset ? { preset } : {};
}

// ---- the reading as notation ------------------------------------------------------------------

function labelsOf(indices) {
  return indices.map(i => state.scan.tiles[i].tile).filter(Boolean);
}

export function tableText() {
  if (!state.scan) return "";
  return state.scan.sets.map(labelsOf).filter(set => set.length).map(set => set.join(" ")).join(" | ");
}

// The table as notation, and where in it the tiles the reader was unsure of sit
// ({side, set, index}), for the referee: a verdict that hangs on such a tile says so.
export function tableWithSpots(side) {
  const unsure = new Set(state.scan.uncertain);
  const sets = [], spots = [];
  for (const members of state.scan.sets) {
    const readable = members.filter(i => state.scan.tiles[i].tile);
    if (!readable.length) continue;
    readable.forEach((i, index) => unsure.has(i) && spots.push({ side, set: sets.length, index }));
    sets.push(readable.map(i => state.scan.tiles[i].tile).join(" "));
  }
  return { text: sets.join(" | "), spots };
}

export function rackText() {
  if (!state.scan) return "";
  return labelsOf(state.scan.rack).join(" ");
}

