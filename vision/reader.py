"""Read each found tile: its number (or joker), its colour, and which way up it lies.

Each tile is cut out of the *full-resolution* photo along its four corners and warped to an
upright portrait crop by :func:`vision.geometry.warp_crop`, the code the training crops are cut with. A small classifier
then picks one of its answers x 2 orientations (upright, or turned by 180 degrees). Reading the
orientation together with the number is what tells a 6 from an upside-down 9: the model sees
where the number sits on the face and where the brand mark is.

The answers are the model's (``model.json: tiles``): the 52 numbered tiles, the joker (one
answer ``J``, or one per colour ``Jk Jb Jo Jr``) and, in a reader trained with hard
negatives, ``none``: the box holds no tile (clutter, a face-down tile, half of two tiles), and
the scanner drops it. The joker's colours are added up before the tile is chosen (a joker is
first a joker); the colour then names it as the edition does (:func:`vision.classes.joker_names`).

A tile read with little confidence gets a closer look (see :meth:`TileReader.read`): its crop
read both ways up and averaged ("r6 upright" of one is "r6 upside down" of the other), then
its box turned a quarter round, then stretched; the most confident reading wins. One still
unsure whose box does not follow the face the pixels show (a tile seen at a steep angle is a
parallelogram) is read along that face (:mod:`vision.face_outline`) where that read is sure. A tile read
black whose ink is blue next to its own plastic is read blue (a far tile's few pixels of blue
ink, :func:`vision.white_balance.ink_blueness`). One still unsure that shows a die's pips is
no tile (:mod:`vision.dice`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import cv2
import numpy as np
from rummi.vision.classes import joker_names
from rummi.vision.detections import TileDetections
from rummi.vision.dice import shows_pips
from rummi.vision.face_outline import face_outline, overlap, skew_degrees
from rummi.vision.geometry import CROP_SIZE, portrait_order, warp_crop
from rummi.vision.onnx_model import ModelError, OnnxModel
from rummi.vision.white_balance import ink_blueness

#: A first reading at least this sure (tile and orientation together) is not read again turned.
SURE_ENOUGH = 0.9
#: A box this much like the face outline the pixels show (intersection over union) already
#: follows its face: reading it again along the outline would only be a second guess.
OUTLINE_OVERLAP = 0.8
#: ...and only an outline no rectangle can follow (a corner this far off a right angle) is read:
#: a box that is merely larger than the face (a close-up shows the tile's side too) reads well.
MIN_SKEW_DEGREES = 10.0
#: A tile read black whose ink is bluer than this next to its plastic (``ink_blueness``) is
#: blue: no black tile found on the held-out real photos or the generated prints, under any
#: light measured, passes 0.14 (the line keeps a margin above it); 95 % of blue ones pass 0.2
#: (``benchmarks/ink_colour.py``). Small far tiles, whose blue the reader's small crop takes for
#: black, were most of its sure wrong reads on the generated classic print (0.15 turned two more
#: of them, with no margin).
INK_NOT_BLACK = 0.2
#: ...and how much of its black belief stays black (the ink measure can be wrong too).
BLACK_DESPITE_BLUE_INK = 0.02
#: A box the reader gives a joker at least this belief is never refused as a die: a joker's
#: eyes and nose, its face's ring cut by the box, can pass for pips (found by a second reader's
#: review), and a joker dropped unflagged costs a score most. The generated dice the pips test
#: refuses are read a joker at 0.01-0.04.
JOKER_NOT_A_DIE = 0.1
#: How likely a tile lies the same way up as the mates of its set or rack tier. On the real
#: training photos (``benchmarks/orientation_alike.py``), of 1001 tiles in chains of three or
#: more touching tiles, 988 faced like every chain-mate and 4 unlike every one (0.4 %; each in
#: a chain of scattered tiles that was no set, and each turned by an unsure ink test), so 0.99
#: is if anything low.
SET_MATES_ALIKE = 0.99
#: A tile's way up is weighed only by at least this many mates, each surely read the way its
#: corners lie (one mate could be a tile that merely touches it).
MIN_SURE_MATES = 2


def taller(corners: np.ndarray, factor: float = 1.2) -> np.ndarray:
    """Boxes stretched along their long side about their centres: a box that cut off the top
    of the number (a 7 that reads as a 1) gets it back."""
    centres = corners.mean(axis=1, keepdims=True)
    along = (corners[:, 3] - corners[:, 0])[:, None, :]  # TL -> BL, the long side
    unit = along / np.maximum(np.linalg.norm(along, axis=-1, keepdims=True), 1e-6)
    offsets = corners - centres
    stretch = (offsets * unit).sum(axis=-1, keepdims=True) * unit * (factor - 1)
    return (corners + stretch).astype(np.float32)


def quarter_turned(corners: np.ndarray) -> np.ndarray:
    """Boxes turned by 90 degrees about their centres, corners again in portrait order
    (TL, TR, BR, BL with the long side running top to bottom)."""
    centres = corners.mean(axis=1, keepdims=True)
    offsets = corners - centres
    # (x, y) -> (-y, x) turns clockwise on screen; edges keep their lengths, so the first edge
    # is still a short one and the order stays clockwise.
    return (np.stack([-offsets[..., 1], offsets[..., 0]], axis=-1) + centres).astype(np.float32)


class TileReader:
    """Runs the crop classifier. ``read(photo, found)`` returns ``found`` with labels filled."""

    def __init__(self, model: OnnxModel) -> None:
        self.model = model
        self.tile_names: list[str] = list(model.meta["tiles"])
        width, height = model.meta["input_wh"]
        self.input_size: tuple[int, int] = (int(width), int(height))
        crop_w, crop_h = model.meta.get("crop_wh", CROP_SIZE)
        self.crop_size: tuple[int, int] = (int(crop_w), int(crop_h))
        self.read_turned: bool = bool(model.meta.get("read_turned", True))
        #: The logits are divided by this before the softmax (``model.json: temperature``,
        #: fitted by ``vision/training/calibration.py`` on generated calibration scenes; 1 where
        #: none was fitted), so a read's probability is what it says: a reader over-confident
        #: on crops unlike its training crops reports them less surely. Mostly not differently,
        #: but not never: the two ways up and a joker's colours are added up after the softmax,
        #: and a sum can change its winner with the temperature.
        self.temperature: float = float(model.meta.get("temperature", 1.0))
        if not (np.isfinite(self.temperature) and self.temperature > 0):
            raise ModelError(f"{model.folder / 'model.json'}: its temperature must be a positive number, "
                             f"not {self.temperature}; restore it from the repository")
        #: Columns of the joker's answers (one, or one per colour) and of "none" (or None).
        self.joker_columns = np.array([i for i, n in enumerate(self.tile_names) if n.startswith("J")], int)
        #: ``(13, 2)`` columns of each black number and of the same number in blue.
        self._black_and_blue = np.array([(k, self.tile_names.index("b" + name[1:]))
                                         for k, name in enumerate(self.tile_names)
                                         if name[0] == "k" and name[1:].isdigit() and "b" + name[1:] in self.tile_names],
                                        int).reshape(-1, 2)
        not_a_tile = model.meta.get("not_a_tile")
        self.none_column: int | None = self.tile_names.index(not_a_tile) if not_a_tile in self.tile_names else None

    def read(self, image_bgr: np.ndarray, found: TileDetections, edition: str = "standard") -> TileDetections:
        """``found`` with every tile read; a joker named as ``edition`` names it (plain ``J``
        unless Expert or Twist tell jokers apart by colour), a box on no tile ``none``."""
        if not len(found):
            return found
        corners = found.corners.copy()
        probabilities = self._read_boxes(image_bgr, corners, both_ways=False)  # (N, orientation, tile)
        unsure = np.flatnonzero(self._sureness(probabilities) < SURE_ENOUGH)
        # A tile read with little confidence gets a closer look, cheapest first: the same box
        # read both ways up and averaged; then the box turned a quarter round (its long side
        # was taken the wrong way: a tile seen nearly square, or an angle 45 degrees off); then
        # the box stretched along its long side (it cut off the top of the number). The most
        # confident reading wins. (Held-out read precision with an early reader: 0.65 without
        # a second look, 0.82 with the quarter turn; with the shipped one, stretching by 1.2
        # took 0.9675 to 0.9747, by 1.3 no further; reading every tile both ways up instead of
        # only unsure ones: same accuracy, 15% more time; the later looks one way up only:
        # 0.9838 instead of 0.9856.)
        for alternative in (None, quarter_turned, taller):
            if not len(unsure):
                break
            other_boxes = found.corners[unsure] if alternative is None else alternative(found.corners[unsure])
            second = self._read_boxes(image_bgr, other_boxes, both_ways=True)
            better = (self._sureness(second) > self._sureness(probabilities[unsure])) | (alternative is None)
            probabilities[unsure[better]] = second[better]
            corners[unsure[better]] = other_boxes[better]
            unsure = unsure[self._sureness(probabilities[unsure]) < SURE_ENOUGH]
        self._read_face_outlines(image_bgr, found, unsure, corners, probabilities)
        self._join_halves(image_bgr, found.corners, corners, probabilities)
        self._weigh_by_ink(image_bgr, corners, probabilities)
        self._refuse_dice(image_bgr, corners, probabilities)
        labels, confidence, turned, _ = self._decide(probabilities, edition)
        corners[turned] = np.roll(corners[turned], 2, axis=1)
        probabilities[turned] = probabilities[turned, ::-1]  # kept as the corners now lie
        return found.with_reads(corners, labels, confidence, probabilities)

    def agree_with_set_mates(self, found: TileDetections, groups: Iterable[Sequence[int]],
                             edition: str = "standard", settled: np.ndarray | None = None) -> TileDetections:
        """``found`` with each tile's way up weighed by the tiles it was laid with (``groups``:
        index lists into ``found``, the layout's sets and rack tiers; ``settled``: tiles that
        count as mates but stay as they were read, as the watch keeps a still tile's reading).

        A player lays a set's tiles side by side the same way up: on the real training photos,
        over 99 % of the tiles in a chain of three or more face like all their chain-mates
        (``SET_MATES_ALIKE``). So where a tile's mates surely face one way, a reading of it
        facing the other way is unlikely however its crop looks, and the reader's belief is
        weighed by that prior before the tile is chosen. This is what tells an upright 6 from a
        9 turned round when the crop alone cannot (the two differ only by where the number and
        the brand mark sit, faint in a small or blurred crop). It changes a reading only where
        the reader's own belief was divided between the two ways up (less than ``SURE_ENOUGH``
        on the way its corners lie): a tile read surely facing unlike every mate (a player did
        lay it turned) stays as it was read, and no confidence rises: a tile is as sure as the
        reader alone was of the answer chosen (a real 9 laid turned in a group of upright 9s,
        read 0.64 as it lies and 0.30 as a turned 6, becomes a 6 at 0.30, flagged, never a sure
        6 that makes the table invalid).
        (On the robustness benchmark's generated scenes, whose sets turn 4 % of their tiles on
        purpose, weighing sure tiles too turned three right reads wrong and mended three;
        weighing only divided ones mends two and turns none wrong.)
        """
        probabilities = found.read_probabilities
        if not len(found) or probabilities.shape[2] != len(self.tile_names):
            return found
        prior = np.full((len(found), 2), 0.5)
        up = found.up_vectors
        believed = probabilities.sum(axis=(1, 2)) > 0.5  # a tile whose belief was not kept has zeros
        way_sure = probabilities[:, 0].sum(axis=1) >= SURE_ENOUGH  # surely as its corners lie
        for group in groups:
            members = np.asarray(group, int)
            for k, i in enumerate(members):
                if not believed[i] or way_sure[i] or (settled is not None and settled[i]):
                    continue
                mates = np.delete(members, k)
                mates = mates[way_sure[mates]]
                if len(mates) < MIN_SURE_MATES:
                    continue
                along = up[mates] @ up[i]  # the layout keeps a set's tiles turned alike or opposite
                if (along > 0).all():
                    prior[i] = (SET_MATES_ALIKE, 1 - SET_MATES_ALIKE)
                elif (along < 0).all():
                    prior[i] = (1 - SET_MATES_ALIKE, SET_MATES_ALIKE)
        weighed = np.flatnonzero(prior[:, 0] != 0.5)
        if not len(weighed):
            return found
        beliefs = probabilities[weighed].copy()
        if self.none_column is not None:
            beliefs[:, :, self.none_column] = 0.0  # already taken for a tile: only its way up is weighed
        labels, confidence, turned, answers = self._decide(beliefs, edition, prior[weighed])
        # The mates choose the way up; they do not make the crop clearer: a tile is no surer
        # than the reader alone was of the answer chosen (a 6 it took for a 9 stays flagged,
        # so the referee never accuses over it).
        own = self._jokers_merged(beliefs).sum(axis=1)[np.arange(len(weighed)), answers]
        all_labels = list(found.labels)
        all_confidence = found.read_confidence.copy()
        corners, probabilities = found.corners.copy(), probabilities.copy()
        for n, i in enumerate(weighed):
            all_labels[i], all_confidence[i] = labels[n], min(confidence[n], own[n])
            if turned[n]:
                corners[i] = np.roll(corners[i], 2, axis=0)
                probabilities[i] = probabilities[i, ::-1]
        return found.with_reads(corners, all_labels, all_confidence, probabilities)

    def _decide(self, probabilities: np.ndarray, edition: str,
                prior: np.ndarray | None = None) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
        """Each crop's tile from the reader's belief ``(N, orientation, answer)``, weighed by a
        ``prior`` over its way up ``(N, 2)`` where one is known: (labels, confidence, turned:
        True where the tile lies the other way up from the corners it was read in, and the
        answers' columns)."""
        if prior is not None:
            probabilities = probabilities * prior[:, :, None]
            probabilities = probabilities / np.maximum(probabilities.sum(axis=(1, 2), keepdims=True), 1e-12)
        merged = self._jokers_merged(probabilities)  # (N, orientation, answer), one joker column
        per_tile = merged.sum(axis=1)
        best = per_tile.argmax(axis=1)
        index = np.arange(len(best))
        confidence = per_tile[index, best]
        turned = merged[index, 1, best] > merged[index, 0, best]
        joker_at = int(self.joker_columns[0])
        names = joker_names(edition)
        colours = probabilities.sum(axis=1)[:, self.joker_columns].argmax(axis=1)
        labels = [names.get(self.tile_names[self.joker_columns[c]], "J") if b == joker_at else self.tile_names[b]
                  for b, c in zip(best, colours)]
        return labels, confidence, turned, best

    def _read_face_outlines(self, image_bgr: np.ndarray, found: TileDetections, unsure: np.ndarray,
                            corners: np.ndarray, probabilities: np.ndarray) -> None:
        """Unsure tiles whose box does not follow the face the pixels show (a tile seen at a
        steep angle is a parallelogram, not a rectangle: :mod:`vision.face_outline`) are read
        again along that face, its corners taken both ways round; the read replaces the box's
        in ``probabilities`` only when it is a tile read ``SURE_ENOUGH``. The box itself stays
        the tile's outline for everything after reading (sets, racks, the edge rule measure
        rectangles of alike size and axes), turned so its top is the face's top.
        (The benchmark's 50 degree side tilt: misreads 50 -> 36, no more read wrong surely;
        accepting a read from 0.7 up also took blurred tiles' other readings.)"""
        outlines, tiles = [], []
        for i in unsure:
            outline = face_outline(image_bgr, found.corners[i], _other_boxes_centres(found, int(i)))
            if (outline is not None and overlap(outline, found.corners[i]) < OUTLINE_OVERLAP
                    and skew_degrees(outline) > MIN_SKEW_DEGREES):
                outlines += [outline, np.roll(outline, 1, axis=0)]  # which pair of sides is the tile's height
                tiles.append(int(i))
        if not tiles:
            return
        read = self._read_boxes(image_bgr, np.stack(outlines), both_ways=True).reshape(len(tiles), 2, 2, -1)
        sureness = self._sureness(read.reshape(len(tiles) * 2, 2, -1)).reshape(len(tiles), 2)
        for k, i in enumerate(tiles):
            way = int(sureness[k].argmax())
            answer = int(self._jokers_merged(read[k, way]).sum(axis=0).argmax())
            if (sureness[k, way] >= SURE_ENOUGH and answer != self.none_column
                    and sureness[k, way] > self._sureness(probabilities[i:i + 1])[0]):
                probabilities[i] = read[k, way]
                corners[i] = _turned_like(found.corners[i], outlines[2 * k + way])

    def _join_halves(self, image_bgr: np.ndarray, boxes: np.ndarray, corners: np.ndarray,
                     probabilities: np.ndarray) -> None:
        """Two unsure boxes side by side that together are one tile become that tile (``corners``
        and ``probabilities`` changed in place; ``boxes``: the finder's, as found).

        A print with a deep dimple round the number can be found as two boxes, the number's
        half and the logo's, neither of which reads surely (or the logo's half reads as no
        tile). Their joint box, where it has a tile's shape, is read too; when it reads well
        (``JOINT_SURE``) and surer than either half, it is the tile, and the other half is no
        tile. Two real tiles side by side make a box the other way round (their numbers lie
        sideways in its crop), which does not read as one tile, so they stay two.
        """
        if self.none_column is None:
            return
        sureness = self._sureness(probabilities)
        unsure = [int(i) for i in np.argsort(-sureness) if sureness[i] < SURE_ENOUGH]
        if len(unsure) < 2:
            return
        centres = boxes.mean(axis=1)
        pairs, joints = [], []
        for n, i in enumerate(unsure):
            for j in unsure[n + 1:]:
                joint = _joint_box(boxes[i], boxes[j], centres[i], centres[j])
                if joint is not None:
                    pairs.append((i, j))
                    joints.append(joint)
        if not pairs:
            return
        read = self._read_boxes(image_bgr, np.stack(joints), both_ways=True)
        joint_sureness = self._sureness(read)
        answers = self._jokers_merged(read).sum(axis=1).argmax(axis=1)  # each joint box's answer
        taken: set[int] = set()
        for k in np.argsort(-joint_sureness):
            i, j = pairs[k]
            if (i in taken or j in taken or joint_sureness[k] < JOINT_SURE or answers[k] == self.none_column
                    or joint_sureness[k] <= max(sureness[i], sureness[j])):
                continue
            probabilities[i], corners[i] = read[k], joints[k]
            self._no_tile(probabilities, j)
            taken.update((i, j))

    def _weigh_by_ink(self, image_bgr: np.ndarray, corners: np.ndarray, probabilities: np.ndarray) -> None:
        """Where a tile is read black but its ink is blue next to its own plastic, the belief
        in each black number moves to the same number in blue (but ``BLACK_DESPITE_BLUE_INK``),
        in place: the reader tells numbers by their shape, and a far tile's few pixels of blue
        ink by colour less well than the ink's measured colour does. Kept in the belief, so the
        set-mates step decides on it too."""
        pairs = self._black_and_blue
        if not len(pairs):
            return
        best = self._jokers_merged(probabilities).sum(axis=1).argmax(axis=1)
        for i in np.flatnonzero(np.isin(best, pairs[:, 0])):
            if ink_blueness(self.crop(image_bgr, corners[i])) > INK_NOT_BLACK:
                moved = probabilities[i][:, pairs[:, 0]] * (1 - BLACK_DESPITE_BLUE_INK)
                probabilities[i][:, pairs[:, 0]] -= moved
                probabilities[i][:, pairs[:, 1]] += moved

    def _refuse_dice(self, image_bgr: np.ndarray, corners: np.ndarray, probabilities: np.ndarray) -> None:
        """A box still read unsurely whose crop shows a die's pips (:func:`vision.dice.shows_pips`)
        holds no tile, in place: the reader, which knows numbers, reads pips as one it is unsure
        of. Only unsure reads are looked at, a tile read surely is a tile; and none the reader
        thinks may be a joker (``JOKER_NOT_A_DIE``)."""
        if self.none_column is None:
            return
        jokers = probabilities[..., self.joker_columns].sum(axis=(1, 2))
        for i in np.flatnonzero((self._sureness(probabilities) < SURE_ENOUGH) & (jokers < JOKER_NOT_A_DIE)):
            if shows_pips(self.crop(image_bgr, corners[i])):
                self._no_tile(probabilities, i)

    def _no_tile(self, probabilities: np.ndarray, i: int) -> None:
        """Box ``i`` read surely as no tile, in place (a reader with a "none" answer only)."""
        probabilities[i] = 0.0
        probabilities[i, 0, self.none_column] = 1.0

    def _jokers_merged(self, probabilities: np.ndarray) -> np.ndarray:
        """The probabilities with the joker's colours added up into the first joker column
        (the others zero), so a joker split between two colours is still surely a joker."""
        if len(self.joker_columns) < 2:
            return probabilities
        merged = probabilities.copy()
        merged[..., self.joker_columns[0]] = probabilities[..., self.joker_columns].sum(axis=-1)
        merged[..., self.joker_columns[1:]] = 0.0
        return merged

    def _sureness(self, probabilities: np.ndarray) -> np.ndarray:
        """The probability of the single likeliest (orientation, answer) per crop, the joker's
        colours taken together."""
        merged = self._jokers_merged(probabilities)
        return merged.reshape(len(merged), -1).max(axis=1)

    def crop(self, image_bgr: np.ndarray, corners: np.ndarray) -> np.ndarray:
        """The upright crop this reader reads for one box (the training crops' warp)."""
        return warp_crop(image_bgr, corners, self.crop_size)

    def _read_boxes(self, image_bgr: np.ndarray, corners: np.ndarray, both_ways: bool) -> np.ndarray:
        crops = np.stack([self._prepare(self.crop(image_bgr, c)) for c in corners])
        probabilities = self._probabilities(crops)
        if both_ways and self.read_turned:
            # The same crops turned by 180 degrees: "upright" there is "upside down" here.
            turned = self._probabilities(np.ascontiguousarray(crops[:, :, ::-1, ::-1]))
            probabilities = (probabilities + turned[:, ::-1, :]) / 2
        return probabilities

    def _prepare(self, crop_bgr: np.ndarray) -> np.ndarray:
        small = cv2.resize(crop_bgr, self.input_size, interpolation=cv2.INTER_AREA)
        return small[:, :, ::-1].transpose(2, 0, 1).astype(np.float32) / 255.0

    def _probabilities(self, batch: np.ndarray) -> np.ndarray:
        logits = self.model.run(np.ascontiguousarray(batch)).astype(np.float64) / self.temperature
        logits -= logits.max(axis=1, keepdims=True)
        exp = np.exp(logits)
        probs = exp / exp.sum(axis=1, keepdims=True)
        return probs.reshape(len(batch), 2, len(self.tile_names))


#: A joint box replaces its halves when it reads at least this surely: the scanner's bar for a
#: read it does not flag uncertain (a join that would stay uncertain is not worth the risk).
JOINT_SURE = 0.7
#: A joint box is a tile's shape when its short side is this share of its long side (a tile
#: is 3:4 seen square on; perspective and a loose box move it about)...
JOINT_SHAPE = (0.55, 0.9)
#: ...and it covers little more than its two halves (they touch rather than lie apart).
JOINT_SLACK = 1.5


def _other_boxes_centres(found: TileDetections, i: int) -> np.ndarray:
    """The centres of the boxes other than ``i`` that lie outside box ``i`` (a second box on
    the same tile, dropped later as a repeat, is no other tile)."""
    contour = found.corners[i].astype(np.float32).reshape(-1, 1, 2)
    return np.array([c for j, c in enumerate(found.centers)
                     if j != i and cv2.pointPolygonTest(contour, (float(c[0]), float(c[1])), False) < 0],
                    np.float32).reshape(-1, 2)


def _turned_like(box: np.ndarray, outline: np.ndarray) -> np.ndarray:
    """``box``'s corners in the order (of its four turns) whose top points most nearly where
    ``outline``'s top does."""
    def up(quad: np.ndarray) -> np.ndarray:
        return (quad[0] + quad[1] - quad[2] - quad[3]) / 2

    turns = [np.roll(box, r, axis=0) for r in range(4)]
    return max(turns, key=lambda q: float(up(q) @ up(outline))).astype(np.float32)


def _joint_box(a: np.ndarray, b: np.ndarray, centre_a: np.ndarray, centre_b: np.ndarray) -> np.ndarray | None:
    """The one box around two boxes that touch, in portrait order, when it has a tile's shape;
    else None."""
    size_a = max(np.linalg.norm(a[1] - a[0]), np.linalg.norm(a[3] - a[0]))
    size_b = max(np.linalg.norm(b[1] - b[0]), np.linalg.norm(b[3] - b[0]))
    if np.linalg.norm(centre_a - centre_b) > 1.2 * max(size_a, size_b):
        return None
    (cx, cy), (width, height), angle = cv2.minAreaRect(np.concatenate([a, b]).astype(np.float32))
    short, long = sorted((width, height))
    if long <= 0 or not JOINT_SHAPE[0] <= short / long <= JOINT_SHAPE[1]:
        return None
    if width * height > JOINT_SLACK * (cv2.contourArea(a) + cv2.contourArea(b)):
        return None
    return portrait_order(cv2.boxPoints(((cx, cy), (width, height), angle)))
