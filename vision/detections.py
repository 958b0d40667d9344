"""The one type for "tiles found in an image", passed along the whole pipeline.

The finder fills in where each tile is (``corners``, ``find_confidence``); the reader fills in
what it says (``labels``, ``read_confidence``) and turns the corners so they start at the tile's
own top-left; the layout marks rack tiles (``on_rack``); the drawing code draws it all. Every
field is an array (or list) with one entry per tile, so a boolean mask or an index array picks
tiles out of all of them at once, as in the `supervision` library::

    >>> import numpy as np
    >>> square = np.array([[0, 0], [10, 0], [10, 14], [0, 14]], dtype=np.float32)
    >>> found = TileDetections.from_corners(np.stack([square, square + 20]), np.array([0.9, 0.4]))
    >>> len(found), len(found[found.find_confidence > 0.5])
    (2, 1)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from rummi.engine.notation import parse_tile
from rummi.engine.tiles import Tile
from rummi.vision.classes import NOT_A_TILE
from rummi.vision.geometry import drop_nested, rotated_rects

#: A finder score from which a box is taken for a tile without doubt.
SURELY_A_TILE = 0.5
#: A box this close to the photo's edge (a share of the tile's width) touches it: the finder's
#: box edges are about this loose, so a tile the photo cuts ends within it.
EDGE_MARGIN = 0.05
#: A box at the photo's edge looks cut when what of it lies inside the photo is less than this
#: share of the photo's median tile (median width x median height). Drawn on the boxes at the
#: edge of the held-out photos' half crops (``benchmarks/edge_cut.py``; with the shipped models
#: of 2026-12-02: 93 boxes): 0.75 flags 27 of them, and both sure wrong reads among them (0.6
#: would miss both); what it lets through are boxes the size of a whole tile.
CUT_SHARE = 0.75
#: With fewer tiles than this a photo has no median tile to compare with: every box at its
#: edge is taken as cut.
MEDIAN_TILES = 3


@dataclass(frozen=True)
class TileDetections:
    """Tiles in one image, in full-resolution pixel coordinates.

    ``corners[i]`` holds four ``(x, y)`` points: the tile's top-left, top-right, bottom-right
    and bottom-left *as the tile is read* (so for an upside-down tile the first corner is low
    in the photo). ``labels[i]`` is the tile in the engine's notation (``"r7"``, ``"J"``) or
    ``None`` before reading. ``read_probabilities[i]`` is the reader's belief behind the
    label, ``(2, answers)``: which way up (as the corners lie, then turned round) and which
    answer; empty (``(N, 2, 0)``) where nothing read the tile or the belief was not kept.
    """

    corners: np.ndarray  # (N, 4, 2) float32
    find_confidence: np.ndarray  # (N,) float32
    labels: tuple[str | None, ...] = ()
    read_confidence: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    on_rack: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    read_probabilities: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 0), np.float32))

    def __post_init__(self) -> None:
        n = len(self.corners)
        # Fill the fields a later stage owns, so every stage sees arrays of the same length.
        if len(self.labels) != n:
            object.__setattr__(self, "labels", tuple([None] * n))
        if len(self.read_confidence) != n:
            object.__setattr__(self, "read_confidence", np.zeros(n, np.float32))
        if len(self.on_rack) != n:
            object.__setattr__(self, "on_rack", np.zeros(n, bool))
        if len(self.read_probabilities) != n:
            object.__setattr__(self, "read_probabilities", np.zeros((n, 2, 0), np.float32))

    @classmethod
    def from_corners(cls, corners: np.ndarray, find_confidence: np.ndarray) -> TileDetections:
        return cls(np.asarray(corners, np.float32).reshape(-1, 4, 2), np.asarray(find_confidence, np.float32))

    @classmethod
    def empty(cls) -> TileDetections:
        return cls.from_corners(np.zeros((0, 4, 2), np.float32), np.zeros(0, np.float32))

    # --- selection ----------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.corners)

    def __getitem__(self, index: np.ndarray | Sequence[int] | slice) -> TileDetections:
        picked = np.arange(len(self))[index]
        return TileDetections(
            corners=self.corners[picked],
            find_confidence=self.find_confidence[picked],
            labels=tuple(self.labels[i] for i in picked),
            read_confidence=self.read_confidence[picked],
            on_rack=self.on_rack[picked],
            read_probabilities=self.read_probabilities[picked],
        )

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self)))

    def with_reads(self, corners: np.ndarray, labels: Sequence[str | None], read_confidence: np.ndarray,
                   read_probabilities: np.ndarray | None = None) -> TileDetections:
        probabilities = (np.zeros((len(corners), 2, 0), np.float32) if read_probabilities is None
                         else np.asarray(read_probabilities, np.float32))
        return replace(self, corners=corners.astype(np.float32), labels=tuple(labels),
                       read_confidence=np.asarray(read_confidence, np.float32), read_probabilities=probabilities)

    def with_rack(self, on_rack: np.ndarray) -> TileDetections:
        return replace(self, on_rack=np.asarray(on_rack, bool))

    def scaled(self, scale: tuple[float, float]) -> TileDetections:
        """The same tiles in pixels ``scale`` (x, y) times larger (a photo decoded at reduced size)."""
        return replace(self, corners=(self.corners * np.asarray(scale, np.float32)).astype(np.float32))

    # --- geometry -----------------------------------------------------------------------
    @property
    def centers(self) -> np.ndarray:
        return self.corners.mean(axis=1)

    @property
    def up_vectors(self) -> np.ndarray:
        """Unit vectors from each tile's bottom edge to its top edge (image y points down)."""
        top = (self.corners[:, 0] + self.corners[:, 1]) / 2
        bottom = (self.corners[:, 2] + self.corners[:, 3]) / 2
        return _unit(top - bottom)

    @property
    def right_vectors(self) -> np.ndarray:
        """Unit vectors along each tile's reading direction (left edge to right edge)."""
        left = (self.corners[:, 0] + self.corners[:, 3]) / 2
        right = (self.corners[:, 1] + self.corners[:, 2]) / 2
        return _unit(right - left)

    @property
    def widths(self) -> np.ndarray:
        return (np.linalg.norm(self.corners[:, 1] - self.corners[:, 0], axis=1)
                + np.linalg.norm(self.corners[:, 2] - self.corners[:, 3], axis=1)) / 2

    @property
    def heights(self) -> np.ndarray:
        return (np.linalg.norm(self.corners[:, 3] - self.corners[:, 0], axis=1)
                + np.linalg.norm(self.corners[:, 2] - self.corners[:, 1], axis=1)) / 2

    def at_the_edge(self, width: int, height: int) -> np.ndarray:
        """True where a tile's box reaches the photo's edge (within ``EDGE_MARGIN`` of its own
        width, or past it): the photo may cut that tile, so what shows is not its whole face
        and a read of it is not sure (a real 2 cut in half was read as 13 at 0.96)."""
        if not len(self):
            return np.zeros(0, bool)
        margin = EDGE_MARGIN * self.widths
        low = self.corners.min(axis=1)
        high = self.corners.max(axis=1)
        return ((low[:, 0] < margin) | (low[:, 1] < margin)
                | (high[:, 0] > width - margin) | (high[:, 1] > height - margin))

    def cut_by_the_edge(self, width: int, height: int) -> np.ndarray:
        """True where a box at the photo's edge looks cut: the part of it inside the photo is
        clearly smaller than the photo's median tile (``CUT_SHARE``). A whole tile that merely
        touches the edge of a tightly framed rack or table photo is not flagged (flagging it
        turns an "illegal" verdict into "uncertain"); one the edge cuts shows part of its face
        (a real 2 cut in half was read as 13 at 0.96), whether the finder boxed only what shows
        or guessed the whole tile past the edge."""
        if len(self) < MEDIAN_TILES:
            return self.at_the_edge(width, height)
        return self.inside_shares(width, height) < CUT_SHARE  # NaN (not at the edge): False

    def inside_shares(self, width: int, height: int) -> np.ndarray:
        """Per box at the photo's edge, the area of it inside the photo over the photo's median
        tile (median width x median height); NaN for a box away from the edge."""
        shares = np.full(len(self), np.nan)
        if not len(self):
            return shares
        median_area = float(np.median(self.widths)) * float(np.median(self.heights))
        frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
        for i in np.flatnonzero(self.at_the_edge(width, height)):
            inside, _ = cv2.intersectConvexConvex(self.corners[i].astype(np.float32), frame)
            shares[i] = inside / median_area if median_area > 0 else np.inf  # degenerate boxes: never cut
        return shares

    @property
    def upside_down(self) -> np.ndarray:
        """True where the tile's top points down the photo (it is read turned round)."""
        return self.up_vectors[:, 1] > 0

    # --- reading ------------------------------------------------------------------------
    @property
    def confidence(self) -> np.ndarray:
        """How sure the pipeline is of each tile: that it is a tile, and read right.

        The finder's score is not a probability: real tiles score about 0.7 and anything above
        ``SURELY_A_TILE`` was a tile on the held-out photos, so only a score below that lowers
        the confidence; above it, the read's own probability is the tile's confidence.
        """
        found = np.clip(self.find_confidence / SURELY_A_TILE, 0.0, 1.0)
        return found * self.read_confidence

    @property
    def read_as_tiles(self) -> np.ndarray:
        """True where the reader took the box for a tile (not ``none``: a face-down tile,
        clutter, a box across two tiles)."""
        return np.array([label != NOT_A_TILE for label in self.labels], bool)

    def counted_as_tiles(self, unsure_below: float) -> np.ndarray:
        """True where a box counts as a tile: the reader took it for one, and it is no second
        box on a tile read more surely (:meth:`repeats`). The others are dropped before any
        layout, score or hint, by the scanner and the watch alike."""
        return self.read_as_tiles & ~self.repeats(unsure_below)

    def repeats(self, unsure_below: float) -> np.ndarray:
        """True where a tile is a second box on a tile already read more surely: read with less
        confidence than ``unsure_below`` (the scan's unsure bar) and sharing more than
        ``vision.geometry.MAX_SHARED_AREA`` of the smaller box with a tile read surer.

        The finder merges its looks before anything is read, by its own scores; but a tile can
        still come out boxed twice: whole and by its number's half, or by the number's half and
        the logo's (a steep view, a close-up, a print with a deep dimple), the two boxes being
        turned and stretched apart by the finder's angle refinement and the reader's closer
        looks. Tiles never lie on each other, so of two boxes that much on one spot, the one
        read less surely is no second tile. A tile read surely is never dropped (two tiles
        must not become one), and a box read as no tile makes no other a repeat.
        """
        tiles = np.flatnonzero(self.read_as_tiles)
        repeated = np.zeros(len(self), bool)
        if len(tiles) < 2:
            return repeated
        unsure = self.confidence < unsure_below
        kept = drop_nested(rotated_rects(self.corners), self.confidence, tiles, droppable=unsure)
        repeated[np.setdiff1d(tiles, kept)] = True
        return repeated

    def tiles(self, edition: str = "standard") -> list[Tile | None]:
        """The engine's tiles; ``edition`` for the joker names only Expert and Twist have."""
        return [parse_tile(label, edition) if label is not None else None for label in self.labels]


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-6)
