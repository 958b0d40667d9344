// The automatic referee's line to the service: a watch session for the game (POST /watch), the
// camera's frames posted one at a time at the pace the service answers, the operator's draws and
// Stop. The turn tracker runs at the service (vision/watch, the one `rummi watch` uses); this file
// only moves frames and answers, and referee.js shows them.

import { api, state } from "./core.js";

// A frame is taken at most this often (about 5 a second: the tracker reads only still frames,
// a few per turn). A tick that finds a frame still in flight drops its own: never a queue.
const FRAME_EVERY_MS = 200;
// How long frames may fail one after another (Wi-Fi, a busy service) before watching stops.
const GIVE_UP_MS = 60_000;
const KEY = "rummi.watch"; // {id, game, epoch}: the session, so a reload carries on watching
let session = null; // {id, game, started (performance.now() at session time 0), timer, inFlight, hooks}
let leaving = false; // the page is being unloaded: a frame cut off then is no reason to stop
addEventListener("pagehide", () => { leaving = true; });

// What the browser test (and the curious) can read: frames posted, skipped by the service
// (it was still reading the one before), dropped here (one was still in flight), every event.
state.watch = { session: null, sent: 0, skipped: 0, dropped: 0, failed: 0, events: [] };

export function watching() {
  return session !== null;
}

// Seconds since the session started, by this page's clock: the `time` of each frame and draw.
export function clock() {
  return session ? (performance.now() - session.started) / 1000 : 0;
}

function begin(id, game, started, hooks) {
  session = { id, game, started, timer: null, inFlight: false, hooks };
  state.watch.session = id;
  localStorage.setItem(KEY, JSON.stringify({ id, game, epoch: Date.now() - (performance.now() - started) }));
  session.timer = setInterval(tick, FRAME_EVERY_MS);
}

function end() {
  if (session) clearInterval(session.timer);
  session = null;
  state.watch.session = null;
  localStorage.removeItem(KEY);
}

// hooks: grab() -> a JPEG Blob of the camera now; answer(out) for every answer; failed(error)
// when the session can go on no longer (it was stopped here first).
// amendPauses: a change by the same player's hand soon after their turn settled amends it.
export async function start(gameId, hooks, { amendPauses = true } = {}) {
  end();
  const started = performance.now();
  const out = await api("/watch", { game: gameId, amend_pauses: amendPauses });
  begin(out.session, gameId, started, hooks);
  return out;
}

// After a reload: the session this page was feeding, if the service still has it (a session
// idle 15 minutes is gone). Its clock goes on from where it was, so times never go back.
export async function resume(gameId, hooks) {
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(KEY) || "null"); } catch { /* a damaged entry */ }
  if (!kept || kept.game !== gameId || session) return null;
  let out;
  try {
    out = await api(`/watch/${kept.id}`);
  } catch {
    localStorage.removeItem(KEY);
    return null;
  }
  begin(kept.id, gameId, performance.now() - (Date.now() - kept.epoch), hooks);
  return out;
}

async function tick() {
  const s = session;
  if (!s) return;
  if (s.inFlight) {
    state.watch.dropped += 1;
    return;
  }
  s.inFlight = true;
  try {
    const at = clock();
    const blob = await s.hooks.grab();
    if (!blob) return; // the camera has no picture yet: this tick sends nothing
    const form = new FormData();
    form.append("frame", blob, "frame.jpg");
    const out = await api(`/watch/frame?session=${s.id}&time=${at.toFixed(3)}`, form, { form: true });
    if (session !== s) return; // stopped meanwhile
    state.watch.sent += 1;
    if (!out.processed) state.watch.skipped += 1;
    s.troubleSince = null;
    keep(out.events);
    await s.hooks.answer(out);
  } catch (error) {
    if (session !== s || leaving) return;
    // A Wi-Fi blip, a busy or rate-limited service: this frame is lost, the next tick tries
    // again; only a minute of nothing but trouble (or a refusal) stops the watching.
    const passing = error.retry || error.status === 429;
    s.troubleSince = s.troubleSince ?? performance.now();
    if (!passing || performance.now() - s.troubleSince > GIVE_UP_MS) {
      end();
      s.hooks.failed(error);
    } else {
      state.watch.failed += 1;
    }
  } finally {
    s.inFlight = false;
  }
}

function keep(events) {
  state.watch.events.push(...events);
  state.watch.events.splice(0, Math.max(0, state.watch.events.length - 200));
}

// The player whose turn it is drew a tile: the answer holds the draw's turn event.
export async function drew() {
  const s = session;
  const out = await api(`/watch/${s.id}/draw?time=${clock().toFixed(3)}`, undefined, { method: "POST" });
  keep(out.events);
  return out;
}

// Stop feeding frames and forget the session at the service (already gone is fine).
export async function stop() {
  const s = session;
  end();
  if (!s) return;
  try {
    await api(`/watch/${s.id}`, undefined, { method: "DELETE" });
  } catch (error) {
    if (error.status !== 404) throw error;
  }
}
