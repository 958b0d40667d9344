"""Train the tile reader: a small CNN over upright crops, 57 answers x 2 orientations.

The answers (``vision/classes.py: READER_CLASSES``): 52 numbered tiles, a joker by its
colour (black, blue, orange, red) and "none" (not a tile). A crop folder may also be named
``J``: a joker whose colour nobody wrote down (the real photos); its loss is on the four
joker colours together, as an unsure orientation's is on both orientations.

Why a small CNN of our own rather than a 53-class detector: finding and reading are
different jobs, and a classifier on a cut-out, straightened tile learns the reading from a
few thousand crops in minutes on a CPU (a 53-class detector from scratch did not learn in the
same time; see docs/vision.md).

Why 2 orientations: the datasets store every crop upright; turning a crop by 180 degrees
makes its "upside-down" twin for free. Learning both lets the reader say which way up a tile
lies, which is what tells a 6 from a 9. A real crop whose upright side was a guess
(``orientation_confidence`` below 0.1 in ``crops/index.csv``) only teaches the tile, not the
orientation: its loss is on the tile's total over both orientations.

Why heavy augmentation: the reader will meet prints, lights and cameras it never saw. Colour
gains per channel (white balance), brightness, contrast, gamma, blur, noise, JPEG, small
turns and shifts (an imprecise finder), and glare spots. Hue is left alone: it *is* the
colour being read (orange vs red).
"""

from __future__ import annotations

import csv
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from rummi.vision.classes import JOKER_COLOUR_OF, JOKER_COLOURS, NOT_A_TILE, READER_CLASSES
from rummi.vision.geometry import CROP_SIZE, warp_crop
from rummi.vision.training.record import TrainingRecord, machine_description

#: The reader's answers; the model's output is ``orientation * len(TILE_NAMES) + answer``.
TILE_NAMES: tuple[str, ...] = READER_CLASSES
#: What a crop may be labelled: an answer, or ``J`` (a joker of unknown colour).
LABELS: tuple[str, ...] = READER_CLASSES + ("J",)
#: ACCEPTED[label, answer]: the answers that are right for a crop of that label.
ACCEPTED: np.ndarray = np.eye(len(LABELS), len(TILE_NAMES), dtype=bool)
ACCEPTED[LABELS.index("J"), [TILE_NAMES.index(c) for c in JOKER_COLOURS]] = True
#: The labels that are a joker (of a known colour or not).
JOKER_LABELS: tuple[int, ...] = tuple(LABELS.index(c) for c in (*JOKER_COLOURS, "J"))
INPUT_WH: tuple[int, int] = (48, 64)
CROP_WH: tuple[int, int] = CROP_SIZE
UNSURE_ORIENTATION = 0.1


@dataclass
class CropSet:
    images: np.ndarray  # (N, 96, 72, 3) uint8 BGR, upright
    tiles: np.ndarray  # (N,) int index into LABELS
    orientation_known: np.ndarray  # (N,) bool
    source: np.ndarray  # (N,) int: which --data folder


def load_crops(folders: Sequence[Path], split: str) -> CropSet:
    images, tiles, known, source = [], [], [], []
    for number, folder in enumerate(folders):
        folder = Path(folder)
        confidence = _orientation_confidence(folder)
        for class_dir in sorted((folder / split).iterdir()):
            if class_dir.name not in LABELS:
                continue
            for path in sorted(class_dir.glob("*.jpg")) + sorted(class_dir.glob("*.png")):
                image = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if image is None:
                    continue
                if image.shape[:2] != (CROP_WH[1], CROP_WH[0]):
                    image = cv2.resize(image, CROP_WH, interpolation=cv2.INTER_AREA)
                images.append(image)
                tiles.append(LABELS.index(class_dir.name))
                rel = f"{split}/{class_dir.name}/{path.name}"
                # "none" has no up: a face-down tile or the table reads the same either way.
                known.append(confidence.get(rel, 1.0) >= UNSURE_ORIENTATION and class_dir.name != NOT_A_TILE)
                source.append(number)
    if not images:
        raise FileNotFoundError(f"no crops under {', '.join(str(f / split) for f in folders)}")
    return CropSet(np.stack(images), np.array(tiles), np.array(known), np.array(source))


