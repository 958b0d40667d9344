// What each mode does with a reading. Every answer comes from the service; these functions only
// ask and then show the answer, on the picture (outlines) and in the mode's panel. The score
// sheet (match.js) and the referee (referee.js) have their own modules.

import { $, api, el, myRack, rackIndices, readableSets, rulesChoice, say, setsText, state, tableText, tilesText } from "./core.js";
import { centreOf } from "./draw.js";
import * as match from "./match.js";
import * as referee from "./referee.js";

let page = null; // {refresh, show, capture} from app.js

// ---- table: each set valid or not, with the reason -------------------------------------------

async function tableMode() {
  const list = $("#table-sets");
  list.replaceChildren();
  const picture = state.pictures.table;
  if (!picture) return;
  const sets = readableSets(picture);
  if (!sets.length) {
    list.append(el("li", {}, picture.scan.tiles.length ? "No sets found on the table." : "No tiles found — move closer."));
    return;
  }
  const verdict = await api("/table/check", { table: tableText(picture), rules: rulesChoice() });
  sets.forEach((set, n) => {
    const answer = verdict.sets[n];
    for (const i of set) state.styles.set(i, answer.valid ? "valid" : "invalid");
    const why = answer.valid ? `${answer.kind}, ${answer.value} points` : answer.reason;
    const unsure = set.filter(i => picture.scan.uncertain.includes(i)).map(i => picture.scan.tiles[i].tile);
    list.append(
      el("li", { class: answer.valid ? "valid" : "invalid" },
        el("span", { class: "set-number" }, el("span", { class: "visually-hidden" }, "Set "), String(n + 1)),
        el("strong", {}, answer.valid ? "✓ " : "✗ "), tilesText(answer.text),
        el("span", { class: "why" }, why),
        unsure.length ? el("span", { class: "unsure-note" }, `? unsure: ${unsure.join(" ")} — check before trusting this`) : null),
    );
  });
  for (const problem of verdict.inventory_problems) list.append(el("li", { class: "invalid" }, problem));
  say(verdict.summary);
}

// ---- my rack: the table and my rack apart, the best move on the picture -----------------------

function setTarget(target) {
  state.target = target;
  for (const step of document.querySelectorAll("#panel-rack .step")) {
    step.setAttribute("aria-pressed", String(step.dataset.target === target));
  }
  $("#capture").textContent = state.mode === "rack" ? (target === "rack" ? "Capture my rack" : "Capture the table") : "Capture";
}

function showSteps() {
  const table = state.pictures.table, rack = state.pictures.rack && !state.pictures.rack.owner ? state.pictures.rack : null;
  const sets = readableSets(table);
  $("#step-table").textContent = table ? `${sets.length} set${sets.length === 1 ? "" : "s"}, ${sets.flat().length} tiles` : "not yet";
  if (rack) $("#step-rack").textContent = `${rackIndices(rack).length} tiles`;
  else if (table && rackIndices(table).length) $("#step-rack").textContent = `${rackIndices(table).length} in the table photo`;
  else $("#step-rack").textContent = "not yet";
}

async function rackMode(next) {
  // A rack scanned for the end of a game is someone else's: it is not my rack.
  if (state.pictures.rack && state.pictures.rack.owner) state.pictures.rack = null;
  showSteps();
  const box = $("#hint-result");
  box.replaceChildren();
  const rack = myRack();
  if (next && next.kind === "table" && !rack.text && !next.corrected) setTarget("rack");
  if (!rack.text) {
    box.append(el("p", {}, state.pictures.table
      ? "Now scan your rack (step 2), or tap the tiles of your rack in the picture and move them to the rack."
      : "Scan the table (step 1) and your rack (step 2), or both in one picture with the rack below."));
    return;
  }
  const table = tableText(state.pictures.table);
  const hint = await api("/hint", { table, rack: rack.text, opened: $("#opened").checked, rules: rulesChoice() });
  if (rack.unsure.length) {
    box.append(el("p", { class: "unsure-note" }, `Uses tiles the reader is unsure of: ${rack.unsure.join(" ")}. Check them (tap the tile).`));
  }
  if (hint.draw) {
    box.append(el("p", { class: "verdict bad" }, "Draw a tile"), el("p", {}, hint.reason));
    say(`No move: ${hint.reason}`);
    return;
  }
  const played = hint.play;
  markPlayed(rack, played);
  const headline = hint.opening_value
    ? `Open with ${hint.tiles_played} tile${hint.tiles_played === 1 ? "" : "s"}: worth ${hint.opening_value} points`
    : `Play ${hint.tiles_played} tile${hint.tiles_played === 1 ? "" : "s"}`;
  box.append(el("p", { class: "verdict ok" }, headline));
  box.append(el("p", {}, "Play: ", tilesText(played.join(" ")), hint.opening_value ? null : ` (${hint.value_played} points off your rack)`));
  const steps = el("ol");
  for (const line of hint.explanation) steps.append(el("li", {}, line));
  if (hint.explanation.length) box.append(steps);
  box.append(el("p", {}, "Table after: ", tilesText(setsText(hint.table))));
  state.arrows = destinations(rack, played, hint.table);
  const where = rack.source === state.pictures.table ? "the arrows show where each tile goes" : "on the table's picture (step 1) a +tile marks where each goes";
  say(`Best move: ${played.join(" ")} (double purple outline; ${where}).`);
}

