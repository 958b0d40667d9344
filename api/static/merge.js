// Live mode reads the same table twice a second. One frame may misread a tile (glare, a hand
// passing by); that must not look like a move. TileTracker keeps one track per physical tile,
// matched between frames by position, and lets each frame vote for the tile's reading. A track
// shows only once it has been seen in `confirm` frames, its reading is the label with the most
// (decaying) votes, and it disappears only after `forget` frames without it. A label's votes are
// capped at `cap` (about two confident frames), so however long a tile has been read one way,
// a real change (a tile swapped) shows after two frames, while a single misread frame never
// outvotes the reading before it. `changed` is true only when the set of stable readings
// differs from the last one reported.

export function centre(corners) {
  let x = 0, y = 0;
  for (const [px, py] of corners) { x += px; y += py; }
  return [x / corners.length, y / corners.length];
}

export function size(corners) {
  const xs = corners.map(p => p[0]), ys = corners.map(p => p[1]);
  return Math.hypot(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
}

export class TileTracker {
  constructor({ decay = 0.8, cap = 2, confirm = 2, forget = 3 } = {}) {
    this.decay = decay;
    this.cap = cap;
    this.confirm = confirm;
    this.forget = forget;
    this.tracks = [];
    this.nextId = 1;
    this.lastKey = "";
  }

  reset() {
    this.tracks = [];
    this.lastKey = "";
  }

  // tiles: [{tile, confidence, corners}] of one frame. Returns {changed, tiles, frameToTrack}
  // where tiles are the stable tracks ({id, tile, confidence, corners, votes}) and
  // frameToTrack[i] is the id of the track frame tile i was merged into.
  update(tiles) {
    for (const track of this.tracks) {
      track.missed += 1;
      for (const label of Object.keys(track.votes)) track.votes[label] *= this.decay;
    }
    const taken = new Set();
    const frameToTrack = [];
    // Greedy nearest-centre matching: tiles do not overlap, so the nearest track within half a
    // tile is the same tile.
    const pairs = [];
    tiles.forEach((tile, i) => {
      const [x, y] = centre(tile.corners);
      const reach = 0.5 * size(tile.corners);
      this.tracks.forEach((track, t) => {
        const d = Math.hypot(track.centre[0] - x, track.centre[1] - y);
        if (d <= reach) pairs.push([d, i, t]);
      });
    });
    pairs.sort((a, b) => a[0] - b[0]);
    const matched = new Map();
    for (const [, i, t] of pairs) {
      if (matched.has(i) || taken.has(t)) continue;
      matched.set(i, t);
      taken.add(t);
    }
    tiles.forEach((tile, i) => {
      let track;
      if (matched.has(i)) {
        track = this.tracks[matched.get(i)];
      } else {
        track = { id: this.nextId++, votes: {}, seen: 0, missed: 0 };
        this.tracks.push(track);
      }
      track.corners = tile.corners;
      track.centre = centre(tile.corners);
      track.seen += 1;
      track.missed = 0;
      const label = tile.tile ?? "?";
      const vote = Math.max(0.05, tile.confidence ?? 1);
      track.votes[label] = Math.min(this.cap, (track.votes[label] || 0) + vote);
      frameToTrack[i] = track.id;
    });
    this.tracks = this.tracks.filter(track => track.missed < this.forget);
    const stable = this.stable();
    const key = stable.map(t => t.tile).sort().join(" ");
    const changed = key !== this.lastKey;
    this.lastKey = key;
    return { changed, tiles: stable, frameToTrack };
  }

  stable() {
    return this.tracks
      .filter(track => track.seen >= this.confirm)
      .map(track => {
        const entries = Object.entries(track.votes).sort((a, b) => b[1] - a[1]);
        const total = entries.reduce((sum, [, v]) => sum + v, 0) || 1;
        const [label, weight] = entries[0];
        return {
          id: track.id,
          tile: label === "?" ? null : label,
          confidence: weight / total,
          corners: track.corners,
        };
      });
  }
}
