// The camera page: capture or stream the table, show every tile read, and ask the service what
// the current mode wants to know. All game logic stays on the server; this file only moves
// pictures and readings around and draws them.

import { $, api, el, initStatus, rackIndices, readableSets, say, sayError, state, takeTokenFromUrl, Trouble } from "./core.js";
import { centreOf, drawScene, tileAt } from "./draw.js";
import { frameLook, pictureChanged } from "./look.js";
import { size } from "./merge.js";
import * as modes from "./modes.js";

// ---- camera -------------------------------------------------------------------------------------

async function startCamera() {
  const retry = $("#camera-retry");
  retry.hidden = true;
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    stageNote(location.protocol === "https:" || location.hostname === "localhost" || location.hostname === "127.0.0.1"
      ? "No camera in this browser. Use Photo… to upload a picture."
      : "The camera needs https on a phone (see the README: rummi serve --lan). Use Photo… meanwhile.");
    return;
  }
  try {
    state.stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: "environment" }, width: { ideal: 1920 }, height: { ideal: 1080 } },
    });
  } catch (error) {
    const denied = error.name === "NotAllowedError" || error.name === "SecurityError";
    stageNote(denied
      ? "The camera was not allowed. Allow it in the browser's site settings, then try again, or use Photo…"
      : `No camera found (${error.name}). Use Photo… to upload a picture.`);
    retry.hidden = false;
    return;
  }
  const video = $("#video");
  video.srcObject = state.stream;
  await video.play().catch(() => {});
  await new Promise(resolve => (video.videoWidth ? resolve() : video.addEventListener("loadedmetadata", resolve, { once: true })));
  $("#capture").disabled = false;
  $("#live").disabled = false;
  // A photo uploaded while the camera was starting stays on show (the Camera button now offers the
  // moving picture); only an empty stage switches to the video.
  if (state.picture) showStill();
  else showVideo();
}

function stageNote(text, warning = false) {
  $("#stage-text").textContent = text;
  $("#stage-note").classList.toggle("warn", warning);
}

function showVideo() {
  state.showingVideo = true;
  // The stage takes the video's shape back from the last still's (the camera may be 16:9, a photo 4:3).
  const video = $("#video");
  if (video.videoWidth) $("#stage").style.aspectRatio = `${video.videoWidth} / ${video.videoHeight}`;
  $("#stage").classList.add("live");
  $("#camera").hidden = true;
  stageNote(state.stream ? "Point at the table and press Capture, or turn on Live." : "");
  redraw();
}

// Leave the moving picture for a still one (after a capture, or to correct a live reading).
function showStill() {
  state.showingVideo = false;
  $("#stage").classList.remove("live");
  $("#camera").hidden = !state.stream;
}

// A frame of the video as a JPEG, at most `longest` pixels on its long side (enough to read tiles,
// small enough to upload quickly from a phone).
function grabFrame(longest = 1600) {
  const video = $("#video");
  // No picture yet (the camera is still starting): no frame, rather than an empty image.
  if (!video.videoWidth) return Promise.resolve({ blob: null, canvas: null });
  const scale = Math.min(1, longest / Math.max(video.videoWidth, video.videoHeight));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(video.videoWidth * scale);
  canvas.height = Math.round(video.videoHeight * scale);
  canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
  return new Promise(resolve => canvas.toBlob(blob => resolve({ blob, canvas }), "image/jpeg", 0.9));
}

// ---- scanning -----------------------------------------------------------------------------------

// What the next picture is: the mode decides (my rack or the table; a loser's rack; the table
// before or after a turn). `null` when the mode has said why it cannot take one now.
function nextPicture() {
  return modes.nextPicture(state.mode);
}