// Outline on the rack picture the tiles the move plays (each copy once).
function markPlayed(rack, played) {
  if (rack.source !== state.picture) return;
  const left = new Map();
  for (const tile of played) left.set(tile, (left.get(tile) || 0) + 1);
  for (const i of rack.indices) {
    const label = rack.source.scan.tiles[i].tile;
    if (left.get(label) > 0) {
      state.styles.set(i, "play");
      left.set(label, left.get(label) - 1);
    }
  }
}

// Where each played tile goes, for the picture on screen: an arrow from the rack tile to the
// end of the table set it joins (both in one photo), or a "+r4" marker beside that set (the
// rack in its own photo). A tile that starts a new set gets no arrow: the list says so.
function destinations(rack, played, after) {
  const table = state.pictures.table;
  if (!table || state.picture !== table && state.picture !== rack.source) return [];
  const sets = readableSets(table);
  const afterSets = after; // [[tile, ...], ...]
  const arrows = [];
  const used = new Map();
  for (const tile of played) {
    // The after set holding this tile that shares the most tiles with a set on the picture.
    let best = -1, bestOverlap = 0;
    for (const set of afterSets) {
      if (!set.includes(tile)) continue;
      sets.forEach((members, n) => {
        const labels = members.map(i => table.scan.tiles[i].tile);
        const overlap = labels.filter(l => set.includes(l)).length;
        if (overlap > bestOverlap) { best = n; bestOverlap = overlap; }
      });
    }
    if (best < 0) continue;
    const ends = sets[best].map(i => table.scan.tiles[i].corners);
    const right = ends.reduce((a, c) => (centreOf(c)[0] > centreOf(a)[0] ? c : a));
    const [x, y] = centreOf(right);
    const width = Math.max(...right.map(p => p[0])) - Math.min(...right.map(p => p[0]));
    const count = used.get(best) || 0;
    used.set(best, count + 1);
    const to = [x + width * (0.9 + 0.6 * count), y];
    if (state.picture === table && rack.source === table) {
      const from = rack.indices.find(i => table.scan.tiles[i].tile === tile && !arrows.some(a => a.from === i));
      if (from !== undefined) arrows.push({ from, to, set: best + 1, tile });
    } else if (state.picture === table) {
      arrows.push({ from: null, to, text: `+${tile}`, set: best + 1, tile });
    }
  }
  return arrows;
}

// ---- dispatch ---------------------------------------------------------------------------------

const RUN = { table: tableMode, rack: rackMode, score: match.onPicture, referee: referee.onPicture };

export async function run(mode, next) {
  await RUN[mode](next);
}

// A picture could not be read: what the mode showed for the last one must go.
export function clear(mode, next) {
  if (mode === "table") $("#table-sets").replaceChildren();
  if (mode === "rack") { $("#hint-result").replaceChildren(); showSteps(); }
  if (mode === "score") match.pictureFailed(next);
  if (mode === "referee") referee.pictureFailed(next);
}

// What the next capture or upload is a picture of.
export function nextPicture(mode) {
  if (mode === "rack") return { kind: state.target };
  if (mode === "score") return match.nextPicture();
  if (mode === "referee") return referee.nextPicture();
  return { kind: "table" };
}

export function preferredPicture(mode) {
  if (mode === "rack") return state.target;
  if (mode === "score") return "rack";
  return "table";
}

export function entered(mode) {
  setTarget(state.target);
  if (mode === "score" || mode === "referee") match.show();
  if (mode === "referee") referee.entered();
  else referee.left();
}

export function presetsLoaded() {
  match.presetsLoaded();
}

export function init(pageHooks) {
  page = pageHooks;
  $("#opened").addEventListener("change", page.refresh);
  $("#preset").addEventListener("change", () => { match.show(); page.refresh(); });
  for (const step of document.querySelectorAll("#panel-rack .step")) {
    step.addEventListener("click", () => {
      setTarget(step.dataset.target);
      const kind = step.dataset.target;
      const has = kind === "rack" ? state.pictures.rack && !state.pictures.rack.owner : state.pictures.table;
      if (has) page.show(kind);
      say(kind === "rack" ? "Next picture: your rack, on its own." : "Next picture: the table.");
    });
  }
  match.init(page);
  referee.init(page);
}

export { match, referee };
