"""Load a shipped model: its ONNX file and the JSON that says how to feed it.

Every model folder under ``models/`` holds ``model.onnx``, ``model.json`` (input size, class
names, thresholds: what the inference code needs and nothing it could guess wrong) and
``MODEL_CARD.md`` (how it was made). Keeping the facts in JSON next to the weights means a
retrained model with other classes or another input size needs no code change.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import onnxruntime as ort
from rummi.engine.errors import RummiError

#: Environment variable naming another folder of models (tests, experiments).
MODELS_DIR_ENV = "RUMMI_MODELS_DIR"
#: onnxruntime threads per model unless told otherwise. One: on the project's 2 shared cores
#: a single thread per session scanned 1.6-2.8x faster than onnxruntime's default (one per
#: core, spinning while it waits), measured by ``benchmarks/vision.py --threads 1`` against
#: the default under the usual load; the service runs several scans side by side anyway.
DEFAULT_THREADS = 1


class ModelError(RummiError):
    """A model folder is missing or its files do not belong together."""


def default_models_dir() -> Path:
    override = os.environ.get(MODELS_DIR_ENV)
    if override:
        return Path(override)
    from rummi import models

    return Path(models.__file__).resolve().parent


@dataclass(frozen=True)
class OnnxModel:
    """An onnxruntime session and the model's metadata (``model.json``)."""

    session: ort.InferenceSession
    meta: dict[str, Any]
    folder: Path

    @property
    def input_name(self) -> str:
        return self.session.get_inputs()[0].name

    def run(self, batch: Any) -> Any:
        return self.session.run(None, {self.input_name: batch})[0]


def load_onnx_model(folder: Path, threads: int | None = DEFAULT_THREADS) -> OnnxModel:
    """``threads``: intra-op threads (None or 0: onnxruntime's default, one per core)."""
    onnx_path, meta_path = folder / "model.onnx", folder / "model.json"
    for path in (onnx_path, meta_path):
        if not path.is_file():
            raise ModelError(f"model file missing: {path} (train one with `rummi train`, see docs/vision.md)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelError(f"{meta_path} is damaged ({error}); restore it from the repository") from None
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.inter_op_num_threads = 1
    # No CPU arena: it keeps the largest buffers any run needed (about 100 MB after a few big
    # photos scanned at once) for the life of the process; without it a long-running service
    # shrinks back after a scan, and scans measured no slower (benchmarks/decode_memory.py).
    options.enable_cpu_mem_arena = False
    if threads:
        options.intra_op_num_threads = threads
    if threads != 1:
        # Threads that spin while waiting steal the other jobs' cores on a shared machine.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime's own exception types (InvalidProtobuf, Fail...)
        # A git-lfs pointer or a half-copied file: the usual cause, and one the user can fix.
        raise ModelError(
            f"{onnx_path} is not a model onnxruntime can load (a git-lfs pointer or a damaged copy?): {error}"
        ) from None
    return OnnxModel(session=session, meta=meta, folder=folder)
