"""Other camera views of the real training photos: strong tilts and close-ups, labels kept exact.

Why: the finder misses far tiles when the phone is tilted (30 degrees: 105 of 553 held-out
tiles) and boxes badly in close-ups, where tiles are big and cut by the photo's border. The
generator's camera tilts mildly, and ultralytics' ``perspective`` augmentation at a safe setting
is weaker still (a fine-tune with it got worse). A real photo seen from another angle keeps its
real tiles, table and light, and the homography that makes the view moves the labels exactly.

Only the *train* split of a real OBB dataset is read (``images/train``), so the held-out
sessions stay unseen. Each photo gives ``views`` new images, each either

- **tilted**: the phone turned 15-40 degrees about a horizontal or vertical axis through a
  phone lens (horizontal field of view 60-75 degrees), then either fitted back whole into the
  frame on a plain border, or cut to the rectangle inside the view (no border, tiles cut at
  the edges), or
- **a close-up**: a window 40-70 % of the photo's width and height, tiles 1.4 to 2.5 times as
  big in the frame;

or, with ``--steep``, every view **a steep tilt**: 40-60 degrees about either axis, through a
phone or tele lens (35-75 degrees wide, narrower where the far edge would pass 80 degrees),
fitted or cut as above (fitted where the inside is a sliver): a close-up from low across the
table, the view that boxed tiles worst (the benchmark's 50 degree side tilt).

The train photos next to each held-out block (the last ``NEAR_HELD_OUT`` numbers before a
session's first held-out one) give no views: neighbouring numbers are near-copies of the
held-out photos, and a view of one would bring the held-out table into training.

A tile cut by the border is labelled by the part that shows (the smallest turned rectangle
around it) when at least half its face shows, and left out otherwise: under half a tile is
neither a tile to find nor one to read, the same line the robustness benchmark counts by.

    .venv/bin/python -m rummi.datasets.real_views --real data/real/obb --out data/realviews --views 4 --seed 0
    .venv/bin/python -m rummi.datasets.real_views --real data/real/obb --out data/steepviews --views 2 --seed 1 --steep
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from rummi.datasets.errors import DatasetError
from rummi.datasets.sessions import session_of

#: A tile cut by the border is labelled when at least this share of its face shows.
MIN_SHOWN_FRACTION = 0.5
#: Train photos this close (in running number) before a session's held-out block give no views.
NEAR_HELD_OUT = 2
#: The phone's turn (degrees) and the lens's horizontal field of view (degrees) of a tilted
#: view, and of a steep one (``--steep``).
TILT_DEGREES = (15.0, 40.0)
TILT_FOV = (60.0, 75.0)
STEEP_DEGREES = (40.0, 60.0)
STEEP_FOV = (35.0, 75.0)
#: A steep view's far edge at most this many degrees off the table's normal (the turn plus the
#: lens's half-angle along it; narrower lenses where needed, :func:`widest_lens`): nearer 90 the
#: far side of the photo stretches towards the horizon.
MAX_VIEW_ANGLE = 80.0
#: A steep view's inside rectangle kept only when its short side is at least this share of its
#: long one; else the view is fitted whole (at 50-60 degrees the inside is often a sliver).
MIN_INSIDE_ASPECT = 0.5


@dataclass
class View:
    """One derived image: pixels and tile outlines (N x 4 x 2, pixels)."""

    image: np.ndarray
    quads: np.ndarray
    kind: str


def read_obb_labels(path: Path, width: int, height: int) -> np.ndarray:
    """YOLO OBB label lines (class x1 y1 ... x4 y4, normalised) -> N x 4 x 2 pixel corners."""
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    quads = np.array([[float(v) for v in row[1:9]] for row in rows], np.float64).reshape(-1, 4, 2)
    return quads * np.array([width, height], np.float64)


def label_lines(quads: np.ndarray, width: int, height: int) -> str:
    scaled = quads.reshape(-1, 8) / np.array([width, height] * 4, np.float64)
    return "".join("0 " + " ".join(f"{v:.6f}" for v in row) + "\n" for row in np.clip(scaled, 0.0, 1.0))


def tilt_matrix(width: int, height: int, degrees: float, axis: str, fov_degrees: float) -> np.ndarray:
    """Homography of a phone turned ``degrees`` about its horizontal (``"x"``) or vertical
    (``"y"``) axis, through a lens of horizontal field of view ``fov_degrees``."""
    focal = (width / 2) / np.tan(np.radians(fov_degrees / 2))
    k = np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])
    a = np.radians(degrees)
    c, s = np.cos(a), np.sin(a)
    rotation = (np.array([[1, 0, 0], [0, c, -s], [0, s, c]]) if axis == "x"
                else np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]))
    return k @ rotation @ np.linalg.inv(k)


def fit_in_frame(moved: np.ndarray, width: int, height: int) -> np.ndarray:
    """The scale and shift that fit a turned view, whose frame corners went to ``moved``, back
    in a ``width`` x ``height`` frame, whole and centred (the rest of the frame is border)."""
    x0, y0 = moved.min(axis=0)
    x1, y1 = moved.max(axis=0)
    scale = min(width / (x1 - x0), height / (y1 - y0))
    return np.array([[scale, 0, -x0 * scale + (width - (x1 - x0) * scale) / 2],
                     [0, scale, -y0 * scale + (height - (y1 - y0) * scale) / 2], [0, 0, 1]])


def _frame(width: int, height: int) -> np.ndarray:
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)


def _moved(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), matrix).reshape(-1, 2)


def clip_to_frame(quads: np.ndarray, width: int, height: int) -> np.ndarray:
    """Keep tiles with at least MIN_SHOWN_FRACTION of their face inside; a cut tile becomes the
    smallest turned rectangle around the part that shows."""
    frame = _frame(width, height).astype(np.float32)
    kept = []
    for quad in quads:
        hull = cv2.convexHull(quad.astype(np.float32))
        area = abs(cv2.contourArea(hull))
        if area <= 1.0:
            continue
        inside, polygon = cv2.intersectConvexConvex(hull, frame)
        if inside < MIN_SHOWN_FRACTION * area:
            continue
        if inside >= 0.999 * area:
            kept.append(quad)
        else:
            kept.append(cv2.boxPoints(cv2.minAreaRect(polygon.reshape(-1, 2))).astype(np.float64))
    return np.array(kept, np.float64).reshape(-1, 4, 2)


def tilted_view(rng: np.random.Generator, image: np.ndarray, quads: np.ndarray, steep: bool = False) -> View:
    """The photo seen with the phone turned: 15-40 degrees through a phone lens, or
    ``steep``: 40-60 degrees through a phone or a tele lens (horizontal field of view 35-75
    degrees), about either axis as often (a player's close-up from low across the table)."""
    h, w = image.shape[:2]
    degrees = float(rng.uniform(*STEEP_DEGREES if steep else TILT_DEGREES))
    sign = float(rng.choice([-1, 1]))
    axis = "x" if rng.random() < (0.5 if steep else 0.7) else "y"
    low, high = STEEP_FOV if steep else TILT_FOV
    if steep:  # a lens narrow enough that the far edge stays MAX_VIEW_ANGLE off the normal
        high = min(high, widest_lens(w, h, degrees, axis))
        low = min(low, high)
    fov = float(rng.uniform(low, high))
    matrix = tilt_matrix(w, h, sign * degrees, axis, fov)
    moved = _moved(matrix, _frame(w, h))
    x0, x1 = max(moved[0, 0], moved[3, 0]), min(moved[1, 0], moved[2, 0])
    y0, y1 = max(moved[0, 1], moved[1, 1]), min(moved[2, 1], moved[3, 1])
    inside = rng.random() >= 0.5
    if steep and min(x1 - x0, y1 - y0) < MIN_INSIDE_ASPECT * max(x1 - x0, y1 - y0):
        inside = False  # the rectangle inside a steep view is a sliver: fitted whole instead
    if not inside:  # the whole view fitted back on a plain border
        out_w, out_h = w, h
        fit = fit_in_frame(moved, w, h)
        border = tuple(int(v) for v in rng.integers(0, 256, 3))
        kind = "steep-fitted" if steep else "tilt-fitted"
    else:  # the rectangle inside the view: no border, tiles cut at its edges
        scale = min(w / (x1 - x0), h / (y1 - y0), 1.5)
        out_w, out_h = int((x1 - x0) * scale), int((y1 - y0) * scale)
        fit = np.array([[scale, 0, -x0 * scale], [0, scale, -y0 * scale], [0, 0, 1]])
        border = (0, 0, 0)
        kind = "steep-inside" if steep else "tilt-inside"
    matrix = fit @ matrix
    warped = cv2.warpPerspective(image, matrix, (out_w, out_h), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    moved_quads = _moved(matrix, quads.reshape(-1, 2)).reshape(-1, 4, 2) if len(quads) else quads
    return View(warped, clip_to_frame(moved_quads, out_w, out_h), kind)


def widest_lens(width: int, height: int, degrees: float, axis: str) -> float:
    """The widest horizontal field of view (degrees) that keeps a view turned ``degrees``
    about ``axis`` (``tilt_matrix``'s) within ``MAX_VIEW_ANGLE`` of the table's normal at its
    far edge: the half-angle that counts is along the turn, the photo's height for a turn
    about the horizontal axis (larger than the width on a portrait photo)."""
    along = height if axis == "x" else width
    half = np.arctan(np.tan(np.radians(MAX_VIEW_ANGLE - degrees)) * width / along)
    return float(2 * np.degrees(half))


def closeup_view(rng: np.random.Generator, image: np.ndarray, quads: np.ndarray) -> View:
    h, w = image.shape[:2]
    cw, ch = int(w * rng.uniform(0.4, 0.7)), int(h * rng.uniform(0.4, 0.7))
    x0, y0 = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
    crop = np.ascontiguousarray(image[y0:y0 + ch, x0:x0 + cw])
    return View(crop, clip_to_frame(quads - np.array([x0, y0], np.float64), cw, ch), "closeup")


def make_view(rng: np.random.Generator, image: np.ndarray, quads: np.ndarray, steep: bool = False) -> View:
    if steep:
        return tilted_view(rng, image, quads, steep=True)
    return tilted_view(rng, image, quads) if rng.random() < 0.6 else closeup_view(rng, image, quads)


def next_to_held_out(train: list[Path], held_out: list[Path], near: int = NEAR_HELD_OUT) -> set[Path]:
    """The train photos within ``near`` numbers before their session's first held-out photo."""
    first_held: dict[str, int] = {}
    for photo in held_out:
        try:
            prefix, number = session_of(photo.name)
        except DatasetError:
            continue
        first_held[prefix] = min(number, first_held.get(prefix, number))
    close = set()
    for photo in train:
        try:
            prefix, number = session_of(photo.name)
        except DatasetError:
            continue
        if prefix in first_held and first_held[prefix] - near <= number < first_held[prefix]:
            close.add(photo)
    return close


def write_views(real_obb: Path, out_dir: Path, views: int, seed: int, steep: bool = False) -> dict:
    """Write ``views`` derived images per train photo of ``real_obb`` as an OBB dataset in
    ``out_dir/obb`` (train split only, less the photos next to a held-out block); ``steep``:
    every view a steep tilt. Returns the manifest."""
    real_obb, out_dir = Path(real_obb).resolve(), Path(out_dir).resolve()
    photos = sorted((real_obb / "images" / "train").glob("*.jpg"))
    if not photos:
        raise DatasetError(f"{real_obb}: no images/train/*.jpg (expected a folder written by `rummi dataset real`)")
    if views < 1:
        raise DatasetError("--views must be at least 1")
    images_dir, labels_dir = out_dir / "obb" / "images" / "train", out_dir / "obb" / "labels" / "train"
    skipped = next_to_held_out(photos, sorted((real_obb / "images" / "val").glob("*.jpg")))
    images_dir.mkdir(parents=True, exist_ok=True)
    labels_dir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    tiles = 0
    for number, photo in enumerate(photos):  # numbered over every photo: a skip changes no other view
        if photo in skipped:
            continue
        image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if image is None:
            raise DatasetError(f"{photo}: not a readable image")
        h, w = image.shape[:2]
        quads = read_obb_labels(real_obb / "labels" / "train" / (photo.stem + ".txt"), w, h)
        rng = np.random.default_rng([seed, number])
        for k in range(views):
            view = make_view(rng, image, quads, steep)
            name = f"{photo.stem}-v{k}"
            cv2.imwrite(str(images_dir / f"{name}.jpg"), view.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            vh, vw = view.image.shape[:2]
            (labels_dir / f"{name}.txt").write_text(label_lines(view.quads, vw, vh))
            counts[view.kind] = counts.get(view.kind, 0) + 1
            tiles += len(view.quads)
    # Views are train only; "val" names the real held-out photos they were kept apart from, the
    # split `rummi train detector` scores once at the end (it never validates on it).
    (out_dir / "obb" / "data.yaml").write_text(
        "# Written by rummi.datasets.real_views; oriented boxes. Train only: val is the real held-out photos.\n"
        f"path: {out_dir / 'obb'}\ntrain: images/train\nval: {real_obb / 'images' / 'val'}\nnc: 1\n"
        "names:\n  0: tile\n")
    used = len(photos) - len(skipped)
    manifest = {"kind": "real-views", "source": str(real_obb), "photos": used, "views_per_photo": views,
                "skipped_next_to_held_out": sorted(p.name for p in skipped),
                "seed": seed, "steep": steep, "images": used * views, "tiles": tiles, "by_kind": counts,
                "command": f"python -m rummi.datasets.real_views --real {real_obb} --out {out_dir} "
                           f"--views {views} --seed {seed}" + (" --steep" if steep else "")}
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", type=Path, required=True, help="a real OBB dataset, e.g. data/real/obb")
    parser.add_argument("--out", type=Path, required=True, help="output folder, e.g. data/realviews")
    parser.add_argument("--views", type=int, default=4, help="derived images per train photo")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steep", action="store_true",
                        help="every view a steep tilt (40-60 degrees, lens 35-75 degrees wide) instead")
    args = parser.parse_args(argv)
    try:
        manifest = write_views(args.real, args.out, args.views, args.seed, args.steep)
    except DatasetError as error:
        print(f"error: {error}")
        return 1
    print(json.dumps({k: manifest[k] for k in ("images", "tiles", "by_kind")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
