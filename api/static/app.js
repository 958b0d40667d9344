// The camera page: capture or stream the table, show every tile read, and ask the service what
// the current mode wants to know. All game logic stays on the server; this file only moves
// pictures and readings around and draws them.

import { api, rackText, say, state, tableText } from "./core.js";
import { drawScene, tileAt } from "./draw.js";
import * as modes from "./modes.js";

const $ = sel => document.querySelector(sel);

// ---- camera -------------------------------------------------------------------------------------

async function startCamera() {
  const note = $("#stage-note");
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    note.textContent = "No camera here (a phone needs https). Use Photo… to upload a picture.";
    return;
  }
  try {
    state.stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1080 } },
    });
  } catch (error) {
    note.textContent = `Camera not available (${error.name}). Use Photo… to upload a picture.`;
    return;
  }
  const video = $("#video");
  video.srcObject = state.stream;
  await video.play().catch(() => {});
  await new Promise(resolve => (video.videoWidth ? resolve() : video.addEventListener("loadedmetadata", resolve, { once: true })));
  $("#stage").style.aspectRatio = `${video.videoWidth} / ${video.videoHeight}`;
  $("#capture").disabled = false;
  showVideo();
}

function showVideo() {
  state.photo = null;
  $("#stage").classList.add("live");
  $("#camera").hidden = true;
  $("#stage-note").textContent = "Point at the table and press Capture, or turn on Live.";
  redraw();
}

// Leave the moving picture for a still one (after a capture, or to correct a live reading).
function showStill(picture) {
  state.photo = picture;
  $("#stage").classList.remove("live");
  $("#camera").hidden = !state.stream;
}

// A frame of the video as a JPEG, at most `longest` pixels on its long side (enough to read tiles,
// small enough to upload quickly from a phone).
function grabFrame(longest = 1600) {
  const video = $("#video");
  const scale = Math.min(1, longest / Math.max(video.videoWidth, video.videoHeight));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(video.videoWidth * scale);
  canvas.height = Math.round(video.videoHeight * scale);
  canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise(resolve => canvas.toBlob(blob => resolve({ blob, canvas }), "image/jpeg", 0.9));
}

// ---- scanning -----------------------------------------------------------------------------------

async function scanBlob(blob, name = "photo.jpg") {
  const form = new FormData();
  form.append("photo", blob, name);
  // At the end of a game the picture is one player's rack: no sets to look for.
  const layout = state.mode === "score" ? "rack" : "auto";
  return api(`/scan?layout=${layout}`, form, { form: true });
}

async function capture() {
  if (state.busy) return;
  state.busy = true;
  setLive(false);
  say("Reading the tiles…");
  try {
    const { blob, canvas } = await grabFrame();
    await showScan(await scanBlob(blob), canvas, blob);
  } catch (error) {
    say(error.message, { error: true });
  } finally {
    state.busy = false;
  }
}

async function uploadFile(file) {
  if (!file) return;
  state.busy = true;
  setLive(false);
  say(`Reading ${file.name}…`);
  try {
    const result = await scanBlob(file, file.name);
    const image = await createImageBitmap(file, { imageOrientation: "from-image" }).catch(() => null);
    await showScan(result, image, file);
  } catch (error) {
    say(error.message, { error: true });
  } finally {
    state.busy = false;
  }
}

async function showScan(result, picture, blob) {
  state.scan = result;
  state.photoBlob = blob;
  state.corrected = new Set();
  state.styles = new Map();
  showStill(picture);
  $("#stage").style.aspectRatio = `${result.width} / ${result.height}`;
  $("#stage-note").textContent = result.tiles.length ? "Tap a tile to correct it." : "";
  const unsure = result.uncertain.length ? `, ${result.uncertain.length} unsure (dashed, marked ?)` : "";
  say(`${result.tiles.length} tiles read${unsure}.`);
  await afterReading();
}

// Called whenever the reading changed (new photo, a correction, a steady change in live mode).
async function afterReading() {
  for (const i of state.scan.uncertain) state.styles.set(i, "uncertain");
  for (const i of state.corrected) state.styles.set(i, "corrected");
  const table = tableText(), rack = rackText();
  $("#read-text").textContent =
    (table ? `Table: ${table}` : "Table: (nothing)") + (state.scan.rack.length ? `  ·  Rack: ${rack}` : "");
  $("#save-corrections").disabled = !state.corrected.size || !state.photoBlob;
  redraw();
  try {
    await modes.run(state.mode);
  } catch (error) {
    say(error.message, { error: true });
  }
  redraw();
}

