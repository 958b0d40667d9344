"""A tile the reader was unsure of, read again by the rules of the set it was laid in.

Tiles laid side by side on a table make a set: one number in different colours, or one colour
in sequence. A misread tile mostly breaks its set: a teal 12 read black in a dim photo makes
``o12 k12 k12``, a red 8 read as a 10 makes ``r7 r10 r9``. The reader's belief usually holds
the right answer close behind the wrong one, so where a set as read is no set, and taking one
unsure tile's next answer (the same way up) makes it one, that answer is the likelier reading
of the photo: a player's sets are nearly always valid, and the reader's doubt is the photo's.

It stays a reading of the photo, not a correction of the player: only a tile read less than
``SURE_ENOUGH`` changes (a sure reading of an invalid set is shown as the player laid it, for
the referee to judge), only to an answer the reader itself gave at least ``MIN_BELIEF``, never
to or from a joker (the costliest misread), one tile per set at most, none where two answers are
nearly as likely, never on a rack the layout recognises (a rack holds any tiles), and the tile
is exactly as sure as the reader was of its new answer, and kept under the scanner's line: it
is shown flagged for the player to check, never silently mended.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from rummi.engine.editions import get_edition
from rummi.engine.errors import RummiError
from rummi.engine.melds import classify
from rummi.engine.notation import parse_tile
from rummi.engine.tiles import Tile
from rummi.vision.classes import TILE_CLASSES
from rummi.vision.detections import TileDetections
from rummi.vision.reader import SURE_ENOUGH  # a reading this sure is kept, valid set or not

#: The answer taken instead must have had at least this share of the reader's belief: the
#: right answer of a misread tile often has only a few hundredths (a teal 6 read black in a
#: dim photo: 0.04), and the set's rules, not this line, are what choose it (the generated
#: prints read the same with 0.01 as with 0.02; 0.05 missed four of those tiles).
MIN_BELIEF = 0.02
#: Where another answer (of this tile or another) would make the set valid too with at least
#: this share of the belief the likeliest has, the photo does not say which: nothing changes.
RUNNER_UP_SHARE = 0.8
#: Sets of fewer tiles say too little (a pair is no set, whatever it reads).
MIN_SET = 3


def mend_by_set_rules(found: TileDetections, sets: Iterable[Sequence[int]], tile_names: Sequence[str],
                      edition: str = "standard", settled: np.ndarray | None = None,
                      flagged_below: float = 1.0) -> TileDetections:
    """``found`` with, in each set (index lists into ``found``) that reads as no set, the one
    unsure tile whose next answer makes it a set re-read so (see the module's docstring).
    ``tile_names``: the reader's answers, the columns of ``found.read_probabilities``;
    ``settled``: tiles that stay as they were read (the watch's still tiles);
    ``flagged_below``: the scanner's line for an uncertain tile, which a mended tile stays under
    (its belief in the new answer is far below it anyway: the answer was not its first)."""
    probabilities = found.read_probabilities
    if not len(found) or probabilities.ndim != 3 or probabilities.shape[2] != len(tile_names):
        return found
    try:
        box = get_edition(edition)
    except RummiError:
        return found
    answers = {name: tile for name in tile_names if name in _NUMBERED and (tile := _tile(name, edition)) is not None}
    labels = list(found.labels)
    confidence = found.read_confidence.copy()
    under_the_line = float(np.nextafter(np.float32(flagged_below), np.float32(0)))  # as the confidences are kept
    for members in sets:
        members = [int(i) for i in members]
        tiles = [_tile(labels[i], edition) for i in members]
        if len(members) < MIN_SET or any(t is None for t in tiles) or classify(tiles, box).valid:
            continue
        options: list[tuple[float, int, str]] = []  # (belief, tile, answer)
        for k, i in enumerate(members):
            if confidence[i] >= SURE_ENOUGH or tiles[k].is_joker or (settled is not None and settled[i]):  # type: ignore[union-attr]
                continue
            belief = probabilities[i, 0] / max(float(probabilities[i].sum()), 1e-12)  # as its corners lie
            for column, name in enumerate(tile_names):
                if name not in answers or name == labels[i] or belief[column] < MIN_BELIEF:
                    continue
                other = list(tiles)
                other[k] = answers[name]
                if classify(other, box).valid:
                    options.append((float(belief[column]), i, name))
        if not options:
            continue
        options.sort(reverse=True)
        if len(options) > 1 and options[1][0] >= RUNNER_UP_SHARE * options[0][0]:
            continue  # two readings nearly as likely: the photo does not say which
        belief, i, name = options[0]
        labels[i] = name
        confidence[i] = min(float(confidence[i]), belief, under_the_line)
    if labels == list(found.labels):
        return found
    return found.with_reads(found.corners, labels, confidence, probabilities)


#: The reader's answers that name a numbered tile (``k12``): every class but the joker and "none".
_NUMBERED = frozenset(name for name in TILE_CLASSES if name != "J")


def _tile(label: str | None, edition: str) -> Tile | None:
    if label is None:
        return None
    try:
        return parse_tile(label, edition)
    except RummiError:  # not a tile of this box (Start Right has no 11), or no tile at all
        return None
