"""Photo in, game state out: find the tiles, read them, lay them out, check the sets.

    scanner = Scanner.load()                  # the shipped models under models/
    result = scanner.scan(load_image("table.jpg"))
    print(result.describe())                  # for a person
    json.dumps(result.to_json("table.jpg"))   # the `rummi scan --json` contract

The photo may be any size: the finder works on a downscaled copy, the reader on the full
resolution. Nothing here knows about files or HTTP; callers decode with
:func:`vision.image_io.load_for_scan` (a big JPEG at reduced size, with the scale back to its
pixels) or :func:`vision.image_io.load_image` (in full).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rummi.engine.melds import SetVerdict, classify
from rummi.engine.notation import format_tiles
from rummi.engine.tiles import Tile
from rummi.vision.detections import TileDetections
from rummi.vision.finder import TileFinder
from rummi.vision.geometry import warp_crop
from rummi.vision.layout import BarBetween, Layout, LayoutKind, lay_out
from rummi.vision.onnx_model import DEFAULT_THREADS, default_models_dir, load_onnx_model
from rummi.vision.photo_quality import PhotoQuality, assess
from rummi.vision.rack import RackEvidence
from rummi.vision.reader import TileReader
from rummi.vision.set_rules import mend_by_set_rules
from rummi.vision.uncertainty import uncertain_tiles
from rummi.vision.white_balance import FACE_SAMPLE, balanced, face_gains, noticeable

FINDER_FOLDER = "tile-finder"
READER_FOLDER = "tile-reader"
#: A tile whose confidence is below this is reported as uncertain. Drawn with the previous
#: reader on the held-out real photos: 0.7 flagged 99 of 554 tiles and 16 of the 17 misread ones
#: (0.6: 70 flagged, 14 caught). Kept for this round's reader, which reads all 553 right and
#: flags none there; on the robustness variants it leaves at most 1.6 wrong reads per 200 tiles
#: unflagged (benchmarks/vision_robustness.py).
UNCERTAIN_BELOW = 0.7
_TOO = {"hold steady": "blurred", "more light": "dark", "come closer": "far"}


@dataclass(frozen=True)
class ScanResult:
    """Everything one photo told: the tiles (``found``), their layout and what is unsure.

    Indices in ``layout`` and ``uncertain`` point into ``found``. ``quality`` says whether the
    photo was sharp, bright and close enough (its ``advice``: "hold steady", "more light",
    "come closer"); when it was not, every tile is uncertain.
    """

    found: TileDetections
    layout: Layout
    uncertain: list[int]
    timings_ms: dict[str, float] = field(default_factory=dict)
    quality: PhotoQuality = field(default_factory=lambda: PhotoQuality(float("nan"), float("nan")))
    edition: str = "standard"
    #: Boxes the reader answered "none" (not a tile), and second boxes on a tile read more
    #: surely: kept out of everything above, kept here so a benchmark can tell a tile the
    #: finder missed from one the reader refused.
    refused: TileDetections = field(default_factory=TileDetections.empty)

    @property
    def advice(self) -> list[str]:
        """What to change before taking the photo again (empty when it was good enough)."""
        return list(self.quality.advice)

    @property
    def tiles(self) -> list[Tile]:
        return [t for t in self.found.tiles(self.edition) if t is not None]

    @property
    def sets(self) -> list[list[Tile]]:
        tiles = self.found.tiles(self.edition)
        return [[tiles[i] for i in s] for s in self.layout.sets]  # type: ignore[misc]

    @property
    def rack(self) -> list[Tile] | None:
        if self.layout.rack is None:
            return None
        tiles = self.found.tiles(self.edition)
        return [tiles[i] for i in self.layout.rack]  # type: ignore[misc]

    def verdicts(self) -> list[SetVerdict]:
        """The engine's word on every set, in the order of :attr:`sets`."""
        return [classify(s) for s in self.sets]

    def to_json(self, image_name: str) -> dict[str, Any]:
        """The documented output of ``rummi scan --json`` for one photo.

        ``uncertain`` lists indices into ``tiles``; ``advice`` what would make a better photo
        (``"hold steady"``, ``"more light"``, ``"come closer"``; empty when none is needed).
        """
        labels, confidence = self.found.labels, self.found.confidence
        return {
            "image": image_name,
            "tiles": [
                {
                    "tile": labels[i],
                    "confidence": round(float(confidence[i]), 3),
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.found.corners[i]],
                }
                for i in range(len(self.found))
            ],
            "sets": [[labels[i] for i in s] for s in self.layout.sets],
            "rack": None if self.layout.rack is None else [labels[i] for i in self.layout.rack],
            "uncertain": list(self.uncertain),
            "advice": self.advice,
        }

    def describe(self) -> str:
        """The state for a person: sets with the engine's verdict, the rack, unsure tiles."""
        lines = [f"{len(self.found)} tiles found"]
        if self.advice:
            lines.append(f"  photo too {' and too '.join(_TOO[a] for a in self.advice)} to read surely: "
                         f"{'; '.join(self.advice)}, and take it again")
        for number, (tiles, verdict) in enumerate(zip(self.sets, self.verdicts()), start=1):
            state = f"{verdict.kind.value}, {verdict.value} points" if verdict.valid else f"invalid: {verdict.reason}"
            lines.append(f"  set {number}: {format_tiles(tiles)}   ({state})")
        if not self.layout.sets:
            lines.append("  no sets on the table")
        rack = self.rack
        lines.append(f"  rack: {format_tiles(rack)}" if rack is not None else "  no rack in the photo")
        if self.uncertain:
            unsure = ", ".join(
                f"{self.found.labels[i]} ({self.found.confidence[i]:.0%})" for i in self.uncertain
            )
            lines.append(f"  unsure of: {unsure}")
        return "\n".join(lines)


