"""Score the whole pipeline on labelled photos: did it read every tile, and nothing else?

Photos come in the shared photos' format (``images/*.jpg``, ``labels/*.txt`` with one polygon
per tile, class *names* in a ``data.yaml`` beside or above). A found tile counts as a hit on a
labelled tile when its centre lies inside that tile's outline (each labelled tile takes at
most one); a hit is *read right* when number and colour (or joker) agree.

* precision = tiles read right / tiles reported
* recall    = tiles read right / tiles labelled
* a photo is *perfect* when every labelled tile is read right and nothing else is reported.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from rummi.vision.classes import TILE_CLASSES, class_names_from_yaml, reader_class, source_name_to_notation
from rummi.vision.image_io import load_image
from rummi.vision.scanner import Scanner, ScanResult

NONE = "-"  # the confusion matrix's row/column for "no tile": a miss or a false find


@dataclass(frozen=True)
class LabelledPhoto:
    image: Path
    tiles: list[str]  # notation, jokers "J"
    outlines: list[np.ndarray]  # polygons in pixels


@dataclass(frozen=True)
class PhotoMatch:
    """One scan matched to one photo's labels: ``partner`` maps labelled index -> found index;
    ``right`` and ``ignored`` hold found indices (read right; on a tile not counted); ``read``
    is each found tile's reader class."""

    partner: dict[int, int]
    right: frozenset[int]
    ignored: frozenset[int]
    read: list[str]

    @property
    def of_found(self) -> dict[int, int]:
        """found index -> labelled index."""
        return {f: t for t, f in self.partner.items()}


@dataclass
class Evaluation:
    """Read precision, recall and perfect photos over many scans: the one scoring `rummi eval`
    and the robustness benchmark share."""

    photos: int = 0
    perfect: int = 0
    reported: int = 0
    labelled: int = 0
    read_right: int = 0
    confusion: Counter = field(default_factory=Counter)  # (truth, read) -> count
    latencies_ms: list[float] = field(default_factory=list)
    imperfect: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.read_right / self.reported if self.reported else 1.0

    @property
    def recall(self) -> float:
        return self.read_right / self.labelled if self.labelled else 1.0

    @property
    def perfect_share(self) -> float:
        return self.perfect / self.photos if self.photos else 0.0

    @property
    def median_latency_ms(self) -> float:
        return statistics.median(self.latencies_ms) if self.latencies_ms else 0.0

    def add(self, name: str, truth: list[str], outlines: list[np.ndarray], result: ScanResult,
            latency_ms: float, counted: np.ndarray | None = None) -> PhotoMatch:
        """Score one scan against one photo's labels (``truth``: reader classes, every joker
        ``J``) and count it; returns the match, for scores that look further (the robustness
        benchmark's misses, false finds, sets and racks).

        ``counted``: which labelled tiles count (default all). A tile not counted (cut by a crop
        to under half its face, hidden under a hand) is neither to be found nor a phantom when
        found: a find on it is left out of ``reported``.
        """
        counted = np.ones(len(truth), bool) if counted is None else np.asarray(counted, bool)
        read = [reader_class(label) if label else NONE for label in result.found.labels]
        partner = match_indices(result.found.centers, outlines)
        ignored = frozenset(f for t, f in partner.items() if not counted[t])
        right = frozenset(f for t, f in partner.items() if counted[t] and read[f] == truth[t])
        self.photos += 1
        self.labelled += int(counted.sum())
        self.reported += len(result.found) - len(ignored)
        self.read_right += len(right)
        taken = set(partner.values())
        self.confusion.update([(truth[t], read[partner[t]] if t in partner else NONE)
                               for t in range(len(truth)) if counted[t]])
        self.confusion.update([(NONE, read[f]) for f in range(len(result.found)) if f not in taken])
        if len(right) == int(counted.sum()) == len(result.found) - len(ignored):
            self.perfect += 1
        else:
            self.imperfect.append(name)
        self.latencies_ms.append(latency_ms)
        return PhotoMatch(partner, right, ignored, read)

    def summary(self) -> dict[str, float | int]:
        return {
            "photos": self.photos, "tiles_labelled": self.labelled, "tiles_reported": self.reported,
            "precision": round(self.precision, 4), "recall": round(self.recall, 4),
            "perfect_photos": self.perfect, "perfect_share": round(self.perfect_share, 4),
            "median_latency_ms": round(self.median_latency_ms, 1),
        }


def read_class_names(folder: Path) -> list[str]:
    """Class names from the nearest ``data.yaml`` (in ``folder`` or the one above)."""
    for candidate in (folder / "data.yaml", folder.parent / "data.yaml"):
        if candidate.is_file():
            return class_names_from_yaml(candidate)
    raise FileNotFoundError(f"no data.yaml in {folder} or {folder.parent}")


