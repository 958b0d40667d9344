"""The shipped finder's weights back as an ultralytics checkpoint, to go on training from them.

    python -m rummi.vision.training.finder_weights --out runs/finder-shipped.pt
    rummi train detector --init runs/finder-shipped.pt --lr0 0.002 ...

Why: only ``models/tile-finder/model.onnx`` is committed (the ``best.pt`` of its training run
was never kept), and a fine-tune must start from what is shipped, not from scratch (the two
stages took 68 minutes here). The ONNX export keeps every weight under its module's name
(``model.2.m.0.cv1.conv.weight``), with each batch norm folded into the convolution before it.
So the network is built again from its yaml (``model.json: architecture``) and each
convolution takes the folded weight and bias, its batch norm set to pass them through
(scale 1, shift = the bias, mean 0, variance 1 - eps). :func:`check` runs both on the same
input and reports the largest difference of their outputs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from rummi.vision.onnx_model import default_models_dir
from rummi.vision.training.yolo_env import prepare_ultralytics


def onnx_weights(onnx_path: Path) -> dict[str, np.ndarray]:
    """Every named initializer of the export (``model.N...``), as arrays."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(onnx_path)).graph
    return {i.name: numpy_helper.to_array(i) for i in graph.initializer if i.name.startswith("model.")}


def rebuilt_model(folder: Path) -> Any:
    """An ultralytics model of the shipped architecture holding the shipped weights."""
    import torch

    prepare_ultralytics(1)
    from ultralytics import YOLO
    from ultralytics.nn.tasks import DetectionModel, OBBModel

    meta = json.loads((folder / "model.json").read_text())
    task = meta.get("task", "obb")
    architecture = meta.get("architecture", "yolov8n-obb.yaml" if task == "obb" else "yolov8n.yaml")
    yolo = YOLO(architecture, task=task)
    net = (OBBModel if task == "obb" else DetectionModel)(architecture, nc=len(meta["names"]), verbose=False)
    yolo.model = net
    weights = onnx_weights(folder / "model.onnx")
    modules = dict(net.named_modules())
    used: set[str] = set()
    with torch.no_grad():
        for name, module in modules.items():
            if not isinstance(module, torch.nn.Conv2d) or f"{name}.weight" not in weights:
                continue
            weight = torch.from_numpy(weights[f"{name}.weight"].copy())
            if tuple(weight.shape) != tuple(module.weight.shape):
                raise ValueError(f"{name}: shape {tuple(weight.shape)} in the export, {tuple(module.weight.shape)} here")
            module.weight.copy_(weight)
            used.add(f"{name}.weight")
            bias = weights.get(f"{name}.bias")
            if bias is None:
                continue
            used.add(f"{name}.bias")
            if module.bias is not None:
                module.bias.copy_(torch.from_numpy(bias.copy()))
                continue
            norm = modules.get(name.rsplit(".", 1)[0] + ".bn")
            if not isinstance(norm, torch.nn.BatchNorm2d):
                raise ValueError(f"{name}: a folded bias but no batch norm to carry it")
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(bias.copy()))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
    left = sorted(set(weights) - used)
    if left:
        raise ValueError(f"weights of the export not placed: {', '.join(left[:5])}")
    net.names = dict(enumerate(meta["names"]))
    return yolo


def check(yolo: Any, onnx_path: Path, size: int) -> float:
    """Largest absolute difference between the rebuilt network and the ONNX on one input."""
    import onnxruntime as ort
    import torch

    sample = np.random.default_rng(0).random((1, 3, size, size), dtype=np.float32)
    session = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    expected = session.run(None, {session.get_inputs()[0].name: sample})[0]
    net = yolo.model.eval()
    with torch.no_grad():
        got = net(torch.from_numpy(sample))
    got = (got[0] if isinstance(got, (list, tuple)) else got).numpy()
    return float(np.abs(got - expected).max())


def save_checkpoint(yolo: Any, out: Path) -> None:
    """A ``.pt`` that ``YOLO(path)`` and ``rummi train detector --init`` load."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    net = yolo.model.float()
    net.args = {"task": yolo.task, "imgsz": getattr(yolo, "imgsz", 320)}
    torch.save({"model": net, "train_args": dict(net.args), "epoch": -1, "date": None,
                "version": "rebuilt from models/tile-finder/model.onnx"}, out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=default_models_dir() / "tile-finder")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    yolo = rebuilt_model(args.models)
    size = int(json.loads((args.models / "model.json").read_text())["imgsz"])
    difference = check(yolo, args.models / "model.onnx", size)
    print(f"rebuilt from {args.models / 'model.onnx'}: largest output difference {difference:.2e}")
    if difference > 1e-2:
        print("the rebuilt network does not match the export: not saved", file=sys.stderr)
        return 1
    save_checkpoint(yolo, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
