"""`rummi dataset synth`: render scenes in parallel and write them in the shared layout.

Each scene depends only on ``(seed, index)``, so workers can take scenes in any order and the
result is the same byte for byte. Real tiles are cut once in the parent process and shared with
forked workers (copy-on-write), not re-read per worker.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from rummi.datasets import writer
from rummi.datasets.errors import DatasetError
from rummi.datasets.progress import Progress
from rummi.datasets.synth.fonts import missing_fonts, missing_fonts_warning
from rummi.datasets.synth.real_tiles import RealTile, cut_real_tiles
from rummi.datasets.synth.render import render_scene
from rummi.datasets.synth.styles import PRESSMAN_SHARE
from rummi.datasets.writer import SceneSummary
from rummi.vision.geometry import CROP_SIZE

#: Reader crops written per scene (a random subset): enough variety, without 150,000 files.
CROPS_PER_SCENE = 10

_bank: Sequence[RealTile] = ()
_job: dict = {}


def split_of(index: int, val_fraction: float) -> str:
    """Every scene is independent, so a deterministic interleave is an honest split here."""
    return "val" if int((index + 1) * val_fraction) > int(index * val_fraction) else "train"


def make_one(index: int) -> tuple[SceneSummary, list[str]]:
    """Render and write scene ``index`` of the current job (runs in a worker)."""
    seed, out_dir, val_fraction = _job["seed"], _job["out"], _job["val_fraction"]
    rendered = render_scene(seed, index, _bank, pressman_share=_job["pressman_share"])
    scene = rendered.scene
    rng = np.random.default_rng([seed, index, 1])
    order = rng.permutation(len(scene.tiles))[:CROPS_PER_SCENE]
    return writer.write_scene(out_dir, scene, split_of(index, val_fraction),
                              jpeg_quality=int(scene.meta["jpeg_quality"]), crop_tiles=order.tolist())


def _init(job: dict) -> None:
    _job.update(job)


def generate(out_dir: Path, n: int, seed: int, real_source: Path | None, workers: int = 2,
             val_fraction: float = 0.1, show_progress: bool = True, pressman_share: float | None = None) -> dict:
    """Generate ``n`` scenes into ``out_dir``; returns the manifest. ``pressman_share``: the
    chance a scene's box is of the pressman print (None: the generator's own share); 1 makes a
    folder of that print alone, which the reader's trainer can weigh as a ``--data`` of its own."""
    global _bank
    if n < 1:
        raise DatasetError("--n must be at least 1")
    if not 0.0 <= val_fraction < 1.0:
        raise DatasetError("--val-fraction must be in [0, 1)")
    if workers < 1:
        raise DatasetError("--workers must be at least 1")
    if pressman_share is None:
        pressman_share = PRESSMAN_SHARE
    if not 0.0 <= pressman_share <= 1.0:
        raise DatasetError("--pressman-share must be in [0, 1]")
    out_dir = Path(out_dir).resolve()
    warning = missing_fonts_warning()
    if warning and show_progress:
        print(warning, file=sys.stderr)
    _bank = cut_real_tiles(real_source) if real_source is not None else ()
    writer.prepare(out_dir)
    job = {"seed": seed, "out": out_dir, "val_fraction": val_fraction, "pressman_share": pressman_share}
    summaries: list[SceneSummary] = []
    crop_rows: list[str] = []
    with Progress(n, "synth", enabled=show_progress) as bar:
        if workers == 1:
            _init(job)
            results = map(make_one, range(n))
            for summary, rows in results:
                summaries.append(summary)
                crop_rows.extend(rows)
                bar.advance()
        else:
            context = multiprocessing.get_context("fork")
            with context.Pool(workers, initializer=_init, initargs=(job,)) as pool:
                for summary, rows in pool.imap_unordered(make_one, range(n), chunksize=4):
                    summaries.append(summary)
                    crop_rows.extend(rows)
                    bar.advance()
        seconds = bar.elapsed
    return writer.finish(out_dir, summaries, crop_rows, {
        "kind": "synth",
        "command": f"rummi dataset synth --n {n} --seed {seed}"
                   + ("" if pressman_share == PRESSMAN_SHARE else f" --pressman-share {pressman_share:g}"),
        "pressman_share": pressman_share,
        "fonts_missing": list(missing_fonts()),
        "seed": seed,
        "scenes": n,
        "seconds": round(seconds, 1),
        "workers": workers,
        "real_tiles": {"source": str(real_source) if real_source else None, "count": len(_bank),
                       "note": "cut only from the real set's train sessions; never from its val block"},
        "crops_per_scene": CROPS_PER_SCENE,
        "crop_size_wh": list(CROP_SIZE),
        "val_policy": f"scene index interleave, {val_fraction:.0%} val (scenes are independent)",
    })