async function scanBlob(blob, name, kind) {
  if (!blob) throw new Trouble("The camera has no picture yet: try again in a moment.", { retry: true });
  const form = new FormData();
  form.append("photo", blob, name);
  // A rack photo is read as a rack: no sets to look for. (`kind` is the vision issue's name for
  // the same choice; a service that does not know it ignores it.)
  const layout = kind === "rack" ? "rack" : "auto";
  // The chosen rules' box names the jokers (Expert's and Twist's by colour, the others' J).
  const preset = (state.presets || []).find(p => p.name === $("#preset").value);
  const edition = encodeURIComponent((preset && preset.rules && preset.rules.edition) || "standard");
  state.scansSent += 1;
  return api(`/scan?layout=${layout}&kind=${layout}&edition=${edition}`, form, { form: true });
}

async function capture() {
  if (state.busy) return;
  if (!state.stream) {
    say("No camera: use Photo… to upload a picture.", { error: true });
    return;
  }
  const next = nextPicture();
  if (!next) return;
  state.busy = true;
  setLive(false);
  say("Reading the tiles…");
  let frame;
  try {
    frame = await grabFrame();
    const result = await scanBlob(frame.blob, "photo.jpg", next.kind);
    await showScan(result, frame.canvas, frame.blob, next, frameLook(frame.canvas));
  } catch (error) {
    scanFailed(next, error, capture);
  } finally {
    state.busy = false;
  }
}

async function uploadFile(file) {
  if (!file) return;
  const next = nextPicture();
  if (!next) return;
  state.busy = true;
  setLive(false);
  say(`Reading ${file.name}…`);
  try {
    const result = await scanBlob(file, file.name, next.kind);
    const image = await createImageBitmap(file, { imageOrientation: "from-image" }).catch(() => null);
    await showScan(result, image, file, next, image ? frameLook(image) : null);
  } catch (error) {
    scanFailed(next, error, () => uploadFile(file));
  } finally {
    state.busy = false;
    $("#file").value = "";
  }
}

// A picture that could not be read must not leave the last verdict on screen as if it were its.
function scanFailed(next, error, retry) {
  state.pictures[next.kind] = null;
  state.styles = new Map();
  state.arrows = [];
  modes.clear(state.mode, next);
  showReadText();
  redraw();
  if (error.status === 400 || error.status === 415) {
    say(`That picture could not be read (${error.message}). Take another one.`, { error: true });
  } else {
    sayError(error, retry);
  }
}

async function showScan(result, photo, blob, next, look) {
  const picture = { kind: next.kind, owner: next.owner || null, scan: result, photo, blob, corrected: new Set() };
  state.pictures[next.kind] = picture;
  state.shown = next.kind;
  state.styles = new Map();
  state.arrows = [];
  state.focus = -1;
  showStill();
  $("#stage").style.aspectRatio = `${result.width} / ${result.height}`;
  const { text, warning } = describeReading(result, look);
  // A poor picture's advice stays under it while the mode's answer takes the status line.
  stageNote(warning || (result.tiles.length ? "Tap a tile to correct it or move it between rack and table." : ""), !!warning);
  say(text);
  state.reads += 1;
  await afterReading(next);
}

// The first thing to say about a reading, and advice when the picture was poor: nothing found,
// tiles too small to read (the scan's own advice), too dark (the thumbnail's mean grey), or many
// tiles read unsure (blur, glare, bad light).
function describeReading(result, look) {
  const n = result.tiles.length, unsure = result.uncertain.length;
  if (!n) {
    const warning = look && look.dark ? "Too dark — more light, or hold the phone closer." : "No tiles found — move closer.";
    return { text: warning, warning };
  }
  const text = `${n} tiles read${unsure ? `, ${unsure} unsure (dotted, marked ?): check them` : ""}.`;
  if ((result.advice || []).includes("come closer")) {
    return { text, warning: `Tiles too small to read surely — come closer and take another (${unsure} of ${n} tiles unsure).` };
  }
  if ((look && look.dark) || (unsure >= 2 && unsure * 4 >= n)) {
    return { text, warning: `Too dark or blurry — hold steady and take another (${unsure} of ${n} tiles unsure).` };
  }
  return { text, warning: null };
}

