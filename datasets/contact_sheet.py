"""A contact sheet: generated scenes beside real photos, to judge at a glance how close they are.

Rows alternate: real photos, then generated scenes, each captioned; tiles are not outlined, so
the sheet shows what a model sees.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
from rummi.datasets.errors import DatasetError

THUMB = (280, 210)  # w, h cell; portrait photos are letterboxed into it
COLUMNS = 4
ROWS_EACH = 2


def _scene_images(root: Path) -> list[Path]:
    manifest = root / "manifest.json"
    if not manifest.is_file():
        raise DatasetError(f"{root}: no manifest.json (make it with `rummi dataset real|synth`)")
    scenes = json.loads(manifest.read_text())["scenes"]
    paths = [root / "detect" / "images" / s["split"] / f"{s['name']}.jpg" for s in scenes if s["tiles"] > 0]
    if not paths:
        raise DatasetError(f"{root}: no scene with tiles")
    return paths


def _cell(path: Path) -> np.ndarray:
    image = cv2.imread(str(path))
    if image is None:
        raise DatasetError(f"{path}: unreadable")
    w, h = THUMB
    scale = min(w / image.shape[1], h / image.shape[0])
    small = cv2.resize(image, (int(image.shape[1] * scale), int(image.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    cell = np.full((h, w, 3), 24, np.uint8)
    y, x = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
    cell[y:y + small.shape[0], x:x + small.shape[1]] = small
    return cell


def _caption(text: str, width: int) -> np.ndarray:
    bar = np.full((26, width, 3), 245, np.uint8)
    cv2.putText(bar, text, (8, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
    return bar


def make_contact_sheet(real_root: Path, synth_root: Path, out: Path, seed: int = 0) -> Path:
    """Write the sheet (PNG) to ``out``; ``seed`` picks which scenes are shown."""
    rng = np.random.default_rng(seed)
    real = _scene_images(Path(real_root))
    synth = _scene_images(Path(synth_root))
    count = COLUMNS * ROWS_EACH
    real_pick = [real[i] for i in rng.choice(len(real), size=min(count, len(real)), replace=False)]
    synth_pick = [synth[i] for i in rng.choice(len(synth), size=min(count, len(synth)), replace=False)]
    width = THUMB[0] * COLUMNS
    blocks = []
    for row in range(ROWS_EACH):
        for title, picks in (("real photos (shared set)", real_pick), ("generated (rummi dataset synth)", synth_pick)):
            cells = [_cell(p) for p in picks[row * COLUMNS:(row + 1) * COLUMNS]]
            cells += [np.full((THUMB[1], THUMB[0], 3), 24, np.uint8)] * (COLUMNS - len(cells))
            blocks.append(_caption(title, width))
            blocks.append(np.hstack(cells))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), np.vstack(blocks), [cv2.IMWRITE_PNG_COMPRESSION, 9]):
        raise DatasetError(f"could not write {out}")
    return out
