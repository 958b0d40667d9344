"""The shipped finder's ONNX turned back into an ultralytics checkpoint finds the same tiles
(vision/training/finder_weights.py): the start of a fine-tune is what is shipped. Needs the
training extra (torch, ultralytics, onnx); skipped without it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("ultralytics")
pytest.importorskip("onnx")

from rummi.vision.finder import TileFinder  # noqa: E402
from rummi.vision.image_io import load_image  # noqa: E402
from rummi.vision.onnx_model import default_models_dir, load_onnx_model  # noqa: E402
from rummi.vision.training import finder_weights  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "vision" / "samples" / "images" / "scatter-rummy-42.jpg"


@pytest.mark.slow
def test_the_rebuilt_finder_gives_the_shipped_finder_s_outputs_and_boxes(tmp_path: Path) -> None:
    folder = default_models_dir() / "tile-finder"
    yolo = finder_weights.rebuilt_model(folder)
    assert finder_weights.check(yolo, folder / "model.onnx", 320) < 1e-3
    finder_weights.save_checkpoint(yolo, tmp_path / "finder.pt")
    from ultralytics import YOLO

    boxes = YOLO(str(tmp_path / "finder.pt")).predict(str(SAMPLE), imgsz=320, conf=0.35, iou=0.5,
                                                     verbose=False, device="cpu")[0].obb
    shipped = TileFinder(load_onnx_model(folder, 1)).find(load_image(SAMPLE))
    assert boxes is not None and len(boxes) == len(shipped) == 27
