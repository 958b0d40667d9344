"""Many readings of a still table merged into one the referee can trust.

One scan can miss a tile under glare or misread it once; a player must never be judged on
that. So while the table is still, several scans are kept and each tile is followed from scan
to scan by where it lies (a tile does not move on a still table). A tile counts only when it
was seen in every one of the last ``min_scans`` scans (or of those around one odd scan, a
frame smeared by a small shake); a tile seen now and then (a flicker) never counts. When the scans do not agree after ``max_scans``, the majority decides (each scan's
vote weighed by the reader's confidence), and a tile read with low confidence, or surely read
as something else in another scan, is marked uncertain: the referee then tries its other
readings before it accuses anyone. One scan's unsure read of a tile the others read surely
makes no doubt (a referee must not hedge over a glint in one frame); two contrary reads, sure
or not, always do.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from rummi.vision.detections import TileDetections
from rummi.vision.layout import Layout, lay_out
from rummi.vision.scanner import UNCERTAIN_BELOW, ScanResult

#: Two detections are the same tile when their centres are closer than this, in tile widths.
SAME_TILE = 0.5
#: A tile read as something else this many times (sure or not) is uncertain whatever the
#: confidence of the winning reads: one unsure contrary read is a glint, two are a doubt.
CONTRARY_READS = 2


@dataclass
class _Track:
    """One tile followed over the scans of a still table."""

    centre: np.ndarray
    corners: np.ndarray
    width: float
    seen: list[int] = field(default_factory=list)  # scan numbers
    labels: list[str] = field(default_factory=list)
    confidence: list[float] = field(default_factory=list)
    find_confidence: list[float] = field(default_factory=list)
    #: The reader's belief (way up x answer) of the newest scan, as ``corners`` lie: the tile
    #: is weighed by its set-mates with it when a later reading adds tiles beside it.
    belief: np.ndarray | None = None

    @property
    def label(self) -> str:
        return Counter(self.labels).most_common(1)[0][0]

    @property
    def agreed(self) -> bool:
        return len(set(self.labels)) == 1


@dataclass(frozen=True)
class Reading:
    """The merged reading of a still table: tiles, their sets, and the unsure ones.

    ``uncertain`` holds indices into ``found``; ``layout`` indexes ``found`` too.
    """

    found: TileDetections
    layout: Layout
    uncertain: tuple[int, ...]

    @property
    def sets(self) -> list[list[str]]:
        return [[self.found.labels[i] or "?" for i in s] for s in self.layout.sets]

    def as_scan(self) -> ScanResult:
        """The reading in the scanner's own type, for drawing."""
        return ScanResult(found=self.found, layout=self.layout, uncertain=list(self.uncertain))

    @property
    def tile_width(self) -> float | None:
        return float(np.median(self.found.widths)) if len(self.found) else None


