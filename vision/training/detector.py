"""Train the tile finder (one class, "tile") with ultralytics and export it to ONNX.

From scratch: no pretrained weights exist on these machines, and a tile is a simple shape
that a nano model learns in a few dozen epochs. Oriented boxes (``task="obb"``) give each
tile's four corners at any angle; tiles are turned freely in training (``degrees=180``,
flips) because players lay them any way round.
"""

from __future__ import annotations

import json
import random
import re
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


#: Share of each real training session (its last photos) kept apart to pick the checkpoint.
MODEL_CHOICE_FRACTION = 0.15
_VIEW_SUFFIX = re.compile(r"-v\d+$")


def source_session(image: str | Path) -> tuple[str, int] | None:
    """The shooting session and number of a real photo, or of a view derived from one
    (``rummy4-12-v3.jpg`` -> ('rummy4', 12)); None for a name that tells none (a generated scene)."""
    from rummi.datasets.errors import DatasetError
    from rummi.datasets.sessions import session_of

    try:
        return session_of(_VIEW_SUFFIX.sub("", Path(image).stem))
    except DatasetError:
        return None


def carve_model_choice(images: Sequence[str], fraction: float = MODEL_CHOICE_FRACTION) -> tuple[list[str], list[str]]:
    """(train, choice): the last photos of each training session go to ``choice``, the split
    ultralytics validates on to keep ``best.pt`` and to stop early.

    Why: the held-out photos must not pick the checkpoint (the shipped finder's were its val
    split, so its held-out figures are biased upward); they are scored once, at the end. By
    session, as the held-out split is, so no near-copy of a choice photo stays in training.
    Photos whose name tells no session stay in training."""
    from rummi.datasets.sessions import split_by_session

    sessions = {image: source_session(image) for image in images}
    split = split_by_session([s for s in sessions.values() if s is not None], fraction)
    choice = [i for i in images if sessions[i] is not None and split[sessions[i]] == "val"]
    chosen = set(choice)
    return [i for i in images if i not in chosen], choice


def combine_datasets(data_yamls: Sequence[Path], extra_images: int, folder: Path, seed: int) -> tuple[Path, Path]:
    """Two data.yaml files in ``folder``: ``data.yaml`` trains on the first dataset's train
    images (less the model-choice photos carved from them, which it validates on) plus up to
    ``extra_images`` images (drawn with ``seed``) from each further dataset; ``heldout.yaml``
    validates on the first dataset's val split, scored once when training is done.

    The first dataset is the real photos: model choice and the final score measure real photos.
    A further dataset's image derived from a model-choice photo (a real view of it) is left out,
    so the choice split's near-copies are not trained on.
    """
    import yaml

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    first = yaml.safe_load(Path(data_yamls[0]).read_text())
    root = Path(first["path"])
    names = first["names"]
    train_lists: list[str] = []
    choice: list[str] = []
    for number, data_yaml in enumerate(data_yamls):
        spec = yaml.safe_load(Path(data_yaml).read_text())
        if spec["names"] != names:
            raise ValueError(f"{data_yaml}: class names differ from {data_yamls[0]}")
        images = sorted(str(p) for p in (Path(spec["path"]) / spec["train"]).glob("*.jpg"))
        if number == 0:
            images, choice = carve_model_choice(images)
            if not choice:
                raise ValueError(f"{data_yaml}: no training session has photos to spare for model choice")
            held_sessions = {source_session(c) for c in choice}
        else:
            images = [i for i in images if source_session(i) not in held_sessions]
            if len(images) > extra_images:
                images = sorted(rng.sample(images, extra_images))
        train_lists += images
    (folder / "train.txt").write_text("\n".join(train_lists) + "\n")
    (folder / "choice.txt").write_text("\n".join(choice) + "\n")
    combined = {"path": str(root), "train": str(folder / "train.txt"), "val": str(folder / "choice.txt"),
                "names": names}
    (folder / "data.yaml").write_text(yaml.safe_dump(combined, sort_keys=False))
    heldout = {"path": str(root), "train": str(folder / "train.txt"), "val": first["val"], "names": names}
    (folder / "heldout.yaml").write_text(yaml.safe_dump(heldout, sort_keys=False))
    return folder / "data.yaml", folder / "heldout.yaml"


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
    """Train, choosing the checkpoint on photos carved from the training sessions
    (:func:`carve_model_choice`), score it once on the first dataset's held-out ``val`` split,
    export ONNX into ``out_dir``.

    ``hours``: a wall-clock budget instead of ``epochs`` (ultralytics' ``time``: it counts the
    epochs that fit after the first and schedules the learning rate for them), because on a
    shared 2-core machine an epoch's time varies threefold with the other jobs.
    """
    prepare_ultralytics(threads)
    from ultralytics import YOLO

    runs = runs_dir()
    yamls = [Path(p).resolve() for p in ([data_yaml] if isinstance(data_yaml, (str, Path)) else data_yaml)]
    data_yaml, heldout_yaml = combine_datasets(yamls, extra_images, runs / f"{run_name}-data", seed)
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
    # The held-out photos are scored here, once, after the checkpoint was chosen without them.
    metrics = trained.val(data=str(heldout_yaml), imgsz=imgsz, batch=batch, device="cpu", plots=False,
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
    data_text += ("; checkpoint chosen on the last photos of each training session, "
                  "metrics on the held-out val split scored once")
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
