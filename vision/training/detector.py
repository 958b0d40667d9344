"""Train the tile finder (one class, "tile") with ultralytics and export it to ONNX.

From scratch: no pretrained weights exist on these machines, and a tile is a simple shape
that a nano model learns in a few dozen epochs. Oriented boxes (``task="obb"``) give each
tile's four corners at any angle; tiles are turned freely in training (``degrees=180``,
flips) because players lay them any way round.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rummi.vision.training.record import TrainingRecord, machine_description
from rummi.vision.training.yolo_env import prepare_ultralytics, runs_dir

ARCHITECTURES = {
    "obb": "yolov8n-obb.yaml",
    "detect": "yolov8n.yaml",
}


def combine_datasets(data_yamls: Sequence[Path], extra_images: int, folder: Path, seed: int) -> Path:
    """One data.yaml training on the first dataset's train images plus up to ``extra_images``
    images (drawn with ``seed``) from each further dataset, validating on the first's val split.

    The first dataset is the real photos: validation always measures real photos.
    """
    import yaml

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    train_lists: list[str] = []
    first = yaml.safe_load(Path(data_yamls[0]).read_text())
    root = Path(first["path"])
    names = first["names"]
    for number, data_yaml in enumerate(data_yamls):
        spec = yaml.safe_load(Path(data_yaml).read_text())
        if spec["names"] != names:
            raise ValueError(f"{data_yaml}: class names differ from {data_yamls[0]}")
        images = sorted(str(p) for p in (Path(spec["path"]) / spec["train"]).glob("*.jpg"))
        if number > 0 and len(images) > extra_images:
            images = sorted(rng.sample(images, extra_images))
        train_lists += images
    (folder / "train.txt").write_text("\n".join(train_lists) + "\n")
    combined = {"path": str(root), "train": str(folder / "train.txt"), "val": first["val"], "names": names}
    (folder / "data.yaml").write_text(yaml.safe_dump(combined, sort_keys=False))
    return folder / "data.yaml"


def train_detector(
    data_yaml: Path | Sequence[Path],
    out_dir: Path,
    *,
    extra_images: int = 500,
    init: Path | None = None,
    lr0: float = 0.01,
    task: str = "obb",
    epochs: int = 40,
    imgsz: int = 416,
    batch: int = 16,
    seed: int = 0,
    threads: int = 1,
    architecture: str | None = None,
    run_name: str = "tile-finder",
    command: str = "",
    perspective: float = 0.0,
    hours: float | None = None,
) -> TrainingRecord:
    """Train, validate on the dataset's ``val`` split, export ONNX into ``out_dir``.

    ``hours``: a wall-clock budget instead of ``epochs`` (ultralytics' ``time``: it counts the
    epochs that fit after the first and schedules the learning rate for them), because on a
    shared 2-core machine an epoch's time varies threefold with the other jobs.
    """
    prepare_ultralytics(threads)
    from ultralytics import YOLO

    runs = runs_dir()
    yamls = [Path(p).resolve() for p in ([data_yaml] if isinstance(data_yaml, (str, Path)) else data_yaml)]
    data_yaml = yamls[0] if len(yamls) == 1 else combine_datasets(yamls, extra_images, runs / f"{run_name}-data", seed)
    architecture = architecture or ARCHITECTURES[task]
    # ``init``: go on from weights this project trained (never downloaded ones).
    model = YOLO(str(init), task=task) if init else YOLO(architecture, task=task)
    started = time.time()
    model.train(
        data=str(data_yaml), epochs=epochs, imgsz=imgsz, batch=batch, seed=seed, deterministic=True,
        pretrained=bool(init), amp=False, workers=2, device="cpu", project=str(runs), name=run_name,
        exist_ok=True, plots=False, lr0=lr0, warmup_epochs=0 if init else 3, degrees=180.0, flipud=0.5, fliplr=0.5,
        perspective=perspective, patience=max(10, epochs // 3), time=hours,
        verbose=True,
    )
    train_seconds = time.time() - started
    results = runs / run_name / "results.csv"
    if results.exists():  # the epochs run (a time budget decides them itself)
        epochs = max(0, len(results.read_text().strip().splitlines()) - 1)
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
    data_text = ", ".join(str(p) for p in yamls) + (f" (up to {extra_images} images from each after the first)"
                                                     if len(yamls) > 1 else "")
    if init:
        data_text += f"; started from {init}"
    record = TrainingRecord(
        model="tile-finder", command=command, data=data_text, seed=seed, epochs=epochs, imgsz=imgsz,
        architecture=architecture, train_seconds=round(train_seconds), machine=machine_description(threads),
        metrics={"mAP50": round(float(box.map50), 4), "mAP50-95": round(float(box.map), 4),
                 "precision": round(float(box.mp), 4), "recall": round(float(box.mr), 4)},
    )
    record.save(out_dir)
    return record
