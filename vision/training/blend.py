"""Blend a fine-tuned model with the model it started from: one weight between the two.

    rummi train blend trained/tile-reader models/tile-reader --weight 0.5 --out trained/tile-reader-blend

Why: a reader fine-tuned on a new print (``rummi train reader --init``) reads that print better
but moves, by a few tiles and differently with every seed, on what the start already read well
(docs/vision.md, "The reader fine-tuned from the shipped one"). Averaging the fine-tuned weights
with the start's (Wortsman et al. 2022, "Robust fine-tuning of zero-shot models", WiSE-FT)
keeps most of the gain and little of the drift: both lie in one basin of the loss, so the
points between them are good models too, and less tied to the fine-tuning's own data.

The blend is taken over the ONNX files themselves: every float initializer ``w`` becomes
``weight * tuned + (1 - weight) * start``. Both files must be the same graph (the same
operations and initializer names and shapes, as ``export_onnx`` writes for one architecture);
their BatchNorms are folded into the convs, and the reader's fine-tuning kept them frozen, so
a folded weight is the learnt one times a scale close to the start's. The finder's fine-tuning
(ultralytics) trains its BatchNorms, so a blend of two finders is not exactly a network between
the two trained ones; it is measured in the whole pipeline like any model (docs/vision.md,
"Steep views for the finder": blends measured, none shipped).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
from rummi.vision.training.record import TrainingRecord, machine_description

MODEL_FILE = "model.onnx"


class BlendError(ValueError):
    """The two models cannot be blended (not the same graph, or a weight outside 0..1)."""


def blend_models(tuned: Path, start: Path, weight: float, out_dir: Path, command: str = "") -> TrainingRecord:
    """Write ``out_dir/model.onnx`` = ``weight`` x ``tuned`` + (1 - ``weight``) x ``start`` (model
    folders), with the tuned model's ``model.json`` and a ``training.json`` naming both."""
    import onnx
    from onnx import numpy_helper

    if not 0.0 <= weight <= 1.0:
        raise BlendError(f"--weight must be in [0, 1], not {weight}")
    tuned, start, out_dir = Path(tuned), Path(start), Path(out_dir)
    for folder in (tuned, start):
        if not (folder / MODEL_FILE).is_file():
            raise FileNotFoundError(f"{folder}: no {MODEL_FILE}")
        if out_dir.resolve() == folder.resolve():
            # the blend would replace one of its own inputs (run twice, it blends the blend)
            raise BlendError(f"--out {out_dir} is one of the two models blended: write the blend to a folder of its own")
    tuned_model, start_model = _load(tuned), _load(start)
    _same_graph(tuned_model, start_model)
    start_weights = {init.name: numpy_helper.to_array(init) for init in start_model.graph.initializer}
    for init in tuned_model.graph.initializer:
        mine = numpy_helper.to_array(init)
        if mine.dtype.kind == "f":
            mixed = weight * mine.astype(np.float64) + (1.0 - weight) * start_weights[init.name].astype(np.float64)
            init.CopyFrom(numpy_helper.from_array(mixed.astype(mine.dtype), init.name))
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx.save(tuned_model, str(out_dir / MODEL_FILE))
    if (tuned / "model.json").is_file() and tuned.resolve() != out_dir.resolve():
        shutil.copyfile(tuned / "model.json", out_dir / "model.json")
    record = _record(tuned, start, weight, command)
    record.save(out_dir)
    return record


def _load(folder: Path):  # -> onnx.ModelProto, imported lazily
    """The folder's model, or a :class:`BlendError` that says the file is not one."""
    import onnx

    try:
        return onnx.load(str(folder / MODEL_FILE))
    except Exception as error:  # protobuf's DecodeError and kin: the file is not an ONNX model
        raise BlendError(f"{folder / MODEL_FILE} is not a readable ONNX model ({type(error).__name__})") from None


def _same_graph(one, other) -> None:  # onnx.ModelProto, imported lazily
    """Blending is only meaningful between two trainings of one architecture."""
    ops = [node.op_type for node in one.graph.node], [node.op_type for node in other.graph.node]
    shapes = [{init.name: tuple(init.dims) for init in model.graph.initializer} for model in (one, other)]
    if ops[0] != ops[1] or shapes[0] != shapes[1]:
        raise BlendError("the two models are not the same graph (other layers or weight shapes): "
                         "blend only a fine-tuned model with the one it started from")


def _record(tuned: Path, start: Path, weight: float, command: str) -> TrainingRecord:
    """The tuned run's record, its data saying what was blended (its metrics are the tuned
    model's own: a blend is measured in the pipeline, by benchmarks/vision_robustness.py)."""
    path = tuned / "training.json"
    base = json.loads(path.read_text()) if path.is_file() else {}
    blended = f"{weight:g} x {tuned} + {1 - weight:g} x {start} (rummi train blend)"
    return TrainingRecord(
        model=base.get("model") or _model_name(start),
        command=command + (f"; the tuned model: {base['command']}" if base.get("command") else ""),
        data=f"{blended}; the tuned model's data: {base.get('data', 'unknown')}",
        seed=base.get("seed", 0), epochs=base.get("epochs", 0), imgsz=base.get("imgsz", []),
        architecture=base.get("architecture", "unknown"), train_seconds=base.get("train_seconds", 0),
        machine=base.get("machine", machine_description(1)),
        metrics={"blend_weight": weight,
                 **{f"tuned_{k}": v for k, v in base.get("metrics", {}).items() if k != "history"}},
    )


def _model_name(folder: Path) -> str:
    """The model a folder holds by its ``training.json`` (``tile-finder``, ``tile-reader``), or
    ``unknown``: the name of a blend whose tuned model has no record of its own."""
    path = folder / "training.json"
    return str(json.loads(path.read_text()).get("model", "unknown")) if path.is_file() else "unknown"
