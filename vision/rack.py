"""What a rack is: tiles standing upright on a long dark plastic bar.

Whether tiles are a player's rack or sets on the table was guessed from whether a row makes a
valid set, so one phantom tile or one miss flipped the answer. A rack is a thing one can see:
its tiles stand on a ledge of dark, colourless plastic (black or dark grey on every rack we
know) that runs along the bottom of each tier and hides the tiles' feet. Tables are wood, cloth,
marble or plain colour; a dark *coloured* table (brown wood, also in a tile's shadow) is not
grey, a light one not dark, and on a dark grey one the strip under a tile is no darker than the
table around (the photo's outer band). That last yardstick is asked only where the table around
is itself grey: next to a coloured one, however dark (near-black wood), a colourless strip is
already no table, and a rack on such a table was lost to it.

So for each tile read, the darkest band of the strip across its bottom edge, a little inside
and further below, *in its own frame* (where a rack's ledge is, whichever way the photo was
taken, also from across the table; the band, not the whole strip, since a box may end a little
above or below the tile's foot) is compared
with the tiles' faces (the median plastic of up to 24 of them, so one tile in a shadow does not
decide, or the tile's own face where that is darker: a shadow across a tile darkens the table
under it as much): a ledge is much darker than a face and has hardly any colour. The layout
(:func:`vision.layout.lay_out`) then takes the tiles standing on a ledge, and the tiles standing
alike beside them in the same tiers, as the rack.

Players leave gaps on a rack (a tile played, a run kept apart): where two tiles of one tier
stand three or four tiles apart, the rack's dark back shows between them all the way
(:meth:`RackEvidence.bar_between`), where on a table the gap shows table. Before, such a tier
fell apart into pieces too short to be a rack (3 of the 8 held-out rack photos).
"""

from __future__ import annotations

import numpy as np
from rummi.vision.detections import TileDetections
from rummi.vision.geometry import warp_crop
from rummi.vision.white_balance import FACE_SAMPLE, plastic_colour

#: Strip below a tile looked at, in tile heights, and the share of the tile's width kept
#: (centred). Deep enough to reach the ledge when the finder's box ends a little above the
#: tile's foot (in a dark or blurred photo it often does), and starting ``STRIP_RISE`` inside
#: the box, for a box that ends a little below the foot, over the ledge itself (the finder of
#: 2026-12-05 boxes a rack's lower tier so at times: under the box's bottom edge there was
#: only table, and 2 of the warm-cast rack photos were lost); the ledge is the strip's darkest
#: band of ``LEDGE_BAND`` of its ``STRIP_ROWS`` rows (a ledge is shallow, and the tier below
#: may start soon after it).
STRIP_DEPTH = 0.3
STRIP_RISE = 0.1
STRIP_WIDTH = 0.8
STRIP_ROWS = 12
LEDGE_BAND = 4
#: A ledge is at most this bright, as a share of the faces' plastic.
MAX_LEDGE_LEVEL = 0.5
#: ...and nearly colourless: its saturation (max - min channel over max) at most this. Wood
#: keeps its hue in a tile's shadow (mostly 0.2-0.7 below tiles on the wood of the held-out
#: photos, which these lines were read from), a black rack's ledge 0.02-0.2. One tile on a
#: shadow that passes is no tier.
MAX_LEDGE_SATURATION = 0.2
#: ...and darker than what lies around the tiles (the photo's outer band, mostly table or
#: background) by this much: on a dark grey or black table the strip under a tile is just table.
#: Asked only where that band is grey itself (its saturation at most ``MAX_LEDGE_SATURATION``).
MAX_LEDGE_VS_SURROUND = 0.6
#: Width of the photo's outer band, as a share of its short side.
SURROUND_BAND = 0.08
#: Between two tiles of a tier: the band looked at, as a share of their height (centred, clear
#: of the ledge below and the tier above), and the share of its length that must look like the
#: rack's plastic (a tile the finder missed, or table, breaks it).
GAP_BAND = 0.5
MIN_BAR_SHARE = 0.9
#: Points sampled along a gap, and across it.
GAP_SAMPLES = (32, 6)