class ReadingWindow:
    """Scans of one still stretch; :meth:`settled` says when they agree and what they say."""

    def __init__(self, min_scans: int = 3, max_scans: int = 6) -> None:
        if not 1 <= min_scans <= max_scans:
            raise ValueError("need 1 <= min_scans <= max_scans")
        self.min_scans = min_scans
        self.max_scans = max_scans
        self._tracks: list[_Track] = []
        self._scans = 0

    @property
    def scans(self) -> int:
        return self._scans

    def clear(self) -> None:
        self._tracks = []
        self._scans = 0

    def add(self, result: ScanResult) -> None:
        """Follow every tile of one more scan of the still table."""
        found = result.found
        number = self._scans
        self._scans += 1
        if not len(found):
            return
        centres, widths = found.centers, found.widths
        confidence = found.confidence
        free = list(range(len(self._tracks)))
        for i in np.argsort(-confidence):
            label = found.labels[i]
            if label is None:
                continue
            best, best_distance = None, SAME_TILE
            for t in free:
                track = self._tracks[t]
                distance = float(np.linalg.norm(track.centre - centres[i])) / max(track.width, 1.0)
                if distance < best_distance:
                    best, best_distance = t, distance
            if best is None:
                track = _Track(centre=centres[i].copy(), corners=found.corners[i].copy(), width=float(widths[i]))
                self._tracks.append(track)
            else:
                free.remove(best)
                track = self._tracks[best]
                track.corners = found.corners[i].copy()
            track.belief = found.read_probabilities[i].copy()
            track.seen.append(number)
            track.labels.append(label)
            track.confidence.append(float(found.read_confidence[i]))
            track.find_confidence.append(float(found.find_confidence[i]))

    def settled(self) -> Reading | None:
        """The agreed reading, or None while the scans still disagree (and fewer than ``max_scans``).

        Agreement: over the last ``min_scans`` scans every tile was seen in all or in none of
        them, each read the same way every time. Or, when one scan among the last
        ``min_scans + 1`` (not the newest) is the odd one out, the others agree that way: one
        frame smeared by a small shake or caught by a glint then costs no more scans (the
        verdict would wait for two more still scans otherwise), and a tile it read otherwise,
        and surely, is marked uncertain (an unsure odd read is outvoted and forgotten).
        """
        if self._scans < self.min_scans:
            return None
        recent = set(range(self._scans - self.min_scans, self._scans))
        if self._agree(recent):
            return self._reading([t for t in self._tracks if recent <= set(t.seen)], recent)
        if self._scans > self.min_scans:
            span = set(range(self._scans - self.min_scans - 1, self._scans))
            for odd in sorted(span - {min(span), max(span)}, reverse=True):
                chosen = span - {odd}
                if self._agree(chosen):
                    return self._reading([t for t in self._tracks if chosen <= set(t.seen)], chosen, doubt=span)
        if self._scans >= self.max_scans:
            kept = [t for t in self._tracks if len(t.seen) * 2 > self._scans]
            return self._reading(kept, set(range(self._scans)))
        return None

    def _agree(self, scans: set[int]) -> bool:
        """Every tile seen in all of ``scans`` or in none, read the same way in each."""
        for track in self._tracks:
            seen = scans & set(track.seen)
            if seen and (seen != scans or len({label for n, label in zip(track.seen, track.labels) if n in scans}) > 1):
                return False
        return True

    def _reading(self, tracks: list[_Track], scans: set[int], doubt: set[int] | None = None) -> Reading:
        """The reading of ``tracks`` by their votes in ``scans``; a tile read two ways within
        ``doubt`` (scans left out of the vote) is uncertain."""
        if not tracks:
            empty = TileDetections.empty()
            return Reading(found=empty, layout=lay_out(empty, "table"), uncertain=())
        labels, read_confidence, find_confidence = [], [], []
        doubted: set[int] = set()
        for track in tracks:
            votes = [(tile, c, f) for n, tile, c, f in zip(track.seen, track.labels, track.confidence,
                                                     track.find_confidence) if n in scans]
            label = _winner([(tile, c) for tile, c, _ in votes])
            agree = [c for tile, c, _ in votes if tile == label]
            against = [c for tile, c, _ in votes if tile != label]
            if len(against) == 1 and against[0] < UNCERTAIN_BELOW:
                # One frame's unsure read (a glint, a little blur) of a tile the other frames
                # read surely is no doubt; a second one is: half the frames may be seeing the
                # tile that makes the play legal, and a referee must not accuse over that.
                against = []
            labels.append(label)
            read_confidence.append(float(np.mean(agree)) * len(agree) / (len(agree) + len(against)))
            if len(against) >= CONTRARY_READS:
                doubted.add(len(labels) - 1)
            find_confidence.append(float(np.mean([f for *_, f in votes])))
        found = TileDetections(
            corners=np.stack([t.corners for t in tracks]).astype(np.float32),
            find_confidence=np.asarray(find_confidence, np.float32),
            labels=tuple(labels),
            read_confidence=np.asarray(read_confidence, np.float32),
            read_probabilities=_beliefs(tracks),
        )
        unsure = {int(i) for i in np.flatnonzero(found.confidence < UNCERTAIN_BELOW)} | doubted
        if doubt:
            unsure |= {i for i, track in enumerate(tracks)
                       if _surely_read_otherwise(track, doubt, labels[i])}
        unsure = sorted(unsure)
        return Reading(found=found, layout=lay_out(found, "table"), uncertain=tuple(unsure))


def _beliefs(tracks: list[_Track]) -> np.ndarray:
    """The tracks' newest beliefs stacked, or none kept (``(N, 2, 0)``) where one is missing."""
    beliefs = [t.belief for t in tracks]
    if any(b is None for b in beliefs) or len({b.shape for b in beliefs}) != 1:  # type: ignore[union-attr]
        return np.zeros((len(tracks), 2, 0), np.float32)
    return np.stack(beliefs)  # type: ignore[arg-type]


def _winner(votes: list[tuple[str, float]]) -> str:
    """The reading with the most confidence summed over the scans (a majority of sure reads beats
    one of unsure ones); a tie goes to the reading seen first."""
    weight: dict[str, float] = {}
    for tile, confidence in votes:
        weight[tile] = weight.get(tile, 0.0) + confidence
    return max(weight, key=weight.__getitem__)


def _surely_read_otherwise(track: _Track, scans: set[int], label: str) -> bool:
    """Some scan among ``scans`` read the tile as something other than ``label``, and was sure of it."""
    return any(n in scans and tile != label and c >= UNCERTAIN_BELOW
               for n, tile, c in zip(track.seen, track.labels, track.confidence))