// Outlines go on the still photo, or over the video while live mode reads it; over the video
// outside live mode they would point at tiles that may have moved.
function redraw() {
  const canvas = $("#photo");
  if (!state.scan || (!state.photo && !state.live)) {
    canvas.getContext("2d").clearRect(0, 0, canvas.width, canvas.height);
    return;
  }
  const unsure = new Set(state.scan.uncertain);
  const tiles = state.scan.tiles.map((tile, i) => ({ ...tile, style: state.styles.get(i), unsure: unsure.has(i) }));
  drawScene(canvas, state.photo, tiles, state.scan.width, state.scan.height);
}

// ---- live mode ----------------------------------------------------------------------------------

// The picture is "steady" when a tiny grey thumbnail barely changes between two looks; only then
// is a frame sent, so a moving hand or a shaking phone costs no scans and no false readings.
const THUMB = document.createElement("canvas");
THUMB.width = 48;
THUMB.height = 36;
let lastThumb = null, steadyLooks = 0, liveTimer = null, lastSent = 0;

function frameMotion() {
  const ctx = THUMB.getContext("2d", { willReadFrequently: true });
  ctx.drawImage($("#video"), 0, 0, THUMB.width, THUMB.height);
  const pixels = ctx.getImageData(0, 0, THUMB.width, THUMB.height).data;
  const grey = new Float32Array(THUMB.width * THUMB.height);
  for (let i = 0; i < grey.length; i++) grey[i] = (pixels[4 * i] + pixels[4 * i + 1] + pixels[4 * i + 2]) / 3;
  let motion = Infinity;
  if (lastThumb) {
    let sum = 0;
    for (let i = 0; i < grey.length; i++) sum += Math.abs(grey[i] - lastThumb[i]);
    motion = sum / grey.length;
  }
  lastThumb = grey;
  return motion;
}

async function liveTick() {
  if (!state.live) return;
  steadyLooks = frameMotion() < 6 ? steadyLooks + 1 : 0;
  const due = performance.now() - lastSent >= 500; // about two scans a second at most
  if (steadyLooks < 2 || !due || state.busy) return;
  state.busy = true;
  lastSent = performance.now();
  try {
    const { blob, canvas } = await grabFrame(1280);
    const result = await scanBlob(blob, "live.jpg");
    if (!state.live) return;
    state.liveFrame = canvas;
    await mergeLive(result, blob);
  } catch (error) {
    say(error.message, { error: true });
  } finally {
    state.busy = false;
  }
}

// Fold one frame's reading into the tracker; redo the mode's work only when the stable reading
// changed. Sets and rack come from the latest frame's layout, with each tile's merged reading.
async function mergeLive(result, blob) {
  const { changed, tiles, frameToTrack } = state.tracker.update(result.tiles);
  const index = new Map(tiles.map((tile, i) => [tile.id, i]));
  const remap = list => list.map(i => index.get(frameToTrack[i])).filter(i => i !== undefined);
  state.scan = {
    width: result.width,
    height: result.height,
    tiles,
    sets: result.sets.map(remap).filter(set => set.length),
    rack: remap(result.rack),
    uncertain: tiles.map((tile, i) => (tile.confidence < 0.6 ? i : -1)).filter(i => i >= 0),
  };
  state.photoBlob = blob;
  say(`Live: ${tiles.length} tiles steady.`);
  if (changed) {
    state.styles = new Map();
    await afterReading();
  } else {
    redraw();
  }
}

function setLive(on) {
  state.live = on;
  $("#live").checked = on;
  clearInterval(liveTimer);
  if (on) {
    state.tracker.reset();
    state.corrected = new Set();
    showVideo();
    lastThumb = null;
    steadyLooks = 0;
    liveTimer = setInterval(liveTick, 250);
  }
}

// ---- corrections --------------------------------------------------------------------------------

let fixing = -1;
let fixColour = "k";

