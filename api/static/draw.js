// Drawing on the picture: every tile outlined and labelled. Colours say what the current mode
// found out: a set's validity, the tiles of the hinted move, a reading the scanner was unsure of.

export const STYLE = {
  plain: "#2b7bff",
  valid: "#1a9c46",
  invalid: "#d7263d",
  uncertain: "#f2a900",
  play: "#b000d8",
  corrected: "#00a3a3",
};

const INK = { k: "#111", b: "#0b4fd8", o: "#e07000", r: "#d01818", J: "#7a3cc2" };

export function inkFor(label) {
  if (!label) return "#555";
  return INK[label[0] === "J" ? "J" : label[0]] || "#333";
}

// tiles: [{tile, corners, style?, unsure?}]; an unsure reading gets a dashed outline and a "?"
// whatever colour the mode gives it. photo: an image/video/canvas to draw under them, or null
// to draw the outlines alone (over the live video).
export function drawScene(canvas, photo, tiles, width, height) {
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  }
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, width, height);
  if (photo) ctx.drawImage(photo, 0, 0, width, height);
  const unit = Math.max(width, height) / 320; // line width and font scale with the photo
  for (const tile of tiles) {
    const colour = STYLE[tile.style || "plain"] || STYLE.plain;
    ctx.lineWidth = 1.5 * unit;
    ctx.strokeStyle = colour;
    ctx.setLineDash(tile.unsure ? [4 * unit, 2.5 * unit] : []);
    ctx.beginPath();
    tile.corners.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
    ctx.stroke();
    label(ctx, tile, colour, unit);
  }
}

function label(ctx, tile, colour, unit) {
  const text = (tile.tile || "?") + (tile.unsure && tile.tile ? "?" : "");
  const xs = tile.corners.map(p => p[0]), ys = tile.corners.map(p => p[1]);
  const x = (Math.min(...xs) + Math.max(...xs)) / 2;
  const top = Math.min(...ys);
  const font = Math.round(7 * unit);
  ctx.font = `bold ${font}px system-ui, sans-serif`;
  const w = ctx.measureText(text).width + font * 0.6;
  const h = font * 1.3;
  const y = Math.max(h, top - 0.4 * unit);
  ctx.fillStyle = colour;
  ctx.beginPath();
  ctx.roundRect(x - w / 2, y - h, w, h, h / 4);
  ctx.fill();
  ctx.fillStyle = "#fff";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(text, x, y - h / 2);
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