class Scanner:
    """The loaded models and the pipeline that runs them (safe to share between requests)."""

    def __init__(self, finder: TileFinder, reader: TileReader, uncertain_below: float = UNCERTAIN_BELOW,
                 balance: bool = True, set_mates: bool = True, set_rules: bool = True) -> None:
        self.finder = finder
        self.reader = reader
        self.uncertain_below = uncertain_below
        self.balance = balance
        #: Weigh each tile's way up by its set-mates, and re-read an unsure tile by the rules of
        #: its set (:meth:`weigh_by_set_mates`); each off only to measure what it does.
        self.set_mates = set_mates
        self.set_rules = set_rules

    @classmethod
    def load(cls, models_dir: str | Path | None = None, threads: int | None = DEFAULT_THREADS) -> Scanner:
        """Load ``tile-finder`` and ``tile-reader`` from ``models_dir`` (the shipped ones by default);
        ``threads`` per model (None: onnxruntime's default)."""
        folder = Path(models_dir) if models_dir is not None else default_models_dir()
        finder = TileFinder(load_onnx_model(folder / FINDER_FOLDER, threads))
        reader = TileReader(load_onnx_model(folder / READER_FOLDER, threads))
        return cls(finder, reader)

    def scan(self, image_bgr: np.ndarray, kind: LayoutKind = "auto",
             photo_scale: tuple[float, float] = (1.0, 1.0), edition: str = "standard") -> ScanResult:
        """Read one photo. ``photo_scale``: photo pixels per pixel of ``image_bgr`` (from
        :func:`vision.image_io.load_for_scan`), so corners come out in the photo's pixels.
        ``edition``: the box's edition name; Expert's and Twist's jokers are then named by
        their colour (``Jk``.., ``Jc``..), every other edition's are ``J``."""
        if image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
            raise ValueError("scan expects an H x W x 3 uint8 BGR image (use vision.image_io.load_image)")
        clock = time.perf_counter()
        found = self.finder.find(image_bgr)
        # The faces found are the photo's white reference: a colour cast is turned back into
        # the colours plastic has, and tiles are looked for again in the balanced photo.
        gains = face_gains([warp_crop(image_bgr, c, FACE_SAMPLE) for c in self._judged(found).corners])
        seen = image_bgr
        if self.balance and noticeable(gains):
            seen = balanced(image_bgr, gains)
            found = self.finder.find(seen)
        found_at = time.perf_counter()
        # A box the reader says holds no tile never reaches the layout, a score or a hint; nor
        # does a second box on a tile read more surely (TileDetections.repeats).
        read = self.reader.read(seen, found, edition)
        tiles = read.counted_as_tiles(self.uncertain_below)
        found, refused = read[tiles], read[~tiles]
        read_at = time.perf_counter()
        rack = RackEvidence(seen, found) if kind == "auto" else None
        layout = lay_out(found, kind, *self._rack_signs(rack))
        found, layout = self.weigh_by_set_mates(found, layout, edition, kind, rack)
        on_rack = np.zeros(len(found), bool)
        on_rack[layout.rack or []] = True
        found = found.with_rack(on_rack)
        laid_at = time.perf_counter()
        judged = self._judged(found)
        quality = assess([self.reader.crop(image_bgr, c) for c in judged.corners], image_bgr,
                         np.minimum(judged.widths, judged.heights))
        # Judged in the pixels the tiles were found in (a cut is measured against this photo's edge).
        uncertain = uncertain_tiles(found, (image_bgr.shape[1], image_bgr.shape[0]), self.uncertain_below,
                                    quality.readable)
        if tuple(photo_scale) != (1.0, 1.0):
            found, refused = found.scaled(photo_scale), refused.scaled(photo_scale)
        done = time.perf_counter()
        timings = {
            "find": (found_at - clock) * 1000,
            "read": (read_at - found_at) * 1000,
            "layout": (laid_at - read_at) * 1000,
            "quality": (done - laid_at) * 1000,
            "total": (done - clock) * 1000,
        }
        return ScanResult(found=found, layout=layout, uncertain=uncertain, timings_ms=timings, quality=quality,
                          edition=edition, refused=refused)

    def weigh_by_set_mates(self, found: TileDetections, layout: Layout, edition: str,
                           kind: LayoutKind = "table", rack: RackEvidence | None = None, *,
                           settled: np.ndarray | None = None) -> tuple[TileDetections, Layout]:
        """Each tile weighed by the tiles it was laid with: its way up by its set-mates
        (:meth:`TileReader.agree_with_set_mates`: an upright 6 among upright tiles is no 9
        turned round), and the layout again where a tile turned (its reading order); then an
        unsure tile whose reading breaks its set, by the set's rules (a rack's tiers are no
        sets: :func:`vision.set_rules.mend_by_set_rules`, the tile left flagged).
        ``settled``: tiles read before (the watch's) that are mates but stay as read."""
        if self.set_mates:
            weighed = self.reader.agree_with_set_mates(found, layout.groups, edition, settled=settled)
            if not np.array_equal(weighed.corners, found.corners):
                layout = lay_out(weighed, kind, *self._rack_signs(rack))
            found = weighed
        if self.set_rules:
            found = mend_by_set_rules(found, layout.sets, self.reader.tile_names, edition, settled,
                                      flagged_below=self.uncertain_below)
        return found, layout

    @staticmethod
    def _rack_signs(rack: RackEvidence | None) -> tuple[np.ndarray | None, BarBetween | None]:
        """The layout's view of a rack: which tiles stand on a ledge, and the bar between two."""
        return (None, None) if rack is None else (rack.on_ledge, rack.bar_between)

    @staticmethod
    def _judged(found: TileDetections, most: int = 24) -> TileDetections:
        """The tiles the photo is judged by: the surest finds, at most ``most``."""
        order = np.argsort(-found.find_confidence, kind="stable")[:most]
        return found[order]
