"""The shipped finder's ONNX turned back into an ultralytics checkpoint finds the same tiles
(vision/training/finder_weights.py): the start of a fine-tune is what is shipped. Needs the
training extra (torch, ultralytics, onnx); skipped without it.

Runs in a child process: importing ultralytics patches ``PIL.Image.open`` for the whole
process (HEIF support), which would change how other tests' bad images fail.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

if any(importlib.util.find_spec(p) is None for p in ("torch", "ultralytics", "onnx")):
    pytest.skip("needs the training extra (torch, ultralytics, onnx)", allow_module_level=True)

SAMPLE = Path(__file__).resolve().parents[1] / "vision" / "samples" / "images" / "scatter-rummy-42.jpg"
CHILD = """
import json, sys
from pathlib import Path
from rummi.vision.finder import TileFinder
from rummi.vision.image_io import load_image
from rummi.vision.onnx_model import default_models_dir, load_onnx_model
from rummi.vision.training import finder_weights

folder, out, sample = default_models_dir() / "tile-finder", Path(sys.argv[1]), Path(sys.argv[2])
yolo = finder_weights.rebuilt_model(folder)
difference = finder_weights.check(yolo, folder / "model.onnx", 320)
finder_weights.save_checkpoint(yolo, out)
from ultralytics import YOLO
boxes = YOLO(str(out)).predict(str(sample), imgsz=320, conf=0.35, iou=0.5, verbose=False, device="cpu")[0].obb
shipped = TileFinder(load_onnx_model(folder, 1)).find(load_image(sample))
print(json.dumps({"difference": difference, "rebuilt": None if boxes is None else len(boxes),
                  "shipped": len(shipped)}))
"""


@pytest.mark.slow
def test_the_rebuilt_finder_gives_the_shipped_finder_s_outputs_and_boxes(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "finder.pt"), str(SAMPLE)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["difference"] < 1e-3
    assert figures["rebuilt"] == figures["shipped"] == 27