function showReadText() {
  const table = state.pictures.table, rack = state.pictures.rack;
  const parts = [];
  if (table) {
    const sets = readableSets(table).map((set, n) => `${n + 1}: ${set.map(i => table.scan.tiles[i].tile).join(" ")}`);
    parts.push(`Table: ${sets.join("  ") || "(nothing)"}`);
    const onRack = rackIndices(table);
    if (onRack.length) parts.push(`Rack in the table photo: ${onRack.map(i => table.scan.tiles[i].tile).join(" ")}`);
  }
  if (rack) parts.push(`${rack.owner ? `${rack.owner}'s rack` : "My rack"}: ${rackIndices(rack).map(i => rack.scan.tiles[i].tile).join(" ") || "(nothing)"}`);
  $("#read-text").textContent = parts.join("  ·  ") || "Nothing read yet.";
  showTileList();
}

// Every tile of the shown picture as a button: the keyboard's (and a screen reader's) way to
// correct one, the same dialog a tap opens.
function showTileList() {
  const list = $("#tile-list");
  list.replaceChildren();
  const picture = state.picture;
  if (!picture) return;
  const unsure = new Set(picture.scan.uncertain);
  for (const i of readingOrder(picture)) {
    const tile = picture.scan.tiles[i];
    const text = (tile.tile || "?") + (unsure.has(i) ? "?" : "");
    const where = whereIs(picture, i);
    list.append(el("button", {
      type: "button",
      class: `tile-button${unsure.has(i) ? " unsure" : ""}`,
      "aria-label": `${text} ${unsure.has(i) ? "(unsure) " : ""}${where}: correct it`,
      onclick: () => openFix(i),
    }, text));
  }
  $("#save-corrections").disabled = !picture.corrected.size || !picture.blob;
}

// Tiles in the order a person reads them: set 1 left to right, set 2..., then the rack.
function readingOrder(picture) {
  const order = [], seen = new Set();
  for (const set of picture.scan.sets) for (const i of set) if (!seen.has(i)) { seen.add(i); order.push(i); }
  for (const i of picture.scan.rack) if (!seen.has(i)) { seen.add(i); order.push(i); }
  picture.scan.tiles.forEach((_, i) => { if (!seen.has(i)) order.push(i); });
  return order;
}

function whereIs(picture, i) {
  if (picture.scan.rack.includes(i)) return picture.owner ? `on ${picture.owner}'s rack` : "on the rack";
  const sets = readableSets(picture);
  const n = sets.findIndex(set => set.includes(i));
  return n >= 0 ? `table set ${n + 1}` : "not in a set";
}

// Called whenever the reading changed (new photo, a correction, a steady change in live mode).
async function afterReading(next = null) {
  const picture = state.picture;
  if (picture) {
    for (const i of picture.scan.uncertain) state.styles.set(i, "uncertain");
    for (const i of picture.corrected) state.styles.set(i, "corrected");
  }
  showReadText();
  redraw();
  try {
    await modes.run(state.mode, next);
  } catch (error) {
    sayError(error, () => afterReading(next));
  }
  redraw();
}

function cssScale() {
  const canvas = $("#photo");
  const rect = canvas.getBoundingClientRect();
  if (!canvas.width || !rect.width) return 1;
  return Math.min(rect.width / canvas.width, rect.height / canvas.height);
}

// Outlines go on the still photo, or over the video while live mode reads it; over the video
// outside live mode they would point at tiles that may have moved.
function redraw() {
  const canvas = $("#photo");
  const picture = state.picture;
  if (!picture || (state.showingVideo && !state.live)) {
    canvas.getContext("2d").clearRect(0, 0, canvas.width, canvas.height);
    return;
  }
  const { scan } = picture;
  const unsure = new Set(scan.uncertain);
  const tiles = scan.tiles.map((tile, i) => ({ ...tile, style: state.styles.get(i), unsure: unsure.has(i) }));
  const sets = picture.kind === "table" ? readableSets(picture).map((members, n) => ({ number: n + 1, members })) : [];
  // The canvas must have its final size before the CSS scale is known.
  if (canvas.width !== scan.width || canvas.height !== scan.height) {
    canvas.width = scan.width;
    canvas.height = scan.height;
  }
  const scale = cssScale();
  const labels = drawScene(canvas, state.live ? null : picture.photo, tiles, scan.width, scan.height, {
    labels: $("#show-labels").checked,
    sets,
    arrows: state.arrows,
    focus: document.activeElement === canvas ? state.focus : -1,
    cssScale: scale,
  });
  state.drawn = { labels, cssScale: scale };
}

// ---- live mode ----------------------------------------------------------------------------------

// Live mode looks at a tiny grey thumbnail four times a second. A frame is sent only when the
// picture is steady (two looks alike: no hand moving) and it differs from the last frame sent,
// plus the few frames the tracker needs to confirm a reading; a table nobody touches costs no
// scans at all.
let liveTimer = null, lastLook = null, sentLook = null, steadyLooks = 0, sendsSinceChange = 0, lastSent = 0;
const CONFIRM_FRAMES = 3;

async function liveTick() {
  if (!state.live || state.busy) return;
  const look = frameLook($("#video"));
  steadyLooks = lastLook && !pictureChanged(lastLook, look, 6) ? steadyLooks + 1 : 0;
  lastLook = look;
  if (sentLook && pictureChanged(sentLook, look, 4)) sendsSinceChange = 0;
  const due = performance.now() - lastSent >= 500; // about two scans a second at most
  if (steadyLooks < 2 || !due || sendsSinceChange >= CONFIRM_FRAMES) return;
  state.busy = true;
  lastSent = performance.now();
  try {
    const { blob, canvas } = await grabFrame(1280);
    const result = await scanBlob(blob, "live.jpg", "table");
    if (!state.live) return;
    sentLook = look;
    sendsSinceChange += 1;
    await mergeLive(result, blob, canvas);
  } catch (error) {
    setLive(false);
    sayError(error, () => setLive(true));
  } finally {
    state.busy = false;
  }
}

// Fold one frame's reading into the tracker; redo the mode's work only when the stable reading
// changed. Sets and rack come from the latest frame's layout, with each tile's merged reading.
async function mergeLive(result, blob, frame) {
  const { changed, tiles, frameToTrack } = state.tracker.update(result.tiles);
  const index = new Map(tiles.map((tile, i) => [tile.id, i]));
  const remap = list => list.map(i => index.get(frameToTrack[i])).filter(i => i !== undefined);
  const scan = {
    width: result.width,
    height: result.height,
    tiles,
    sets: result.sets.map(remap).filter(set => set.length),
    rack: remap(result.rack),
    uncertain: tiles.map((tile, i) => (tile.confidence < 0.6 ? i : -1)).filter(i => i >= 0),
  };
  state.pictures.table = { kind: "table", owner: null, scan, photo: frame, blob, corrected: new Set() };
  state.shown = "table";
  say(`Live: ${tiles.length} tiles steady.`);
  if (changed) {
    state.styles = new Map();
    state.arrows = [];
    state.reads += 1;
    await afterReading({ kind: "table" });
  } else {
    redraw();
  }
}

function setLive(on) {
  if (on && !state.stream) {
    $("#live").checked = false;
    say("Live needs the camera: allow it (Try the camera again), or use Photo….", { error: true });
    return;
  }
  state.live = on;
  $("#live").checked = on;
  clearInterval(liveTimer);
  if (on) {
    state.tracker.reset();
    showVideo();
    lastLook = sentLook = null;
    steadyLooks = sendsSinceChange = 0;
    liveTimer = setInterval(liveTick, 250);
  }
}

// The automatic referee (referee.js) takes the camera: Live mode's own scans stop, the video
// shows, and pictures come from the camera only. The turn's clock leaves the picture for the
// row under it (over the picture it hid the tiles at the top of the table the camera reads).
function watchCamera(on) {
  const clock = $("#turn-clock");
  if (on) {
    setLive(false);
    showVideo();
    stageNote("The camera is watching the table: keep it still.");
    $("#stage").after(clock);
  } else {
    if (state.showingVideo) stageNote(state.stream ? "Point at the table and press Capture, or turn on Live." : "");
    $("#stage").append(clock);
    showReadText();
  }
  $("#live").disabled = on;
  $("#pick-file").disabled = on;
}

// While watching, the Read panel shows the table as the tracker last read it settled (the
// service's reading, set by set; no tile to correct here: corrections go with a photo).
function watchedTable(sets) {
  const text = sets.map((set, n) => `${n + 1}: ${set.join(" ")}`).join("  ");
  $("#read-text").textContent = sets.length ? `Table, as the camera reads it: ${text}` : "The camera has not read the table yet.";
  $("#tile-list").replaceChildren();
  $("#save-corrections").disabled = true;
}

// ---- corrections --------------------------------------------------------------------------------

let fixing = -1;
let fixColour = "k";

function imagePoint(event) {
  const canvas = $("#photo");
  const rect = canvas.getBoundingClientRect();
  // The canvas is drawn with object-fit: contain; undo the letterbox to get image coordinates.
  const scale = Math.min(rect.width / canvas.width, rect.height / canvas.height);
  return [
    (event.clientX - rect.left - (rect.width - canvas.width * scale) / 2) / scale,
    (event.clientY - rect.top - (rect.height - canvas.height * scale) / 2) / scale,
  ];
}

function tapPicture(event) {
  if (!state.picture) return;
  const [x, y] = imagePoint(event);
  const i = tileAt(state.picture.scan.tiles, x, y);
  if (i >= 0) openFix(i);
}

function freezeLive() {
  if (!state.live) return;
  // Correct a still picture, not a moving one: keep the frame the reading came from.
  setLive(false);
  showStill();
  redraw();
}

function openFix(i) {
  freezeLive();
  const picture = state.picture;
  fixing = i;
  const label = picture.scan.tiles[i].tile;
  const unsure = picture.scan.uncertain.includes(i);
  $("#fix-was").textContent = (label || "not a tile") + (unsure ? " (unsure)" : "");
  $("#fix-where").textContent = `· ${whereIs(picture, i)}`;
  const onRack = picture.scan.rack.includes(i);
  const set = picture.scan.sets.find(s => s.includes(i));
  $("#move-rack").hidden = onRack;
  $("#move-set-rack").hidden = onRack || !set || set.length < 2;
  $("#move-table").hidden = !onRack || picture.kind === "rack" && !!picture.owner;
  $("#move-table").textContent = picture.kind === "rack" ? "Not on my rack" : "Move to the table";
  $("#fix-keep").hidden = !unsure;
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

function closeFix() {
  fixing = -1;
  $("#fix").close();
  afterReading({ kind: state.shown, owner: state.picture.owner, corrected: true });
}

function applyFix(label) {
  if (fixing < 0) return;
  const picture = state.picture;
  picture.scan.tiles[fixing] = { ...picture.scan.tiles[fixing], tile: label || null, confidence: 1 };
  picture.scan.uncertain = picture.scan.uncertain.filter(i => i !== fixing);
  picture.corrected.add(fixing);
  state.styles.delete(fixing);
  closeFix();
}

function keepReading() {
  const picture = state.picture;
  picture.scan.uncertain = picture.scan.uncertain.filter(i => i !== fixing);
  picture.scan.tiles[fixing] = { ...picture.scan.tiles[fixing], confidence: 1 };
  state.styles.delete(fixing);
  closeFix();
}

// ---- rack and table apart ---------------------------------------------------------------------

function dropFromSets(scan, i) {
  scan.sets = scan.sets.map(set => set.filter(j => j !== i)).filter(set => set.length);
}

function moveToRack(whole) {
  const { scan } = state.picture;
  const set = scan.sets.find(s => s.includes(fixing));
  const moving = whole && set ? [...set] : [fixing];
  for (const i of moving) {
    dropFromSets(scan, i);
    if (!scan.rack.includes(i)) scan.rack.push(i);
  }
  say(`${moving.length === 1 ? "Tile" : `${moving.length} tiles`} moved to the rack.`);
  closeFix();
}

// A tile put back on the table joins the set it sits beside (in left-to-right order), or makes
// a set of its own when none is within a tile and a half.
function moveToTable() {
  const { scan } = state.picture;
  const i = fixing;
  scan.rack = scan.rack.filter(j => j !== i);
  const [x, y] = centreOf(scan.tiles[i].corners);
  const reach = 1.5 * size(scan.tiles[i].corners);
  let best = null, bestDistance = Infinity;
  for (const set of scan.sets) {
    for (const j of set) {
      const [cx, cy] = centreOf(scan.tiles[j].corners);
      const d = Math.hypot(cx - x, cy - y);
      if (d < bestDistance) { bestDistance = d; best = set; }
    }
  }
  if (best && bestDistance <= reach) {
    best.push(i);
    best.sort((a, b) => centreOf(scan.tiles[a].corners)[0] - centreOf(scan.tiles[b].corners)[0]);
  } else {
    scan.sets.push([i]);
  }
  say(state.picture.kind === "rack" ? "Left out of the rack." : "Tile moved to the table.");
  closeFix();
}

// ---- keyboard on the picture ------------------------------------------------------------------

function pictureKey(event) {
  const picture = state.picture;
  if (!picture || !picture.scan.tiles.length) return;
  const order = readingOrder(picture);
  const at = order.indexOf(state.focus);
  if (event.key === "ArrowRight" || event.key === "ArrowDown") {
    state.focus = order[(at + 1) % order.length];
  } else if (event.key === "ArrowLeft" || event.key === "ArrowUp") {
    state.focus = order[(at - 1 + order.length) % order.length];
  } else if ((event.key === "Enter" || event.key === " ") && state.focus >= 0) {
    openFix(state.focus);
  } else {
    return;
  }
  event.preventDefault();
  const tile = picture.scan.tiles[state.focus];
  say(`${tile.tile || "unread tile"}, ${whereIs(picture, state.focus)}. Enter to correct it.`);
  redraw();
}

async function saveCorrections() {
  const picture = state.picture;
  const labels = {
    width: picture.scan.width,
    height: picture.scan.height,
    tiles: picture.scan.tiles.map((tile, i) => ({ tile: tile.tile, corners: tile.corners, corrected: picture.corrected.has(i) })),
    sets: picture.scan.sets,
    rack: picture.scan.rack,
  };
  const form = new FormData();
  form.append("photo", picture.blob, "photo.jpg");
  form.append("labels", JSON.stringify(labels));
  try {
    const saved = await api("/corrections", form, { form: true });
    say(`Saved as ${saved.name}: thank you, the next training run will learn from it.`);
    picture.corrected = new Set();
    $("#save-corrections").disabled = true;
  } catch (error) {
    sayError(error, saveCorrections);
  }
}

// ---- wiring -------------------------------------------------------------------------------------

function selectMode(mode) {
  state.mode = mode;
  for (const tab of document.querySelectorAll("#modes button")) {
    tab.setAttribute("aria-pressed", String(tab.dataset.mode === mode));
  }
  for (const panel of document.querySelectorAll("[data-panel]")) {
    panel.hidden = !panel.dataset.panel.split(" ").includes(mode);
  }
  state.styles = new Map();
  state.arrows = [];
  modes.entered(mode);
  showPicture(modes.preferredPicture(mode));
}

// Put the table or the rack picture on screen (My rack mode keeps both).
function showPicture(kind) {
  if (!state.pictures[kind]) {
    if (!state.picture) return;
    kind = state.shown;
  }
  state.shown = kind;
  state.styles = new Map();
  state.arrows = [];
  showStill();
  const { scan } = state.picture;
  $("#stage").style.aspectRatio = `${scan.width} / ${scan.height}`;
  afterReading(null);
}

async function loadPresets() {
  const select = $("#preset");
  try {
    state.presets = await api("/presets");
    for (const preset of state.presets) select.append(new Option(preset.title, preset.name));
    // The Rules menu remembers its choice across reloads, like the match does.
    const kept = localStorage.getItem("rummi.preset");
    if (kept && state.presets.some(p => p.name === kept)) select.value = kept;
    select.addEventListener("change", () => localStorage.setItem("rummi.preset", select.value));
    modes.presetsLoaded();
  } catch (error) {
    sayError(error, loadPresets);
  }
}

// A desktop (no touch, a wide screen) shows the QR code the service makes, so a phone can join
// the same session. A 404 means the service has no LAN address to offer: nothing to show.
async function showJoin() {
  if (matchMedia("(pointer: coarse)").matches || innerWidth < 800) {
    state.joinChecked = true;
    return;
  }
  try {
    const join = await api("/join");
    if (!join || !join.url) return;
    // A loopback address is no use to a phone: only a LAN address is worth a QR code.
    const host = new URL(join.url, location.href).hostname;
    if (["127.0.0.1", "localhost", "[::1]", "::1"].includes(host)) return;
    $("#join-url").textContent = join.url;
    $("#join-url").href = join.url;
    if (join.qr_svg) {
      const image = new Image();
      image.alt = `QR code for ${join.url}`;
      image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(join.qr_svg)}`;
      $("#join-qr").replaceChildren(image);
    }
    $("#join").hidden = false;
  } catch {
    /* no join link on this server: the desktop just does not offer one */
  } finally {
    state.joinChecked = true;
  }
}

function init() {
  takeTokenFromUrl();
  initStatus();
  const numbers = $("#fix .numbers");
  for (let n = 1; n <= 13; n++) {
    numbers.append(el("button", { type: "button", onclick: () => applyFix(`${fixColour}${n}`) }, String(n)));
  }
  for (const button of document.querySelectorAll("#fix [data-colour]")) {
    button.addEventListener("click", () => pickColour(button.dataset.colour));
  }
  for (const button of document.querySelectorAll("#fix [data-set]")) {
    button.addEventListener("click", () => applyFix(button.dataset.set));
  }
  $("#fix").addEventListener("close", () => { fixing = -1; });
  $("#fix-keep").addEventListener("click", keepReading);
  $("#move-rack").addEventListener("click", () => moveToRack(false));
  $("#move-set-rack").addEventListener("click", () => moveToRack(true));
  $("#move-table").addEventListener("click", moveToTable);
  for (const tab of document.querySelectorAll("#modes button")) {
    tab.addEventListener("click", () => selectMode(tab.dataset.mode));
  }
  $("#capture").addEventListener("click", capture);
  $("#live").addEventListener("change", event => setLive(event.target.checked));
  $("#pick-file").addEventListener("click", () => $("#file").click());
  $("#file").addEventListener("change", event => uploadFile(event.target.files[0]));
  $("#camera").addEventListener("click", showVideo);
  $("#camera-retry").addEventListener("click", startCamera);
  $("#show-labels").addEventListener("change", redraw);
  const canvas = $("#photo");
  canvas.addEventListener("click", tapPicture);
  canvas.addEventListener("keydown", pictureKey);
  canvas.addEventListener("focus", () => { if (state.focus < 0 && state.picture) state.focus = readingOrder(state.picture)[0] ?? -1; redraw(); });
  canvas.addEventListener("blur", redraw);
  addEventListener("resize", redraw);
  $("#save-corrections").addEventListener("click", saveCorrections);
  modes.init({
    refresh: () => state.picture && afterReading(null),
    show: showPicture,
    capture,
    grabFrame,
    watching: watchCamera,
    watchedTable,
  });
  loadPresets();
  startCamera();
  showJoin();
  // For the browser test and for anyone poking at the page from the console.
  window.__rummi = { state, modes };
}

init();