def labelled_photos(folder: Path, only: Callable[[Path], bool] | None = None) -> list[LabelledPhoto]:
    """Every photo under ``folder`` (``images/`` there, or in its split sub-folders) with labels."""
    folder = Path(folder)
    image_dirs = [folder / "images"] if (folder / "images").is_dir() else sorted(folder.glob("*/images"))
    if not image_dirs:
        raise FileNotFoundError(f"{folder}: expected images/ and labels/ (or split folders holding them)")
    photos = []
    for image_dir in image_dirs:
        names = read_class_names(image_dir.parent)
        for image_path in sorted(image_dir.iterdir()):
            if image_path.suffix.lower() not in (".jpg", ".jpeg", ".png") or (only and not only(image_path)):
                continue
            label_path = image_dir.parent / "labels" / f"{image_path.stem}.txt"
            width, height = _image_size(image_path)
            tiles, outlines = [], []
            lines = label_path.read_text().splitlines() if label_path.is_file() else []
            for line in lines:
                parts = line.split()
                if len(parts) < 7:
                    continue
                points = (np.array(parts[1:], np.float32).reshape(-1, 2) * np.array([width, height], np.float32))
                tiles.append(source_name_to_notation(names[int(parts[0])]))
                outlines.append(points)
            photos.append(LabelledPhoto(image_path, tiles, outlines))
    return photos


def _image_size(path: Path) -> tuple[int, int]:
    from PIL import Image, ImageOps

    with Image.open(path) as picture:
        return ImageOps.exif_transpose(picture).size


def holdout_filter(manifest_path: Path, split: str = "val") -> Callable[[Path], bool]:
    """Keep only the photos a dataset manifest put in ``split`` (held out by shooting session)."""
    manifest = json.loads(Path(manifest_path).read_text())
    keep = {Path(s["source_file"]).name for s in manifest["scenes"] if s["split"] == split and "source_file" in s}
    if not keep:
        raise ValueError(f"{manifest_path}: no {split} scenes with a source_file")
    return lambda path: path.name in keep


def match_indices(centres: np.ndarray, outlines: list[np.ndarray]) -> dict[int, int]:
    """Which found tile (by its centre) is each labelled tile: ``{labelled index: found index}``.

    A found tile is a hit on a labelled tile when its centre lies inside that tile's outline;
    each labelled tile takes at most one (the nearest to its centre), each found tile one tile.
    """
    taken: set[int] = set()
    partner: dict[int, int] = {}
    for number, outline in enumerate(outlines):
        contour = np.asarray(outline, np.float32).reshape(-1, 1, 2)
        inside = [i for i in range(len(centres)) if i not in taken
                  and cv2.pointPolygonTest(contour, (float(centres[i][0]), float(centres[i][1])), False) >= 0]
        if inside:
            centre = np.asarray(outline, np.float32).mean(axis=0)
            best = min(inside, key=lambda i: float(np.linalg.norm(centres[i] - centre)))
            taken.add(best)
            partner[number] = best
    return partner


def evaluate(scanner: Scanner, photos: Iterable[LabelledPhoto],
             progress: Callable[[int, int, str], None] | None = None) -> Evaluation:
    photos = list(photos)
    scores = Evaluation()
    if photos:  # one untimed run first: onnxruntime allocates on the first call
        scanner.scan(load_image(photos[0].image))
    for number, photo in enumerate(photos, start=1):
        image = load_image(photo.image)
        started = time.perf_counter()
        result = scanner.scan(image)
        latency_ms = (time.perf_counter() - started) * 1000
        scores.add(photo.image.name, [reader_class(t) for t in photo.tiles], photo.outlines, result, latency_ms)
        if progress:
            progress(number, len(photos), photo.image.name)
    return scores


def confusion_image(confusion: Counter, classes: list[str]) -> np.ndarray:
    """The confusion matrix as a picture: rows are the truth, columns the reading.

    ``classes`` orders the rows; the scan's answers are tiles in notation (a reader's joker
    colours and its "none" never reach them), so every tile class gets a row and a column
    whether the reader's own answer list names it or not."""
    seen = {name for pair in confusion for name in pair}
    labels = [c for c in classes if c in TILE_CLASSES]
    labels += [c for c in TILE_CLASSES if c not in labels]
    labels += sorted(seen - set(labels) - {NONE}) + [NONE]
    index = {name: i for i, name in enumerate(labels)}
    size = len(labels)
    matrix = np.zeros((size, size), np.int64)
    for (truth, read), count in confusion.items():
        matrix[index.get(truth, size - 1), index.get(read, size - 1)] += count
    cell, margin = 16, 40
    canvas = np.full((margin + size * cell + 10, margin + size * cell + 10, 3), 255, np.uint8)
    peak = max(1, int(matrix.max()))
    for r in range(size):
        for c in range(size):
            if matrix[r, c]:
                strength = 0.25 + 0.75 * matrix[r, c] / peak
                colour = (255 * (1 - strength), 255 * (1 - strength), 255) if r != c else (
                    255 * (1 - strength), 200, 255 * (1 - strength))
                x, y = margin + c * cell, margin + r * cell
                cv2.rectangle(canvas, (x, y), (x + cell - 1, y + cell - 1), colour, -1)
                cv2.putText(canvas, str(matrix[r, c]), (x + 1, y + 11), cv2.FONT_HERSHEY_PLAIN, 0.6, (0, 0, 0), 1)
    for i, name in enumerate(labels):
        cv2.putText(canvas, name, (2, margin + i * cell + 12), cv2.FONT_HERSHEY_PLAIN, 0.7, (0, 0, 0), 1)
        cv2.putText(canvas, name, (margin + i * cell + 1, margin - 4 - 10 * (i % 2)), cv2.FONT_HERSHEY_PLAIN, 0.7,
                    (0, 0, 0), 1)
    cv2.putText(canvas, "truth (rows) x read (columns)", (margin, 12), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1)
    return canvas