@dataclass
class SceneTiles:
    """Tiles still in their photos, to cut crops with the box errors a detector makes."""

    photos: list[np.ndarray]
    photo_of: np.ndarray  # (N,) index into photos
    quads: np.ndarray  # (N, 4, 2) TL, TR, BR, BL of the upright face
    tiles: np.ndarray
    orientation_known: np.ndarray


def load_scene_tiles(root: Path, split: str) -> SceneTiles:
    """Tiles of a dataset written by `rummi dataset` (``truth/`` and ``detect/images/``)."""
    photos, photo_of, quads, tiles, known = [], [], [], [], []
    for truth_path in sorted((Path(root) / "truth" / split).glob("*.json")):
        truth = json.loads(truth_path.read_text())
        usable = [t for t in truth["tiles"] if t["visible_fraction"] >= 0.8]
        if not usable:
            continue
        image = cv2.imread(str(Path(root) / "detect" / "images" / split / f"{truth['name']}.jpg"), cv2.IMREAD_COLOR)
        if image is None:
            continue
        photos.append(image)
        for tile in usable:
            notation = tile["notation"]
            label = JOKER_COLOUR_OF.get(notation, "J") if notation.startswith("J") else notation
            photo_of.append(len(photos) - 1)
            quads.append(tile["corners"])
            tiles.append(LABELS.index(label))
            known.append(tile["orientation_confidence"] >= UNSURE_ORIENTATION)
    return SceneTiles(photos, np.array(photo_of), np.array(quads, np.float32), np.array(tiles), np.array(known))


def jittered_crop(scene: SceneTiles, index: int, rng: np.random.Generator) -> np.ndarray:
    """An upright 72x96 crop through a box placed the way a detector might place it: shifted,
    scaled, turned a little, corners each a little off, so the reader learns to read through
    margins of table and cut-off edges."""
    quad = scene.quads[index].astype(np.float64)
    centre = quad.mean(axis=0)
    size = float(np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    angle = np.radians(rng.uniform(-12, 12))
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    scale = rng.uniform(0.85, 1.2, 2)  # along the tile's width and height, separately
    across, along = quad[1] - quad[0], quad[3] - quad[0]
    local = quad - centre
    local = np.outer(local @ across / (across @ across), across) * scale[0] + np.outer(
        local @ along / (along @ along), along) * scale[1]
    moved = local @ rotation.T + centre + rng.normal(0, 0.1, 2) * size + rng.normal(0, 0.03, (4, 2)) * size
    if rng.random() < STEEP_SHARE:
        moved = seen_steeply(moved, rng)
    return warp_crop(scene.photos[scene.photo_of[index]], moved.astype(np.float32), CROP_WH)


#: Share of crops cut as a finder's rectangle round a tile seen at a steep angle.
STEEP_SHARE = 0.25
#: How much a steep view shortens the tile along one direction (cos 63 to cos 18 degrees).
STEEP_SQUEEZE = (0.45, 0.95)


def finder_box(quad: np.ndarray) -> np.ndarray:
    """The oriented rectangle a finder puts round a tile whose face is the quadrilateral
    ``quad`` (TL, TR, BR, BL): the smallest turned rectangle around it, its corners in the
    tile's own order (the corner nearest each of ``quad``'s), so the crop stays upright even
    where the rectangle came out wider than tall."""
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    box = cv2.boxPoints(cv2.minAreaRect(quad.astype(np.float32))).astype(np.float64)
    if _signed_area(box) * _signed_area(quad) < 0:
        box = box[::-1]
    starts = [np.roll(box, -k, axis=0) for k in range(4)]
    return min(starts, key=lambda b: float(np.linalg.norm(b - quad, axis=1).sum()))


def _signed_area(points: np.ndarray) -> float:
    x, y = points[:, 0], points[:, 1]
    return float((x * np.roll(y, -1) - np.roll(x, -1) * y).sum() / 2)


def seen_steeply(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Where, in the same picture, to cut the crop a finder's box would give of this tile had
    the phone looked at it steeply: the picture squeezed along a random direction (a tilt
    foreshortens the table that way), the face a parallelogram whose rectangle (``finder_box``)
    cuts off two of its corners and takes in table or a neighbour at the other two, and that
    rectangle carried back into the unsqueezed picture.

    Why: on a 50 degree tilt the reader misread tiles sheared into parallelograms (docs/vision.md);
    the only perspective it had learnt was a straight-on trapezoid (``perspective``)."""
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    centre = quad.mean(axis=0)
    angle = rng.uniform(0, np.pi)
    direction = np.array([np.cos(angle), np.sin(angle)])
    squeeze = np.eye(2) + (rng.uniform(*STEEP_SQUEEZE) - 1) * np.outer(direction, direction)
    box = finder_box((quad - centre) @ squeeze.T)
    return box @ np.linalg.inv(squeeze).T + centre


def _orientation_confidence(folder: Path) -> dict[str, float]:
    index = folder / "index.csv"
    if not index.is_file():
        return {}
    out: dict[str, float] = {}
    with index.open(newline="") as handle:
        for row in csv.DictReader(handle):
            rel = row["path"].split("crops/", 1)[-1]
            out[rel] = float(row.get("orientation_confidence") or 1.0)
    return out


# --- augmentation ------------------------------------------------------------------------
def augment(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One randomly changed copy of an upright crop (same size, still upright)."""
    h, w = image.shape[:2]
    angle = rng.uniform(-8, 8)
    scale = rng.uniform(0.9, 1.12)
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), angle, scale)
    matrix[:, 2] += rng.uniform(-0.07, 0.07, 2) * (w, h)
    out = cv2.warpAffine(image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out = out.astype(np.float32) / 255.0
    out *= rng.uniform(0.85, 1.15, 3)  # white balance
    out = (out - 0.5) * rng.uniform(0.65, 1.3) + 0.5 + rng.uniform(-0.2, 0.2)
    out = np.clip(out, 0, 1) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.3:  # faded print or grey light
        grey = out.mean(axis=2, keepdims=True)
        out = out + (grey - out) * rng.uniform(0.1, 0.5)
    if rng.random() < 0.2:  # glare spot
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        yy, xx = np.mgrid[0:h, 0:w]
        spot = np.exp(-(((xx - cx) / (w * rng.uniform(0.1, 0.3))) ** 2 + ((yy - cy) / (h * 0.2)) ** 2))
        out = out + spot[..., None] * rng.uniform(0.2, 0.6)
    out = np.clip(out * 255, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:
        out = perspective(out, rng)
    elif rng.random() < STEEP_SHARE:
        out = sheared(out, rng)
    blur = rng.random()
    if rng.random() < LOW_RESOLUTION_SHARE:
        # Already as soft as a crop gets: no blur on top (a first run that stacked the two, with
        # more steep and low-resolution crops, read a 9 px motion blur worse: docs/vision.md).
        out = low_resolution(out, rng)
    elif blur < 0.2:
        out = motion_blurred(out, rng)
    elif blur < 0.3:
        out = defocused(out, rng)
    elif blur < 0.6:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.3))
    if rng.random() < 0.3:
        noise = rng.normal(0, rng.uniform(2, 9), out.shape)
        out = np.clip(out + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 90))])
        if ok:
            out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out


