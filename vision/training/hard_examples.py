"""Crops the reader must learn to refuse ("none") and jokers whose colour is known.

    python -m rummi.vision.training.hard_examples --scenes data/real --scenes data/synth --out data/hard
    python -m rummi.vision.training.hard_examples --clutter 1500 --out data/clutter

Why: the reader had no "not a tile" answer, so anything tile-sized the finder boxed (a
knot in the wood, a bottle sticker, a face-down tile, a box half on two tiles) was read as
some tile, often a joker, and reached a score or a hint. Here every dataset photo (real or
generated, train and val kept apart) gives crops of what is *not* a tile, cut with the same
warp the reader reads with (``vision/geometry.py``):

* the finder's own false finds: boxes of the shipped finder whose centre is near no labelled
  tile (the mistakes the reader will really be shown);
* boxes straddling a tile and its neighbour or the table (half a tile or more off along its
  width or height): what a close-up's misplaced box cuts;
* tile-sized boxes on the table, the clutter and the rack, away from every tile;
* face-down tiles: a tile's own plastic and shading with the print taken off;
* (``--clutter``) tile-sized clutter drawn alone on a table: dice, coins, stickers, a score
  pad's corner. The finder boxed dice on generated scenes and the reader read them as a 1 or
  a 4: the scenes held too few for it to learn them.

A box is a negative only when its centre is at least ``CLEAR`` of a tile's width (or height)
from every labelled tile's centre, farther than the jittered boxes the reader learns to read
through (``reader.jittered_crop``), so no real tile's crop is ever taught as "none".

Jokers: a generated scene's truth names the joker's kind (Expert ``Jk Jb Jo Jr``, Twist
``Jc Jd Jm Js``), hence its colour (rules.md 1.3); those crops go to the colour's class. A plain
``J`` (the real photos, most generated ones) says nothing of its colour and stays in the
datasets' ``J`` folder, which the reader learns as "a joker of some colour".

Output: ``OUT/crops/{train,val}/<class>/*.jpg``, the layout of the datasets' crops folders, for
``rummi train reader --data OUT/crops``. Nothing here is tuned to a photo: the counts per
photo are fixed and the boxes random with a seed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from rummi.vision.classes import JOKER_COLOUR_OF, NOT_A_TILE
from rummi.vision.finder import TileFinder
from rummi.vision.geometry import portrait_order, warp_crop
from rummi.vision.onnx_model import default_models_dir, load_onnx_model

#: A negative box's centre lies at least this share of a tile's width (or height) from its centre.
CLEAR = 0.42
STRADDLES_PER_PHOTO = 3
BACKGROUND_PER_PHOTO = 2
FACE_DOWN_SHARE = 0.3


def tile_frames(quads: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centres, width axes and height axes (full-length vectors) of tiles given TL, TR, BR, BL."""
    centres = quads.mean(axis=1)
    across = ((quads[:, 1] - quads[:, 0]) + (quads[:, 2] - quads[:, 3])) / 2
    along = ((quads[:, 3] - quads[:, 0]) + (quads[:, 2] - quads[:, 1])) / 2
    return centres, across, along


def clear_of_tiles(point: np.ndarray, quads: np.ndarray, clear: float = CLEAR) -> bool:
    """True when ``point`` is no tile's centre give or take ``clear`` of its width and height."""
    if not len(quads):
        return True
    centres, across, along = tile_frames(quads)
    offset = point[None, :] - centres
    u = (offset * across).sum(axis=1) / np.maximum((across * across).sum(axis=1), 1e-6)
    v = (offset * along).sum(axis=1) / np.maximum((along * along).sum(axis=1), 1e-6)
    return bool(np.all((np.abs(u) >= clear) | (np.abs(v) >= clear)))