def surround_colour(image_bgr: np.ndarray) -> np.ndarray:
    """Median BGR colour (per channel) of the photo's outer band, leaving out pixels black in
    all three channels: a photo turned or straightened by an app has such corners (nothing was
    seen there), and counting them took a grey table for a black one."""
    step = max(1, min(image_bgr.shape[:2]) // 200)
    small = image_bgr[::step, ::step]
    band = max(1, int(SURROUND_BAND * min(small.shape[:2])))
    edges = np.concatenate([small[:band].reshape(-1, 3), small[-band:].reshape(-1, 3),
                            small[:, :band].reshape(-1, 3), small[:, -band:].reshape(-1, 3)])
    seen = edges[edges.max(axis=1) > 0]
    return np.median(seen.astype(np.float32), axis=0) if len(seen) else np.zeros(3, np.float32)


def darkest_band(strips: np.ndarray) -> np.ndarray:
    """``(n, 3)`` colour of the darkest band of ``LEDGE_BAND`` rows in each of ``(n, rows, w, 3)``
    strips: each row's median colour (a number's ink or a speck does not move it), averaged
    over the band's rows."""
    rows = np.median(strips.astype(np.float32), axis=2)  # (n, rows, 3)
    running = np.concatenate([np.zeros_like(rows[:, :1]), np.cumsum(rows, axis=1)], axis=1)
    bands = (running[:, LEDGE_BAND:] - running[:, :-LEDGE_BAND]) / LEDGE_BAND  # (n, rows - band + 1, 3)
    darkest = bands.mean(axis=2).argmin(axis=1)
    return bands[np.arange(len(bands)), darkest]


class RackEvidence:
    """What one photo shows of a rack around the tiles read: which tiles stand on a ledge
    (``on_ledge``), and whether the rack's dark plastic runs between two tiles
    (:meth:`bar_between`). Both compare pixels with the same yardsticks: the faces' plastic
    and the photo's outer band."""

    def __init__(self, image_bgr: np.ndarray, found: TileDetections) -> None:
        self._image = image_bgr
        self._found = found
        self._bars: dict[tuple[int, int], bool] = {}
        self.on_ledge = np.zeros(len(found), bool)
        if not len(found):
            return
        faces = np.stack([plastic_colour(warp_crop(image_bgr, q, FACE_SAMPLE)) for q in found.corners])
        sample = np.linspace(0, len(found) - 1, min(len(found), 24)).round().astype(int)
        self._face_level = float(np.median(faces[sample], axis=0).mean())
        # each tile's own face too: a shadow over a tile darkens its face as much as the table
        # under it, so a tile in a shadow needs its strip dark next to its own face
        own_face_levels = np.minimum(faces.mean(axis=1), self._face_level)
        surround = surround_colour(image_bgr)[None]
        self._surround = float(surround.mean())
        self._surround_grey = bool(self._saturation(surround)[0] <= MAX_LEDGE_SATURATION)
        strips, where = [], []
        for i in range(len(found)):
            top_left, top_right, bottom_right, bottom_left = found.corners[i].astype(np.float32)
            height = (bottom_left - top_left + bottom_right - top_right) / 2
            down, up = height * STRIP_DEPTH, height * STRIP_RISE
            inset = (bottom_right - bottom_left) * (1 - STRIP_WIDTH) / 2
            strip = np.array([bottom_left + inset - up, bottom_right - inset - up, bottom_right - inset + down,
                              bottom_left + inset + down], np.float32)
            if not self._inside(strip):
                continue  # the photo ends below the tile: nothing to go by
            strips.append(warp_crop(image_bgr, strip, (24, STRIP_ROWS)))
            where.append(i)
        if where:
            self.on_ledge[where] = self._like_a_ledge(darkest_band(np.stack(strips)), own_face_levels[where])

    def bar_between(self, i: int, j: int) -> bool:
        """Whether the band between tiles ``i`` and ``j`` (across the middle of their height,
        from one's side to the other's) is rack plastic over ``MIN_BAR_SHARE`` of its length.
        Tiles that touch have no gap to look at: ``True``."""
        key = (min(i, j), max(i, j))
        if key not in self._bars:
            self._bars[key] = self._looks_like_bar(*key)
        return self._bars[key]

    def _looks_like_bar(self, i: int, j: int) -> bool:
        found = self._found
        start, end = found.centers[i].astype(np.float32), found.centers[j].astype(np.float32)
        distance = float(np.linalg.norm(end - start))
        if distance < 1e-6:
            return False
        along = (end - start) / distance
        across = np.array([-along[1], along[0]], np.float32)
        gap = distance - (found.widths[i] + found.widths[j]) / 2
        if gap <= 0:
            return True
        start = start + along * found.widths[i] / 2
        end = end - along * found.widths[j] / 2
        half = across * (found.heights[i] + found.heights[j]) / 4 * GAP_BAND
        band = np.array([start - half, end - half, end + half, start + half], np.float32)
        if not self._inside(band):
            return False
        columns = np.median(warp_crop(self._image, band, GAP_SAMPLES).astype(np.float32), axis=0)  # (n, 3)
        return float(self._like_a_ledge(columns).mean()) >= MIN_BAR_SHARE

    def _like_a_ledge(self, colours: np.ndarray, face_levels: np.ndarray | float | None = None) -> np.ndarray:
        """``(n,)`` bool for ``(n, 3)`` BGR colours: dark next to the faces (``face_levels``,
        per colour or one; the photo's faces when None), colourless, and darker than the
        photo's outer band (see the module's docstring)."""
        level = colours.mean(axis=1)
        face = self._face_level if face_levels is None else face_levels
        unlike_table = (level <= MAX_LEDGE_VS_SURROUND * self._surround) | (not self._surround_grey)
        return ((level <= MAX_LEDGE_LEVEL * face) & (self._saturation(colours) <= MAX_LEDGE_SATURATION)
                & unlike_table)

    def _saturation(self, colours: np.ndarray) -> np.ndarray:
        """``(n,)`` saturation of ``(n, 3)`` BGR colours, over at least a quarter of the faces'
        level: near-black pixels' hue is noise."""
        brightest = colours.max(axis=1)
        return (brightest - colours.min(axis=1)) / np.maximum(brightest, max(0.25 * self._face_level, 1.0))

    def _inside(self, quad: np.ndarray) -> bool:
        height, width = self._image.shape[:2]
        return bool(quad[:, 0].min() >= 0 and quad[:, 1].min() >= 0 and quad[:, 0].max() <= width
                    and quad[:, 1].max() <= height)
