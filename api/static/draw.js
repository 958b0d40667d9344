// Drawing on the picture: every tile outlined and labelled, each set numbered as in the lists,
// arrows from the hinted tiles to where they go. What the mode found out shows twice, as colour
// and as line pattern (solid, dashed, dotted, double), so it reads without telling colours apart.

// Dark enough for white label text at 4.5:1 or more (WCAG AA).
export const STYLE = {
  plain: { colour: "#1d4ed8", dash: [], width: 1 },
  valid: { colour: "#15803d", dash: [], width: 1.4 },
  invalid: { colour: "#c81e3a", dash: [6, 3], width: 1.8 },
  uncertain: { colour: "#8a5a00", dash: [1.2, 2], width: 1.6 },
  play: { colour: "#8e24aa", dash: [], width: 1.4, double: true },
  corrected: { colour: "#0f766e", dash: [], width: 1.4, corners: true },
  focus: { colour: "#111", dash: [], width: 2.4 },
};

function box(corners) {
  const xs = corners.map(p => p[0]), ys = corners.map(p => p[1]);
  return { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) };
}

function overlaps(a, b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

// tiles: [{tile, corners, style?, unsure?}]; an unsure reading gets a dotted outline and a "?".
// photo: an image/video/canvas to draw under them, or null (outlines over the live video).
// options: labels (false hides them), sets [{number, members}], arrows [{from, to: [x, y]}],
// focus (a tile index with a keyboard focus ring), cssScale (CSS px per image px, so labels
// stay at least 12 CSS px tall however large the photo is).
export function drawScene(canvas, photo, tiles, width, height, options = {}) {
  const { labels = true, sets = [], arrows = [], focus = -1, cssScale = 1 } = options;
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, width, height);
  if (photo) ctx.drawImage(photo, 0, 0, width, height);
  const unit = Math.max(width, height) / 320; // line widths scale with the photo
  const minFont = 13 / Math.max(cssScale, 1e-3); // image px that show as 13 CSS px
  tiles.forEach((tile, i) => outline(ctx, tile, unit, i === focus));
  for (const arrow of arrows) if (arrow.from !== null && arrow.from !== undefined) drawArrow(ctx, tiles[arrow.from], arrow.to, unit);
  // Labels last, each placed where it covers no other tile and no other label.
  const boxes = tiles.map(t => box(t.corners));
  const placed = [];
  // A tile from a rack in another photo: "+r4" where it goes.
  for (const arrow of arrows) {
    if (arrow.from !== null && arrow.from !== undefined) continue;
    const font = Math.max(minFont, 8 * unit), [x, y] = arrow.to;
    place(ctx, [pill(ctx, arrow.text, x, y - font * 0.65, font, STYLE.play.colour)], [], -1, placed);
  }
  for (const set of sets) setNumber(ctx, set, tiles, boxes, placed, Math.max(minFont, 8 * unit));
  if (labels) tiles.forEach((tile, i) => label(ctx, tile, i, boxes, placed, Math.max(minFont, 7 * unit)));
  return placed; // every label's box, text and font (image px): the browser test measures them
}

function styleOf(tile) {
  if (tile.unsure && (!tile.style || tile.style === "plain")) return STYLE.uncertain;
  return STYLE[tile.style || "plain"] || STYLE.plain;
}

function tracePath(ctx, corners) {
  ctx.beginPath();
  corners.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
  ctx.closePath();
}

function outline(ctx, tile, unit, focused) {
  const style = styleOf(tile);
  ctx.strokeStyle = style.colour;
  ctx.lineWidth = style.width * unit;
  // An unsure tile is dotted whatever the mode says about it.
  const dash = tile.unsure ? STYLE.uncertain.dash : style.dash;
  ctx.setLineDash(dash.map(d => d * unit));
  tracePath(ctx, tile.corners);
  ctx.stroke();
  if (style.double) {
    const [cx, cy] = centreOf(tile.corners);
    const inner = tile.corners.map(([x, y]) => [cx + (x - cx) * 0.8, cy + (y - cy) * 0.8]);
    ctx.lineWidth = 0.8 * unit;
    tracePath(ctx, inner);
    ctx.stroke();
  }
  if (style.corners) {
    ctx.fillStyle = style.colour;
    for (const [x, y] of tile.corners) ctx.fillRect(x - 1.5 * unit, y - 1.5 * unit, 3 * unit, 3 * unit);
  }
  ctx.setLineDash([]);
  if (focused) {
    const b = box(tile.corners);
    ctx.strokeStyle = "#fff";
    ctx.lineWidth = 3 * unit;
    ctx.strokeRect(b.left - 3 * unit, b.top - 3 * unit, b.right - b.left + 6 * unit, b.bottom - b.top + 6 * unit);
    ctx.strokeStyle = STYLE.focus.colour;
    ctx.lineWidth = 1.5 * unit;
    ctx.strokeRect(b.left - 3 * unit, b.top - 3 * unit, b.right - b.left + 6 * unit, b.bottom - b.top + 6 * unit);
  }
}