#: Share of crops cut from a tile only a few pixels wide (``low_resolution``).
LOW_RESOLUTION_SHARE = 0.1
#: The tile's width in the photo, in pixels, for such a crop.
LOW_RESOLUTION_WIDTH = (10, 32)


def low_resolution(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop of a tile 10-32 pixels wide in the photo (the far rows of a tilted phone, a
    table seen whole): the face shrunk to that size and warped back up to the crop, blocky and
    soft as the reader then gets it. The real training tiles are 40-150 px wide (5th to 95th
    percentile), the generated ones 23-87."""
    h, w = image.shape[:2]
    small_w = int(rng.integers(*LOW_RESOLUTION_WIDTH))
    small = cv2.resize(image, (small_w, max(2, round(small_w * h / w))), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def motion_blurred(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A shaken phone: a line kernel 3-15 crop pixels long at any angle (a 9 px shake of a
    1000 px photo is 8-16 px on a crop, tiles there being 40-80 px wide)."""
    length = int(rng.integers(3, 16))
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D(((length - 1) / 2, (length - 1) / 2), float(rng.uniform(0, 180)), 1.0)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(image, -1, kernel / max(float(kernel.sum()), 1e-6), borderType=cv2.BORDER_REPLICATE)


def defocused(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Out of focus: a disc kernel of radius 1.5-4 crop pixels."""
    radius = rng.uniform(1.5, 4.0)
    size = int(np.ceil(radius)) * 2 + 1
    yy, xx = np.mgrid[:size, :size] - size // 2
    kernel = (xx ** 2 + yy ** 2 <= radius ** 2).astype(np.float32)
    return cv2.filter2D(image, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REPLICATE)


def perspective(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The tile seen at a low angle: its far edge narrower, the face foreshortened."""
    h, w = image.shape[:2]
    squeeze = rng.uniform(0.0, 0.3) * w / 2
    drop = rng.uniform(0.0, 0.2) * h
    source = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    target = np.float32([[squeeze, drop], [w - squeeze, drop], [w, h], [0, h]])
    if rng.random() < 0.5:  # the near edge at the top instead
        target = np.float32([[0, 0], [w, 0], [w - squeeze, h - drop], [squeeze, h - drop]])
    # The finder's box is a rectangle round the trapezoid: the face fills it only at the near edge.
    return cv2.warpPerspective(image, cv2.getPerspectiveTransform(source, target), (w, h),
                               borderMode=cv2.BORDER_REPLICATE)


def sheared(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A crop cut the way :func:`seen_steeply` cuts one from a photo, for crops that come
    without their photo: what lies beyond the face is the face's edge drawn out, or a table."""
    h, w = image.shape[:2]
    frame = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    source = seen_steeply(frame, rng).astype(np.float32)
    matrix = cv2.getPerspectiveTransform(source, frame)
    if rng.random() < 0.5:
        return cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    table = tuple(int(v) for v in rng.integers(0, 256, 3))
    return cv2.warpPerspective(image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                               borderValue=table)


def to_input(images: np.ndarray) -> np.ndarray:
    """uint8 BGR crops (N, H, W, 3) -> float RGB (N, 3, 64, 48) in 0..1, as inference feeds."""
    small = np.stack([cv2.resize(i, INPUT_WH, interpolation=cv2.INTER_AREA) for i in images])
    return small[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0


# --- model -------------------------------------------------------------------------------
def build_model(classes: int = 2 * len(TILE_NAMES)) -> Any:
    """About 0.3 M parameters. The last layers keep a 3 x 4 map (not a global average) because
    *where* the number sits on the face is what tells up from down."""
    import torch.nn as nn

    def block(cin: int, cout: int) -> list[Any]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(
        *block(3, 24), *block(24, 24), nn.MaxPool2d(2),  # 32 x 24
        *block(24, 48), *block(48, 48), nn.MaxPool2d(2),  # 16 x 12
        *block(48, 96), *block(96, 96), nn.MaxPool2d(2),  # 8 x 6
        *block(96, 128), nn.AdaptiveAvgPool2d((4, 3)),
        nn.Flatten(), nn.Dropout(0.3), nn.Linear(128 * 12, classes),
    )


def answer_mask(labels: np.ndarray, flipped: np.ndarray, known: np.ndarray) -> np.ndarray:
    """(N, 2 * answers) bool: the outputs that are right for each crop. A crop turned round is
    right in the upside-down half; one whose up is unknown in both; a ``J`` of unknown colour
    in every joker colour."""
    answers = ACCEPTED[labels]
    upright = answers & (~flipped | ~known)[:, None]
    upside_down = answers & (flipped | ~known)[:, None]
    return np.concatenate([upright, upside_down], axis=1)


#: Share of tile crops turned a quarter round and taught as having no answer (``sideways``).
SIDEWAYS_SHARE = 0.08


def sideways(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop a box gives when its long side was taken the wrong way (a tile seen nearly
    square, or squeezed by a tilt): the tile turned a quarter round and stretched to portrait.

    Why teach it as no answer at all (the loss pulls it to even odds, see ``_loss``): the reader
    reads an unsure tile again through its box turned a quarter round (``vision/reader.py``) and
    keeps the surer read; on the 50 degree tilt and the modern print many kept reads were of
    sideways crops, read wrong more surely than the turned box read right."""
    h, w = image.shape[:2]
    turned = np.rot90(image, 1 if rng.random() < 0.5 else -1)
    return cv2.resize(np.ascontiguousarray(turned), (w, h), interpolation=cv2.INTER_AREA)


def _turned_sideways(tiles: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Which crops of a batch to turn sideways (tiles only: a non-tile is one either way)."""
    return (rng.random(len(tiles)) < SIDEWAYS_SHARE) & (tiles != LABELS.index(NOT_A_TILE))


def _finish(images: np.ndarray, tiles: np.ndarray, known: np.ndarray, rng: np.random.Generator,
            train: bool) -> tuple[np.ndarray, ...]:
    """Inputs, right-answer mask and sideways flags of a batch: half the crops turned round
    (their answer in the upside-down half), in training some turned sideways (any answer)."""
    images = images.copy()
    flip = rng.random(len(tiles)) < 0.5
    images[flip] = images[flip, ::-1, ::-1]
    mask = answer_mask(tiles, flip, known)
    turned = _turned_sideways(tiles, rng) if train else np.zeros(len(tiles), bool)
    for i in np.flatnonzero(turned):
        images[i] = sideways(images[i], rng)
    mask[turned] = True
    return to_input(images), mask, turned


def _batch(crops: CropSet, picks: np.ndarray, rng: np.random.Generator, train: bool) -> tuple[np.ndarray, ...]:
    images = crops.images[picks]
    if train:
        images = np.stack([augment(i, rng) for i in images])
    return _finish(images, crops.tiles[picks], crops.orientation_known[picks], rng, train)


def _scene_batch(scene: SceneTiles, picks: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    images = np.stack([augment(jittered_crop(scene, int(i), rng), rng) for i in picks])
    return _finish(images, scene.tiles[picks], scene.orientation_known[picks], rng, True)


def _loss(torch: Any, logits: Any, mask: Any, sideways: Any = None, smoothing: float = 0.05) -> Any:
    """Minus the log of the probability given to the right outputs together, plus a little
    label smoothing so no answer is ever certain (a wrong read at 0.99 is the costliest). A
    crop turned sideways (``sideways`` True) has no right answer: its loss is the cross-entropy
    to even odds over every output, so it reads unsure and the reader's quarter-turned look wins."""
    log_probs = torch.log_softmax(logits, dim=1)
    right = torch.logsumexp(log_probs.masked_fill(~mask, float("-inf")), dim=1)
    spread = -log_probs.mean(dim=1)
    per_crop = (1 - smoothing) * (-right) + smoothing * spread
    if sideways is not None:
        per_crop = torch.where(sideways, spread, per_crop)
    return per_crop.mean()


def evaluate(model: Any, torch: Any, crops: CropSet, batch: int = 256) -> dict[str, float]:
    """Answer accuracy (orientation ignored; a ``J`` is right as any joker colour), orientation
    accuracy where it is known, and the share of "none" crops answered "none"."""
    model.eval()
    tile_right = orient_right = orient_total = total = none_right = none_total = 0
    none_label = LABELS.index(NOT_A_TILE)
    with torch.no_grad():
        for start in range(0, len(crops.tiles), batch):
            picks = np.arange(start, min(start + batch, len(crops.tiles)))
            for turned in (False, True):
                images = crops.images[picks]
                if turned:
                    images = images[:, ::-1, ::-1]
                probs = torch.softmax(model(torch.from_numpy(to_input(images))), 1).view(len(picks), 2, -1).numpy()
                tile = probs.sum(1).argmax(1)
                labels = crops.tiles[picks]
                hit = ACCEPTED[labels, tile]
                tile_right += int(hit.sum())
                orientation = probs[np.arange(len(picks)), :, tile].argmax(1)
                known = crops.orientation_known[picks]
                orient_right += int(((orientation == int(turned)) & known).sum())
                orient_total += int(known.sum())
                none_right += int((hit & (labels == none_label)).sum())
                none_total += int((labels == none_label).sum())
                total += len(picks)
    return {"tile_accuracy": tile_right / total, "orientation_accuracy": orient_right / max(1, orient_total),
            "none_recall": none_right / max(1, none_total)}


def check_joker_weight(joker_weight: float) -> None:
    """A :class:`ValueError` unless ``joker_weight`` is a positive finite number (0 would leave
    jokers out of training, a negative or infinite one breaks the sampler): asked by the
    command line before the crops load, and by :func:`draw_weights`."""
    if not (np.isfinite(joker_weight) and joker_weight > 0):
        raise ValueError(f"the joker weight (--joker-weight) must be a positive number, not {joker_weight}")


def draw_weights(crops: CropSet, joker_weight: float = 1.0) -> np.ndarray:
    """How likely each crop is drawn into an epoch (summing to 1). Every folder weighs the
    same, so a big generated set does not drown the real one; within a folder a joker weighs
    ``joker_weight`` times any other crop (:func:`check_joker_weight`)."""
    check_joker_weight(joker_weight)
    weights = np.where(np.isin(crops.tiles, JOKER_LABELS), joker_weight, 1.0)
    folders = np.unique(crops.source)
    for number in folders:
        mine = crops.source == number
        weights[mine] /= weights[mine].sum() * len(folders)
    return weights


def load_onnx_weights(model: Any, torch: Any, path: Path) -> None:
    """Put the weights of a reader written by ``export_onnx`` (the shipped ``model.onnx``) into
    ``build_model()``'s modules, so a training run can fine-tune it instead of starting from
    scratch.

    Why: a reader trained from scratch on data with the pressman print read that print better but
    the others worse (issue 15: pressman F1 0.949 -> 0.974, generated classic 0.976 -> 0.961,
    modern 0.900 -> 0.879); starting from the shipped weights is meant to keep what they learnt
    of the real print while the new crops are learnt.

    The export ran in eval mode, so torch folded each BatchNorm into the conv before it: the file
    holds one weight and one bias per conv and no BatchNorm statistics. Each conv takes the folded
    weight and its BatchNorm becomes "times 1, plus the folded bias" (mean 0, variance 1 - eps,
    scale 1, shift the bias), so the model gives the file's logits (tests/test_vision_reader_init.py).
    Such a BatchNorm must stay in eval mode while training (``train_mode``): normalising by a
    batch's statistics would undo the folding. Its scale and shift still learn, as a conv bias
    and a per-channel gain would."""
    import onnx
    import torch.nn as nn
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    stored = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    if any(node.op_type == "BatchNormalization" for node in graph.node):
        raise ValueError(f"{path}: BatchNorm not folded into the convs; not a file written by export_onnx")
    convs = [node for node in graph.node if node.op_type == "Conv"]
    gemms = [node for node in graph.node if node.op_type == "Gemm"]
    layers = list(model)
    pairs = [(layer, layers[i + 1]) for i, layer in enumerate(layers) if isinstance(layer, nn.Conv2d)]
    linears = [layer for layer in layers if isinstance(layer, nn.Linear)]
    if len(convs) != len(pairs) or len(gemms) != len(linears) or not all(
            isinstance(norm, nn.BatchNorm2d) for _, norm in pairs):
        raise ValueError(f"{path}: {len(convs)} convs and {len(gemms)} dense layers, the model "
                         f"{len(pairs)} and {len(linears)}: not this architecture")

    def take(name: str, shape: tuple[int, ...]) -> Any:
        value = stored[name]
        if tuple(value.shape) != tuple(shape):
            raise ValueError(f"{path}: {name} is {tuple(value.shape)}, the model wants {tuple(shape)}")
        return torch.from_numpy(value.copy())

    with torch.no_grad():
        for node, (conv, norm) in zip(convs, pairs):
            conv.weight.copy_(take(node.input[1], conv.weight.shape))
            norm.weight.fill_(1.0)
            norm.bias.copy_(take(node.input[2], norm.bias.shape))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        for node, linear in zip(gemms, linears):
            transposed = {a.name: a.i for a in node.attribute}.get("transB", 0) == 1
            weight = take(node.input[1], linear.weight.shape if transposed else linear.weight.shape[::-1])
            linear.weight.copy_(weight if transposed else weight.T)
            linear.bias.copy_(take(node.input[2], linear.bias.shape))


def train_mode(model: Any, frozen_norms: bool = False) -> None:
    """Training mode, but with ``frozen_norms`` every BatchNorm kept in eval mode (its running
    statistics used and left as they are): the folded BatchNorms of ``load_onnx_weights``."""
    import torch.nn as nn

    model.train()
    if frozen_norms:
        for layer in model.modules():
            if isinstance(layer, nn.BatchNorm2d):
                layer.eval()


def export_onnx(model: Any, torch: Any, out_dir: Path) -> None:
    """``model.onnx`` (batch size free) and ``model.json`` into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    was_training = model.training
    model.eval()
    dummy = torch.zeros(1, 3, INPUT_WH[1], INPUT_WH[0])
    torch.onnx.export(model, dummy, str(out_dir / "model.onnx"), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "batch"}, "logits": {0: "batch"}}, opset_version=17,
                      dynamo=False)
    meta = {"tiles": list(TILE_NAMES), "orientations": ["upright", "upside_down"], "input_wh": list(INPUT_WH),
            "input": f"float32 RGB 0..1, NCHW; output logits index = orientation * {len(TILE_NAMES)} + answer",
            "joker_colours": list(JOKER_COLOURS), "not_a_tile": NOT_A_TILE,
            "crop_wh": list(CROP_WH)}
    (out_dir / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    model.train(was_training)


def train_reader(folders: Sequence[Path], out_dir: Path, *, epochs: int = 30, batch: int = 64, seed: int = 0,
                 threads: int = 1, command: str = "", epoch_size: int = 3000,
                 scenes: Sequence[Path] = (), init: Path | None = None, lr: float = 3e-3,
                 joker_weight: float = 1.0) -> TrainingRecord:
    """``scenes``: dataset roots whose photos also give crops through jittered boxes (a third
    of every batch), as the finder's boxes are never exactly the labelled outline. ``init``: a
    reader's ``model.onnx`` to start from (``load_onnx_weights``; its BatchNorms stay frozen)
    instead of random weights; ``lr``: the one-cycle schedule's peak learning rate (lower to
    fine-tune, so the start is not forgotten). ``joker_weight``: how many times its share a joker
    crop is drawn within its folder: the joker is the rarest answer (2 tiles of 106) and the
    costliest to misread (30 points), and a reader that saw too few of a new print's jokers reads
    them as the 12 they resemble."""
    import torch

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    train, val = load_crops(folders, "train"), load_crops(folders, "val")
    print(f"reader: {len(train.tiles)} train crops, {len(val.tiles)} val crops from {len(folders)} folder(s)",
          file=sys.stderr)
    weights = draw_weights(train, joker_weight)
    per_epoch = epoch_size
    scene_tiles = [load_scene_tiles(root, "train") for root in scenes]
    if scene_tiles:
        print(f"reader: {sum(len(t.tiles) for t in scene_tiles)} tiles in photos for jittered crops", file=sys.stderr)
    model = build_model()
    if init is not None:
        load_onnx_weights(model, torch, init)
        print(f"reader: starting from {init}", file=sys.stderr)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (per_epoch // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=steps, pct_start=0.15)
    best_state, best_score, history = None, -1.0, []
    started = time.time()
    for epoch in range(1, epochs + 1):
        train_mode(model, frozen_norms=init is not None)
        order = rng.choice(len(train.tiles), size=per_epoch, p=weights)
        losses = []
        for step in range(per_epoch // batch):
            picks = order[step * batch:(step + 1) * batch]
            inputs, mask, turned = _batch(train, picks, rng, train=True)
            if scene_tiles:
                scene = scene_tiles[step % len(scene_tiles)]
                extra = _scene_batch(scene, rng.integers(0, len(scene.tiles), batch // 2), rng)
                inputs, mask, turned = (np.concatenate([a, b]) for a, b in zip((inputs, mask, turned), extra))
            logits = model(torch.from_numpy(inputs))
            loss = _loss(torch, logits, torch.from_numpy(mask), torch.from_numpy(turned))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            losses.append(loss.item())
        scores = evaluate(model, torch, val)
        score = scores["tile_accuracy"] + 0.5 * scores["orientation_accuracy"]
        history.append({"epoch": epoch, "loss": float(np.mean(losses)), **scores})
        print(f"reader epoch {epoch}/{epochs}: loss {np.mean(losses):.3f}  val tile {scores['tile_accuracy']:.4f}"
              f"  val orientation {scores['orientation_accuracy']:.4f}  val none {scores['none_recall']:.4f}"
              f"  ({time.time() - started:.0f} s)",
              file=sys.stderr, flush=True)
        if score > best_score:
            best_score = score
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            export_onnx(model, torch, out_dir)  # a usable model survives an interrupted run
    train_seconds = time.time() - started
    model.load_state_dict(best_state)
    model.eval()
    final = evaluate(model, torch, val)
    export_onnx(model, torch, out_dir)
    record = TrainingRecord(
        model="tile-reader", command=command, seed=seed, epochs=epochs,
        data=", ".join(str(f) for f in folders) + "".join(f"; jittered boxes in the photos of {r}" for r in scenes)
        + (f"; started from {init} (peak learning rate {lr:g})" if init is not None else "")
        + (f"; jokers drawn {joker_weight:g} times their share in each folder" if joker_weight != 1 else ""),
        imgsz=list(INPUT_WH), architecture="small CNN (vision/training/reader.py build_model)",
        train_seconds=round(train_seconds), machine=machine_description(threads),
        metrics={"val_crops": int(len(val.tiles)), **{k: round(v, 4) for k, v in final.items()},
                 "history": history},
    )
    record.save(out_dir)
    return record
