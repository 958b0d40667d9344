"""Train the tile finder (one class, "tile") with ultralytics and export it to ONNX.

From scratch: no pretrained weights exist on these machines, and a tile is a simple shape
that a nano model learns in a few dozen epochs. Oriented boxes (``task="obb"``) give each
tile's four corners at any angle; tiles are turned freely in training (``degrees=180``,
flips) because players lay them any way round.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from vision.training.record import TrainingRecord, machine_description
from vision.training.yolo_env import prepare_ultralytics, project_root

ARCHITECTURES = {
    "obb": "yolov8n-obb.yaml",
    "detect": "yolov8n.yaml",
}


def train_detector(
    data_yaml: Path,
    out_dir: Path,
    *,
    task: str = "obb",
    epochs: int = 40,
    imgsz: int = 416,
    batch: int = 16,
    seed: int = 0,
    threads: int = 1,
    architecture: str | None = None,
    run_name: str = "tile-finder",
    command: str = "",
) -> TrainingRecord:
    """Train, validate on the dataset's ``val`` split, export ONNX into ``out_dir``."""
    prepare_ultralytics(threads)
    from ultralytics import YOLO

    data_yaml = Path(data_yaml).resolve()
    runs = project_root() / "runs"
    architecture = architecture or ARCHITECTURES[task]
    model = YOLO(architecture, task=task)
    started = time.time()
    model.train(
        data=str(data_yaml), epochs=epochs, imgsz=imgsz, batch=batch, seed=seed, deterministic=True,
        pretrained=False, amp=False, workers=2, device="cpu", project=str(runs), name=run_name,
        exist_ok=True, plots=False, degrees=180.0, flipud=0.5, fliplr=0.5, patience=max(10, epochs // 3),
        verbose=True,
    )
    train_seconds = time.time() - started
    best = runs / run_name / "weights" / "best.pt"
    trained = YOLO(str(best), task=task)
    metrics = trained.val(data=str(data_yaml), imgsz=imgsz, batch=batch, device="cpu", plots=False,
                          project=str(runs), name=f"{run_name}-val", exist_ok=True)
    box = metrics.box
    exported = Path(trained.export(format="onnx", imgsz=imgsz, opset=17, simplify=True, dynamic=False))
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exported, out_dir / "model.onnx")
    meta: dict[str, Any] = {"task": task, "imgsz": imgsz, "names": ["tile"], "conf": 0.35, "iou": 0.5,
                            "architecture": architecture}
    (out_dir / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    record = TrainingRecord(
        model="tile-finder", command=command, data=str(data_yaml), seed=seed, epochs=epochs, imgsz=imgsz,
        architecture=architecture, train_seconds=round(train_seconds), machine=machine_description(threads),
        metrics={"mAP50": round(float(box.map50), 4), "mAP50-95": round(float(box.map), 4),
                 "precision": round(float(box.mp), 4), "recall": round(float(box.mr), 4)},
    )
    record.save(out_dir)
    return record
