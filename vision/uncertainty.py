"""Which read tiles are uncertain: the one rule the scanner and the watch tracker share.

A read is not sure when the reader's confidence is low, when the photo's edge cuts the tile
(what shows is part of its face), or when the whole photo was too blurred or dark to read.
The referee turns an "illegal" verdict on an uncertain spot into "uncertain", so two copies of
this rule would make a photo and a watched frame of the same table judge differently.
"""

from __future__ import annotations

import numpy as np
from rummi.vision.detections import TileDetections


def uncertain_tiles(found: TileDetections, photo_size: tuple[int, int], below: float,
                    readable: bool = True) -> list[int]:
    """Indices into ``found`` (in the pixels of a photo ``photo_size`` = (width, height)) of the
    tiles whose read is not sure: confidence under ``below``, or a box the photo's edge cuts;
    every tile when the photo was not ``readable``."""
    if not readable:
        return list(range(len(found)))
    width, height = photo_size
    unsure = (found.confidence < below) | found.cut_by_the_edge(width, height)
    return [int(i) for i in np.flatnonzero(unsure)]