def straddling(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The tile's box moved half a tile or more along its width or its height."""
    _, across, along = tile_frames(quad[None])
    axis = across[0] if rng.random() < 0.7 else along[0]
    return (quad + axis * rng.uniform(0.45, 0.7) * rng.choice([-1, 1])).astype(np.float32)


def tile_sized_box(centre: np.ndarray, width: float, rng: np.random.Generator) -> np.ndarray:
    """A portrait 3:4 box of about ``width`` at ``centre``, at any angle (TL, TR, BR, BL)."""
    w = width * rng.uniform(0.75, 1.35)
    box = cv2.boxPoints(((float(centre[0]), float(centre[1])), (w, w * rng.uniform(1.2, 1.45)),
                         float(rng.uniform(0, 180))))
    return portrait_order(box.astype(np.float32))


def face_down(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A tile's crop with its print taken off: the plastic's colour under the crop's own shading."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    closed = cv2.morphologyEx(grey, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (31, 31)))
    shading = cv2.GaussianBlur(closed.astype(np.float32), (0, 0), 6)
    bright = grey >= np.percentile(grey, 60)
    plastic = np.array([np.median(crop[..., c][bright]) for c in range(3)], np.float32)
    out = shading[..., None] / max(float(np.percentile(shading, 90)), 1.0) * plastic[None, None, :]
    out = out + rng.normal(0, 3, out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def photo_negatives(image: np.ndarray, quads: np.ndarray, finder: TileFinder | None,
                    rng: np.random.Generator) -> list[tuple[str, np.ndarray]]:
    """``(kind, crop)`` pairs of what is not a tile in one photo whose tiles are ``quads``."""
    out: list[tuple[str, np.ndarray]] = []
    h, w = image.shape[:2]
    if finder is not None:
        for corners in finder.find(image).corners:
            if clear_of_tiles(corners.mean(axis=0), quads):
                out.append(("false-find", warp_crop(image, corners)))
    widths = np.linalg.norm(tile_frames(quads)[1], axis=1) if len(quads) else np.array([0.06 * max(h, w)])
    width = float(np.median(widths))
    for index in rng.permutation(len(quads))[:STRADDLES_PER_PHOTO]:
        moved = straddling(quads[index], rng)
        if clear_of_tiles(moved.mean(axis=0), quads):
            out.append(("straddle", warp_crop(image, moved)))
    for _ in range(BACKGROUND_PER_PHOTO * 4):
        if sum(kind == "background" for kind, _ in out) >= BACKGROUND_PER_PHOTO:
            break
        centre = rng.uniform([width, width], [max(w - width, width + 1), max(h - width, width + 1)])
        if clear_of_tiles(centre, quads, clear=0.75):
            out.append(("background", warp_crop(image, tile_sized_box(centre, width, rng))))
    if len(quads) and rng.random() < FACE_DOWN_SHARE:
        out.append(("face-down", face_down(warp_crop(image, quads[int(rng.integers(len(quads)))]), rng)))
    return out


def clutter_negatives(count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """``count`` crops of tile-sized things that are not tiles (dice, coins, stickers, a score
    pad's corner; ``datasets.synth.distractors.tile_sized_clutter``), cut through tile-sized
    boxes about them as the finder would box them, through a phone camera's effects."""
    from rummi.datasets.synth.camera import photo_effects
    from rummi.datasets.synth.distractors import tile_sized_clutter

    crops = []
    for _ in range(count):
        width = float(rng.uniform(30, 110))
        picture, _name = tile_sized_clutter(rng, width)
        picture, _effects = photo_effects(rng, picture)
        centre = np.array(picture.shape[1::-1], np.float64) / 2 + rng.normal(0, 0.08 * width, 2)
        crops.append(warp_crop(picture, tile_sized_box(centre, width * 0.9, rng)))
    return crops


def write_clutter(out: Path, count: int, seed: int = 0, val_fraction: float = 0.1) -> Counter:
    """Write ``count`` clutter crops as ``none`` into ``OUT/crops/{train,val}/none``."""
    rng = np.random.default_rng([seed, 7])
    counts: Counter = Counter()
    for split, n in (("train", count), ("val", max(1, int(count * val_fraction)))):
        folder = out / "crops" / split / NOT_A_TILE
        folder.mkdir(parents=True, exist_ok=True)
        for k, crop in enumerate(clutter_negatives(n, rng)):
            cv2.imwrite(str(folder / f"clutter-{k}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
            counts[(split, "clutter")] += 1
    (out / "crops" / "counts.json").write_text(json.dumps({f"{s}/{k}": n for (s, k), n in sorted(counts.items())},
                                                           indent=1) + "\n")
    return counts


def write(roots: list[Path], out: Path, seed: int = 0, finder_photos: int = 1000) -> Counter:
    """Write the crops of every photo under ``roots`` (datasets written by `rummi dataset`)."""
    if (out / "crops").exists():
        raise SystemExit(f"{out / 'crops'} already exists: choose another --out")
    finder = TileFinder(load_onnx_model(default_models_dir() / "tile-finder", 1))
    rng = np.random.default_rng(seed)
    counts: Counter = Counter()
    for root in roots:
        for split in ("train", "val"):
            truths = sorted((root / "truth" / split).glob("*.json"))
            use_finder = set(rng.permutation(len(truths))[:finder_photos].tolist())
            for number, path in enumerate(truths):
                truth = json.loads(path.read_text())
                image = cv2.imread(str(root / "detect" / "images" / split / f"{truth['name']}.jpg"), cv2.IMREAD_COLOR)
                if image is None:
                    continue
                quads = np.array([t["corners"] for t in truth["tiles"]], np.float32).reshape(-1, 4, 2)
                crops = photo_negatives(image, quads, finder if number in use_finder else None, rng)
                for tile in truth["tiles"]:
                    colour = JOKER_COLOUR_OF.get(tile["notation"])
                    if colour and tile["visible_fraction"] >= 0.8:
                        crops.append((colour, warp_crop(image, np.array(tile["corners"], np.float32))))
                for k, (kind, crop) in enumerate(crops):
                    label = kind if kind in JOKER_COLOUR_OF.values() else NOT_A_TILE
                    folder = out / "crops" / split / label
                    folder.mkdir(parents=True, exist_ok=True)
                    cv2.imwrite(str(folder / f"{root.name}-{truth['name']}-{kind}-{k}.jpg"), crop,
                                [cv2.IMWRITE_JPEG_QUALITY, 92])
                    counts[(split, kind)] += 1
                print(f"\r  {root.name} {split} {number + 1}/{len(truths)}", end="", file=sys.stderr, flush=True)
            print(file=sys.stderr)
    (out / "crops" / "counts.json").write_text(json.dumps({f"{s}/{k}": n for (s, k), n in sorted(counts.items())},
                                                           indent=1) + "\n")
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=Path, action="append", default=[],
                        help="a dataset root written by `rummi dataset` (truth/, detect/images/); repeatable")
    parser.add_argument("--clutter", type=int, default=0,
                        help="instead: this many crops of tile-sized clutter (dice, coins, stickers, a pad)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--finder-photos", type=int, default=1000,
                        help="photos per dataset and split the finder is run on for its false finds")
    args = parser.parse_args(argv)
    if bool(args.scenes) == bool(args.clutter):
        parser.error("give --scenes (crops from dataset photos) or --clutter N (generated clutter), one of them")
    if args.clutter:
        if (args.out / "crops").exists():
            parser.error(f"{args.out / 'crops'} already exists: choose another --out")
        counts = write_clutter(args.out, args.clutter, args.seed)
        for (split, kind), n in sorted(counts.items()):
            print(f"{split:5} {kind:10} {n}")
        return 0
    for root in args.scenes:
        if not (root / "truth").is_dir():
            parser.error(f"{root} has no truth/ folder: write it with `rummi dataset real|synth` first")
    counts = write(args.scenes, args.out, args.seed, args.finder_photos)
    for (split, kind), n in sorted(counts.items()):
        print(f"{split:5} {kind:10} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
