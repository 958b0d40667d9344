"""How often a tile lies the same way up as the tiles it was laid with, on the real photos.

    .venv/bin/python benchmarks/orientation_alike.py            # the training photos
    .venv/bin/python benchmarks/orientation_alike.py --split all

The reader weighs each tile's way up by its set-mates' (``vision.reader.SET_MATES_ALIKE``,
``TileReader.agree_with_set_mates``): an upright 6 half taken for a 9 turned round is a 6 when
the tiles beside it are upright. That weight is this share: of the tiles in a chain of three or
more touching tiles (the layout's sets, built from the labelled outlines), how many face like
every other tile of their chain. A tile's way up is the labels' (``datasets.real.photo_scene``:
the side of the face the number's ink lies on), so a tile the ink test turned wrongly counts
as unlike: the share is if anything too low. Training photos by default, so the weight is not
drawn from the photos the benchmarks hold out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rummi.datasets.real import default_real_photos, list_photos, photo_scene, read_class_names  # noqa: E402
from rummi.datasets.sessions import split_by_session  # noqa: E402
from rummi.vision.detections import TileDetections  # noqa: E402
from rummi.vision.layout import MIN_SET_TILES, lay_out  # noqa: E402
from rummi.vision.reader import SET_MATES_ALIKE  # noqa: E402


def facing(found: TileDetections, chains: list[list[int]]) -> tuple[int, int, int]:
    """(alike, unlike, neither): tiles facing like every chain-mate, unlike every one, or mixed."""
    alike = unlike = neither = 0
    up = found.up_vectors
    for chain in chains:
        for k, i in enumerate(chain):
            along = up[np.delete(np.asarray(chain), k)] @ up[i]
            if (along > 0).all():
                alike += 1
            elif (along < 0).all():
                unlike += 1
            else:
                neither += 1
    return alike, unlike, neither


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=None, help="the real photos (default: the shared ones)")
    parser.add_argument("--split", choices=("train", "val", "all"), default="train",
                        help="which photos, split by shooting session as `rummi dataset real` splits them")
    args = parser.parse_args()
    source = args.photos or default_real_photos()
    names = read_class_names(source)
    photos = list_photos(source)
    split = split_by_session(p.session for p in photos)
    chosen = [p for p in photos if args.split == "all" or split[p.session] == args.split]
    totals = np.zeros(3, int)
    chains = 0
    for number, photo in enumerate(chosen, start=1):
        scene = photo_scene(photo, names)
        if scene.tiles:
            found = TileDetections.from_corners(np.stack([t.quad for t in scene.tiles]), np.ones(len(scene.tiles)))
            sets = [s for s in lay_out(found, "table").sets if len(s) >= MIN_SET_TILES]
            chains += len(sets)
            totals += facing(found, sets)
        print(f"\r  {number}/{len(chosen)} photos", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    alike, unlike, neither = (int(v) for v in totals)
    counted = alike + unlike + neither
    print(f"{len(chosen)} {args.split} photos, {chains} chains of {MIN_SET_TILES}+ touching tiles, {counted} tiles in them")
    print(f"facing like every chain-mate: {alike} ({alike / max(1, counted):.2%}); unlike every one: {unlike}; "
          f"mixed: {neither}")
    print(f"(the reader's weight SET_MATES_ALIKE: {SET_MATES_ALIKE})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
