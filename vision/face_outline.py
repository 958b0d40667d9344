"""A tile's face as the photo shows it: four corners found in the pixels around a box.

The finder gives every tile an oriented *rectangle*. A tile seen at a steep angle is not one:
its face is a parallelogram or a trapezoid (a phone tilted 50 degrees to the side shears a
tile turned on the table into a flat rhombus), and the best rectangle over it cuts off two of
its corners and takes in table at the other two, so the reader sees a cut, skewed number
(most misreads of the benchmark's 50 degree side tilt were these). The face itself is easy
to see: a plain patch of light plastic, one colour, on whatever lies around it. So around an
unsure box the pixels of the face's colour are taken (the brighter half of the box's middle,
which is plastic rather than ink), the patch under the box is outlined, and its outline is
simplified to four corners, which the reader's warp then maps onto an upright crop.

The outline is given only when it looks like one tile: a closed patch (not running off the
window, as a table of the tiles' own colour would), about the box's area (not two touching
tiles merged, nor a sliver), well described by four corners, and holding no other box's centre.
Otherwise ``None``: the box is kept, as before. Nothing here knows a print's colours, a table
colour or a threshold of brightness (only that faces are light plastic with darker ink); the
face's colour and the cut between face and not-face come from each photo (Otsu's threshold on
the colour distance to the face).
"""

from __future__ import annotations

import cv2
import numpy as np

#: The windows looked at around a box, in the box's longer side, the wider one only where the
#: patch runs off the narrower: a sheared face reaches past its box, at times well past (a
#: finder's rectangle may cover only the middle half of a flat rhombus), but a wide window
#: also takes in more of what lies around (a shadow that joins the face to another tile).
WINDOWS = (2.2, 3.5)
#: The window is looked at no larger than this many pixels across (the outline needs no more).
WINDOW_PX = 160
#: The patch's convex outline, as a share of the box's area: up to twice and more where the box
#: covers the middle of a flat rhombus. Two tiles merged hold the other's box centre (refused
#: there), and a crop of two tiles is rarely read surely as one (the reader's bar, not this).
AREA_RANGE = (0.5, 2.5)
#: Four corners must cover at least this share of the patch's convex outline.
MIN_QUAD_SHARE = 0.9
#: Opening of the face mask, in the box's shorter side (specks and thin bridges to a neighbour).
OPENING = 0.08


def face_outline(image_bgr: np.ndarray, corners: np.ndarray,
                 other_centres: np.ndarray | None = None) -> np.ndarray | None:
    """The four corners (clockwise, starting nearest the box's first corner) of the light face
    under the box ``corners``, or None when the pixels show no single tile's face there.
    ``other_centres``: the centres of the photo's other boxes, none of which may lie inside."""
    corners = np.asarray(corners, np.float32).reshape(4, 2)
    if not np.isfinite(corners).all():
        return None
    width = float(np.linalg.norm(corners[1] - corners[0]))
    height = float(np.linalg.norm(corners[3] - corners[0]))
    if min(width, height) < 2:
        return None
    for reach in WINDOWS:
        window, origin, scale = _window(image_bgr, corners.mean(axis=0), reach * max(width, height))
        if window is None:
            return None
        patch, ran_off = _face_patch(window, (corners - origin) * scale,
                                     max(1, round(OPENING * min(width, height) * scale)))
        if not ran_off:
            break
    if patch is None:
        return None
    hull = cv2.convexHull(max(cv2.findContours(patch, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)[0],
                              key=cv2.contourArea))
    area = float(cv2.contourArea(hull))
    box_area = width * height * scale * scale
    if not AREA_RANGE[0] * box_area <= area <= AREA_RANGE[1] * box_area:
        return None
    quad = _four_corners(hull)
    if quad is None or cv2.contourArea(quad) < MIN_QUAD_SHARE * area:
        return None
    quad = quad / scale + origin
    if other_centres is not None and any(
            cv2.pointPolygonTest(quad.reshape(-1, 1, 2), (float(x), float(y)), False) >= 0 for x, y in other_centres):
        return None
    centre = quad.mean(axis=0)
    clockwise = quad[np.argsort(np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0]))]
    start = int(np.argmin(np.linalg.norm(clockwise - corners[0], axis=1)))
    return np.roll(clockwise, -start, axis=0).astype(np.float32)


def overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quadrilaterals."""
    a, b = np.asarray(a, np.float32).reshape(-1, 2), np.asarray(b, np.float32).reshape(-1, 2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = cv2.contourArea(a) + cv2.contourArea(b) - inter
    return float(inter / union) if union > 0 else 0.0


def skew_degrees(quad: np.ndarray) -> float:
    """How far the quadrilateral's most skewed corner is from a right angle, in degrees."""
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    worst = 0.0
    for k in range(4):
        a, b = quad[k - 1] - quad[k], quad[(k + 1) % 4] - quad[k]
        cosine = float(a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-9))
        worst = max(worst, abs(90.0 - float(np.degrees(np.arccos(np.clip(cosine, -1.0, 1.0))))))
    return worst


def _window(image_bgr: np.ndarray, centre: np.ndarray, side: float) -> tuple[np.ndarray | None, np.ndarray, float]:
    """The square around ``centre`` (clipped to the photo), shrunk to at most ``WINDOW_PX``:
    (pixels, their top-left corner in the photo, the shrink factor)."""
    height, width = image_bgr.shape[:2]
    x0, y0 = int(max(0, centre[0] - side / 2)), int(max(0, centre[1] - side / 2))
    x1, y1 = int(min(width, centre[0] + side / 2)), int(min(height, centre[1] + side / 2))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None, np.zeros(2, np.float32), 1.0
    window = image_bgr[y0:y1, x0:x1]
    scale = min(1.0, WINDOW_PX / max(window.shape[:2]))
    if min(window.shape[:2]) * scale < 4:
        return None, np.zeros(2, np.float32), 1.0  # a sliver of photo: nothing to outline
    if scale < 1.0:
        window = cv2.resize(window, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return window, np.array([x0, y0], np.float32), scale


def _face_patch(window: np.ndarray, box: np.ndarray, opening: int) -> tuple[np.ndarray | None, bool]:
    """uint8 mask of the patch of the face's colour under the middle of ``box`` (window
    pixels), or None when it is not there or runs off the window; and whether it ran off."""
    lab = cv2.cvtColor(window, cv2.COLOR_BGR2LAB).astype(np.float32)
    centre = box.mean(axis=0)
    middle = np.zeros(window.shape[:2], np.uint8)
    cv2.fillConvexPoly(middle, ((box - centre) * 0.5 + centre).round().astype(np.int32), 1)
    inside = lab[middle > 0]
    if len(inside) < 10:
        return None, False
    # the brighter half is plastic, not ink: every print we know has light faces and ink that
    # covers far less than half the face's middle (a dark-faced print would need the other half)
    plastic = inside[inside[:, 0] >= np.median(inside[:, 0])]
    distance = np.linalg.norm(lab - np.median(plastic, axis=0), axis=2)
    # doubled before it is cut to a byte: the distances that matter (plastic to table) lie well
    # under 128, and Otsu's threshold needs them spread over the byte, not packed near zero
    _, mask = cv2.threshold(np.clip(distance * 2, 0, 255).astype(np.uint8), 0, 1,
                            cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (opening, opening)))
    count, labels = cv2.connectedComponents(mask)
    under = np.bincount(labels[middle > 0].ravel(), minlength=count)
    under[0] = 0
    if under.max() == 0:
        return None, False
    patch = (labels == under.argmax()).astype(np.uint8)
    rows, columns = np.nonzero(patch)
    if rows.min() == 0 or columns.min() == 0 or rows.max() == patch.shape[0] - 1 or columns.max() == patch.shape[1] - 1:
        return None, True  # a face reaching past the window, a table of its colour, a row of tiles
    return patch, False


def _four_corners(hull: np.ndarray) -> np.ndarray | None:
    """The hull simplified to four corners (Douglas-Peucker, from 2 % of its perimeter, the
    rounding of a tile's corners, to 12 %, past which the four would cut into the face), or None."""
    perimeter = cv2.arcLength(hull, True)
    for share in np.linspace(0.02, 0.12, 11):
        approx = cv2.approxPolyDP(hull, share * perimeter, True)
        if len(approx) == 4:
            return approx.reshape(4, 2).astype(np.float32)
        if len(approx) < 4:
            return None
    return None
