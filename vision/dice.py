"""A die is no tile: a box the finder put on a die, told by its pips.

Dice lie on many game tables, and the finder, which learnt "a small light rectangle with dark
print", boxes them; the reader, which knows numbers, reads their pips as a number it is unsure
of (a 5 as k7, a 2 as k1), so a die became a flagged phantom tile in scores and hints (15 per
100 generated table scenes with the finder of issue 15; a reader retrained on mined dice crops
did not learn to refuse them). Pips are what no tile face has: two or more round, solid,
hard-printed dots of one size and nothing else printed. A digit is one stroke that is not round (or a ring,
an 8's loops, a 1's bar), a two-digit number two strokes of which at least one is not round,
the Pressman print's dot under a 6 or 9 sits beside a digit, a joker's eyes beside its face.

The test reads the reader's upright crop (``vision.geometry.warp_crop``), which shows a die's
square face stretched to the tile's 3:4: a pip is then an ellipse up to 4:3, so "round" allows
that. The box follows the die's edges, so its pips lie on the face's 3 x 3 grid: two or more
never all in one row. A number blurred to blobs (a far tile's 11) lies in one row, so it is
never taken for pips; a die showing one pip is not told from a blob of print, and stays a
flagged phantom.
"""

from __future__ import annotations

import cv2
import numpy as np

#: How far (in Lab units) a pixel's colour lies from the face's own (the crop's median) to be
#: print: low enough that a digit's stroke stays one mark (at 60 a faint orange 11 broke into
#: round pieces).
INK_DISTANCE = 35.0
#: A mark smaller than this share of the crop is grain, JPEG ringing or a logo letter.
MIN_MARK_SHARE = 0.004
#: A pip is solid (its area this share of its convex hull at least)...
MIN_SOLIDITY = 0.85
#: ...and round: its fitted ellipse's short axis this share of the long one at least (a circle
#: stretched 4:3 by the crop is 0.75; a digit 1's bar is under 0.4).
MIN_ROUNDNESS = 0.55
#: The pips of one face are one size: the largest at most this many times the smallest.
MAX_SIZE_SPREAD = 2.5
#: A pip is printed hard: its darkest point this far (Lab units) from the face at least. Dice
#: pips reach 170-200; the round blobs of a far, blurred tile's print (a joker's eyes, a 9
#: melted to a dot) 40-60.
MIN_PIP_CONTRAST = 90.0
#: A pip is small on the face: at most this share of the crop (a blurred number is bigger).
MAX_PIP_SHARE = 0.05
#: Pips off one row and one column: their centres spread this share of a pip's width at
#: least, both across and along the crop.
MIN_PATTERN_SPREAD = 0.7


def shows_pips(crop_bgr: np.ndarray) -> bool:
    """Whether an upright reader crop shows a die's face: two or more round solid marks of
    one size, and no other mark (a mark touching the crop's edge is the table round the box,
    not print)."""
    lab = cv2.cvtColor(crop_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    face = np.median(lab.reshape(-1, 3), axis=0)
    distance = np.linalg.norm(lab - face, axis=2)
    ink = (distance > INK_DISTANCE).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    height, width = ink.shape
    smallest = MIN_MARK_SHARE * height * width
    pips: list[tuple[float, float, float, float]] = []  # area, width, centre x, centre y
    for k in range(1, count):
        x, y, w, h, area = stats[k]
        if area < smallest or x == 0 or y == 0 or x + w >= width or y + h >= height:
            continue
        mark = labels == k
        if (area > MAX_PIP_SHARE * height * width or distance[mark].max() < MIN_PIP_CONTRAST
                or not _is_pip(mark, float(area))):
            return False  # a stroke, a ring or a blurred number: printed, not a pip
        pips.append((float(area), float(max(w, h)), x + w / 2, y + h / 2))
    if len(pips) < 2:
        return False
    areas, sizes, xs, ys = (np.array(column) for column in zip(*pips))
    if areas.max() > MAX_SIZE_SPREAD * areas.min():
        return False
    reach = MIN_PATTERN_SPREAD * sizes.mean()
    return bool(np.ptp(xs) >= reach and np.ptp(ys) >= reach)


def _is_pip(mask: np.ndarray, area: float) -> bool:
    """Whether one mark (``mask``, ``area`` pixels) is solid and round, as a pip is."""
    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.contourArea(cv2.convexHull(outline))
    if hull <= 0 or area / hull < MIN_SOLIDITY or len(outline) < 5:
        return False
    _, axes, _ = cv2.fitEllipse(outline)
    return min(axes) >= MIN_ROUNDNESS * max(axes)
