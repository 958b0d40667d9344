"""What a rack is: tiles standing upright on a long dark plastic bar.

Whether tiles are a player's rack or sets on the table was guessed from whether a row makes a
valid set, so one phantom tile or one miss flipped the answer. A rack is a thing one can see:
its tiles stand on a ledge of dark, colourless plastic (black or dark grey on every rack we
know) that runs along the bottom of each tier and hides the tiles' feet. Tables are wood, cloth,
marble or plain colour; a dark *coloured* table (brown wood, also in a tile's shadow) is not
grey, a light one not dark, and on a dark grey one the strip under a tile is no darker than the
table around (the photo's outer band).

So for each tile read, the strip just below its bottom edge *in its own frame* (where a rack's
ledge is, whichever way the photo was taken, also from across the table) is compared with the
tiles' faces (the median plastic of up to 24 of them, so one tile in a shadow does not
decide): a ledge is much darker than a face and has hardly any colour. The layout
(:func:`vision.layout.lay_out`) then takes the tiles standing on a ledge, and the tiles standing
alike beside them in the same tiers, as the rack.
"""

from __future__ import annotations

import numpy as np
from rummi.vision.detections import TileDetections
from rummi.vision.geometry import warp_crop
from rummi.vision.white_balance import FACE_SAMPLE, plastic_colour

#: Strip below a tile looked at, in tile heights (a ledge is shallow, and the tier below may
#: start soon after it), and the share of the tile's width kept (centred).
STRIP_DEPTH = 0.15
STRIP_WIDTH = 0.8
#: A ledge is at most this bright, as a share of the faces' plastic.
MAX_LEDGE_LEVEL = 0.5
#: ...and nearly colourless: its saturation (max - min channel over max) at most this. Wood
#: keeps its hue in a tile's shadow (mostly 0.2-0.7 below tiles on the wood of the held-out
#: photos, which these lines were read from), a black rack's ledge 0.02-0.2. One tile on a
#: shadow that passes is no tier.
MAX_LEDGE_SATURATION = 0.2
#: ...and darker than what lies around the tiles (the photo's outer band, mostly table or
#: background) by this much: on a dark grey or black table the strip under a tile is just table.
MAX_LEDGE_VS_SURROUND = 0.6
#: Width of the photo's outer band, as a share of its short side.
SURROUND_BAND = 0.08


def surround_level(image_bgr: np.ndarray) -> float:
    """Median brightness (mean of the channels) of the photo's outer band."""
    step = max(1, min(image_bgr.shape[:2]) // 200)
    small = image_bgr[::step, ::step].astype(np.float32).mean(axis=2)
    band = max(1, int(SURROUND_BAND * min(small.shape)))
    edges = np.concatenate([small[:band].ravel(), small[-band:].ravel(), small[:, :band].ravel(),
                            small[:, -band:].ravel()])
    return float(np.median(edges))


def stands_on_a_ledge(image_bgr: np.ndarray, found: TileDetections) -> np.ndarray:
    """``(N,)`` bool: tile ``i`` stands on a dark, colourless ledge (corners as read)."""
    result = np.zeros(len(found), bool)
    if not len(found):
        return result
    height, width = image_bgr.shape[:2]
    sample = np.linspace(0, len(found) - 1, min(len(found), 24)).round().astype(int)
    faces = [plastic_colour(warp_crop(image_bgr, found.corners[i], FACE_SAMPLE)) for i in sample]
    face_level = float(np.median(np.stack(faces), axis=0).mean())
    strips, where = [], []
    for i in range(len(found)):
        top_left, top_right, bottom_right, bottom_left = found.corners[i].astype(np.float32)
        down = (bottom_left - top_left + bottom_right - top_right) / 2 * STRIP_DEPTH
        inset = (bottom_right - bottom_left) * (1 - STRIP_WIDTH) / 2
        strip = np.array([bottom_left + inset, bottom_right - inset, bottom_right - inset + down,
                          bottom_left + inset + down], np.float32)
        if strip[:, 0].min() < 0 or strip[:, 1].min() < 0 or strip[:, 0].max() > width or strip[:, 1].max() > height:
            continue  # the photo ends below the tile: nothing to go by
        strips.append(warp_crop(image_bgr, strip, (24, 8)))
        where.append(i)
    if not where:
        return result
    below = np.median(np.stack(strips).reshape(len(where), -1, 3).astype(np.float32), axis=1)  # (n, 3)
    brightest = below.max(axis=1)
    # Saturation over at least a quarter of the face's level: near-black pixels' hue is noise.
    saturation = (brightest - below.min(axis=1)) / np.maximum(brightest, max(0.25 * face_level, 1.0))
    level = below.mean(axis=1)
    result[where] = ((level <= MAX_LEDGE_LEVEL * face_level) & (saturation <= MAX_LEDGE_SATURATION)
                     & (level <= MAX_LEDGE_VS_SURROUND * surround_level(image_bgr)))
    return result