function openFix(event) {
  if (!state.scan) return;
  const canvas = $("#photo");
  const rect = canvas.getBoundingClientRect();
  // The canvas is drawn with object-fit: contain; undo the letterbox to get image coordinates.
  const scale = Math.min(rect.width / canvas.width, rect.height / canvas.height);
  const x = (event.clientX - rect.left - (rect.width - canvas.width * scale) / 2) / scale;
  const y = (event.clientY - rect.top - (rect.height - canvas.height * scale) / 2) / scale;
  const i = tileAt(state.scan.tiles, x, y);
  if (i < 0) return;
  if (state.live) {
    // Correct a still picture, not a moving one: freeze the frame the reading came from.
    setLive(false);
    showStill(state.liveFrame);
    redraw();
  }
  fixing = i;
  const label = state.scan.tiles[i].tile;
  $("#fix-was").textContent = label || "not a tile";
  pickColour(label && !label.startsWith("J") ? label[0] : "k");
  $("#fix").showModal();
}

function pickColour(letter) {
  fixColour = letter;
  for (const button of document.querySelectorAll("#fix [data-colour]")) {
    button.setAttribute("aria-checked", String(button.dataset.colour === letter));
  }
  for (const button of document.querySelectorAll("#fix .numbers button")) {
    button.className = `ink-${letter}`;
  }
}

function applyFix(label) {
  if (fixing < 0) return;
  state.scan.tiles[fixing] = { ...state.scan.tiles[fixing], tile: label || null, confidence: 1 };
  state.scan.uncertain = state.scan.uncertain.filter(i => i !== fixing);
  state.corrected.add(fixing);
  state.styles.delete(fixing);
  fixing = -1;
  $("#fix").close();
  afterReading();
}

async function saveCorrections() {
  const labels = {
    width: state.scan.width,
    height: state.scan.height,
    tiles: state.scan.tiles.map((tile, i) => ({ tile: tile.tile, corners: tile.corners, corrected: state.corrected.has(i) })),
    sets: state.scan.sets,
    rack: state.scan.rack,
  };
  const form = new FormData();
  form.append("photo", state.photoBlob, "photo.jpg");
  form.append("labels", JSON.stringify(labels));
  try {
    const saved = await api("/corrections", form, { form: true });
    say(`Saved as ${saved.name}: thank you, the next training run will learn from it.`);
    state.corrected = new Set();
    $("#save-corrections").disabled = true;
  } catch (error) {
    say(error.message, { error: true });
  }
}

// ---- wiring -------------------------------------------------------------------------------------

function selectMode(mode) {
  state.mode = mode;
  for (const tab of document.querySelectorAll("#modes button")) {
    tab.setAttribute("aria-selected", String(tab.dataset.mode === mode));
  }
  for (const panel of document.querySelectorAll("[data-panel]")) panel.hidden = panel.dataset.panel !== mode;
  state.styles = new Map();
  if (state.scan) afterReading();
}

async function loadPresets() {
  const select = $("#preset");
  try {
    for (const preset of await api("/presets")) {
      select.append(new Option(preset.title, preset.name));
    }
  } catch (error) {
    say(error.message, { error: true });
  }
}

function init() {
  const numbers = $("#fix .numbers");
  for (let n = 1; n <= 13; n++) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = n;
    button.addEventListener("click", () => applyFix(`${fixColour}${n}`));
    numbers.append(button);
  }
  for (const button of document.querySelectorAll("#fix [data-colour]")) {
    button.addEventListener("click", () => pickColour(button.dataset.colour));
  }
  for (const button of document.querySelectorAll("#fix [data-set]")) {
    button.addEventListener("click", () => applyFix(button.dataset.set));
  }
  for (const tab of document.querySelectorAll("#modes button")) {
    tab.addEventListener("click", () => selectMode(tab.dataset.mode));
  }
  $("#capture").addEventListener("click", capture);
  $("#live").addEventListener("change", event => setLive(event.target.checked));
  $("#file").addEventListener("change", event => uploadFile(event.target.files[0]));
  $("#camera").addEventListener("click", showVideo);
  $("#photo").addEventListener("click", openFix);
  $("#save-corrections").addEventListener("click", saveCorrections);
  const refresh = () => state.scan && afterReading();
  $("#preset").addEventListener("change", refresh);
  modes.init(refresh);
  loadPresets();
  startCamera();
  // For the browser test and for anyone poking at the page from the console.
  window.__rummi = { state };
}

init();