function centreOf(corners) {
  return [corners.reduce((s, p) => s + p[0], 0) / corners.length, corners.reduce((s, p) => s + p[1], 0) / corners.length];
}

// A pill of text; returns its box. `where` picks its anchor point (centre x, top y).
function pill(ctx, text, x, top, font, fill) {
  ctx.font = `bold ${font}px system-ui, sans-serif`;
  const w = ctx.measureText(text).width + font * 0.6;
  const h = font * 1.3;
  return { left: x - w / 2, right: x + w / 2, top, bottom: top + h, text, fill, font };
}

function paint(ctx, p) {
  ctx.font = `bold ${p.font}px system-ui, sans-serif`;
  ctx.fillStyle = p.fill;
  ctx.beginPath();
  ctx.roundRect(p.left, p.top, p.right - p.left, p.bottom - p.top, (p.bottom - p.top) / 4);
  ctx.fill();
  ctx.strokeStyle = "#fff";
  ctx.lineWidth = Math.max(1, p.font / 10);
  ctx.stroke();
  ctx.fillStyle = "#fff";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(p.text, (p.left + p.right) / 2, (p.top + p.bottom) / 2);
}

// The first of several spots (above, below, on its own tile) that hides no tile and no label
// already placed; if none is free, the one that hides the least (its own tile's face counts
// less than a neighbour).
function place(ctx, candidates, boxes, own, placed) {
  let best = null, bestCost = Infinity;
  for (const p of candidates) {
    let cost = 0;
    boxes.forEach((b, j) => { if (overlaps(p, b)) cost += j === own ? 1 : 2; }); // own tile: hides its face
    for (const q of placed) if (overlaps(p, q)) cost += 3;
    if (p.top < 0 || p.left < 0 || p.right > ctx.canvas.width || p.bottom > ctx.canvas.height) cost += 1;
    if (cost < bestCost) { best = p; bestCost = cost; }
    if (cost === 0) break;
  }
  placed.push(best);
  paint(ctx, best);
}

function label(ctx, tile, i, boxes, placed, font) {
  const text = (tile.tile || "?") + (tile.unsure && tile.tile ? "?" : "");
  const b = boxes[i];
  const x = (b.left + b.right) / 2, h = font * 1.3;
  const fill = styleOf(tile).colour;
  const candidates = [
    pill(ctx, text, x, b.top - h - 1, font, fill),
    pill(ctx, text, x, b.bottom + 1, font, fill),
    pill(ctx, text, x, (b.top + b.bottom) / 2 - h / 2, font, fill),
  ];
  place(ctx, candidates, boxes, i, placed);
}

// The set's number ("1", "2"...) in a dark circle-ish pill to the left of its first tile.
function setNumber(ctx, set, tiles, boxes, placed, font) {
  const members = set.members.map(i => boxes[i]);
  if (!members.length) return;
  const left = Math.min(...members.map(b => b.left));
  const top = Math.min(...members.map(b => b.top));
  const bottom = Math.max(...members.map(b => b.bottom));
  const mid = (top + bottom) / 2 - font * 0.65;
  const text = String(set.number);
  const width = font * 1.4;
  const candidates = [
    pill(ctx, text, left - width / 2 - 2, mid, font, "#111"),
    pill(ctx, text, left + width / 2, top - font * 1.3 - 2, font, "#111"),
    pill(ctx, text, Math.max(...members.map(b => b.right)) + width / 2 + 2, mid, font, "#111"),
  ];
  place(ctx, candidates, boxes, -1, placed);
}

function drawArrow(ctx, tile, [tx, ty], unit) {
  if (!tile) return;
  const [fx, fy] = centreOf(tile.corners);
  ctx.strokeStyle = STYLE.play.colour;
  ctx.fillStyle = STYLE.play.colour;
  ctx.lineWidth = 2 * unit;
  ctx.setLineDash([4 * unit, 2 * unit]);
  ctx.beginPath();
  ctx.moveTo(fx, fy);
  ctx.lineTo(tx, ty);
  ctx.stroke();
  ctx.setLineDash([]);
  const angle = Math.atan2(ty - fy, tx - fx), head = 7 * unit;
  ctx.beginPath();
  ctx.moveTo(tx, ty);
  ctx.lineTo(tx - head * Math.cos(angle - 0.45), ty - head * Math.sin(angle - 0.45));
  ctx.lineTo(tx - head * Math.cos(angle + 0.45), ty - head * Math.sin(angle + 0.45));
  ctx.closePath();
  ctx.fill();
}

// Which tile is under a point (image coordinates)? Ray casting over each outline.
export function tileAt(tiles, x, y) {
  for (let i = tiles.length - 1; i >= 0; i--) {
    if (inside(tiles[i].corners, x, y)) return i;
  }
  return -1;
}

function inside(poly, x, y) {
  let hit = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i], [xj, yj] = poly[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) hit = !hit;
  }
  return hit;
}

export { centreOf };
