"""`rummi train blend`: a fine-tuned reader averaged with the one it started from (WiSE-FT),
over the ONNX files themselves (vision/training/blend.py). Checked on the shipped reader and a
copy of it with every weight moved, through onnxruntime as the scanner loads them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402
from rummi.api.cli import main  # noqa: E402
from rummi.vision.onnx_model import default_models_dir, load_onnx_model  # noqa: E402

SHIPPED = default_models_dir() / "tile-reader"


def moved_copy(folder: Path, shift: float) -> Path:
    """The shipped reader with ``shift`` added to every float weight (a stand-in fine-tuning)."""
    folder.mkdir(parents=True)
    model = onnx.load(str(SHIPPED / "model.onnx"))
    for init in model.graph.initializer:
        weights = numpy_helper.to_array(init)
        if weights.dtype.kind == "f":
            init.CopyFrom(numpy_helper.from_array((weights + shift).astype(weights.dtype), init.name))
    onnx.save(model, str(folder / "model.onnx"))
    shutil.copyfile(SHIPPED / "model.json", folder / "model.json")
    shutil.copyfile(SHIPPED / "training.json", folder / "training.json")
    return folder


def weights_of(path: Path) -> dict[str, np.ndarray]:
    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}


def test_blend_is_the_weighted_mean_of_every_weight_and_loads_as_a_reader(tmp_path):
    tuned = moved_copy(tmp_path / "tuned", 0.01)
    out = tmp_path / "blend"
    assert main(["train", "blend", str(tuned), str(SHIPPED), "--weight", "0.25", "--out", str(out)]) == 0
    start, moved, blended = weights_of(SHIPPED / "model.onnx"), weights_of(tuned / "model.onnx"), weights_of(out / "model.onnx")
    floats = [name for name, w in start.items() if w.dtype.kind == "f"]
    assert floats
    for name in floats:
        assert np.allclose(blended[name], 0.25 * moved[name] + 0.75 * start[name], atol=1e-6)
    record = json.loads((out / "training.json").read_text())
    assert record["metrics"]["blend_weight"] == 0.25 and "rummi train blend" in record["data"]
    assert json.loads((out / "model.json").read_text()) == json.loads((SHIPPED / "model.json").read_text())
    session = load_onnx_model(out).session
    crops = np.random.default_rng(0).random((2, 3, 64, 48), dtype=np.float32)
    assert session.run(None, {session.get_inputs()[0].name: crops})[0].shape == (2, 114)


def test_blend_refuses_two_different_models_and_a_weight_outside_0_to_1(tmp_path, capsys):
    tuned = moved_copy(tmp_path / "tuned", 0.01)
    finder = default_models_dir() / "tile-finder"
    assert main(["train", "blend", str(tuned), str(finder), "--out", str(tmp_path / "x")]) != 0
    assert "not the same graph" in capsys.readouterr().err
    assert main(["train", "blend", str(tuned), str(SHIPPED), "--weight", "1.5", "--out", str(tmp_path / "y")]) != 0
    assert "[0, 1]" in capsys.readouterr().err
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_blend_never_writes_over_one_of_its_inputs_and_names_a_file_that_is_no_model(tmp_path, capsys):
    tuned = moved_copy(tmp_path / "tuned", 0.01)
    before = (tuned / "model.onnx").read_bytes()
    assert main(["train", "blend", str(tuned), str(SHIPPED), "--out", str(tuned)]) != 0
    assert "one of the two models blended" in capsys.readouterr().err
    assert (tuned / "model.onnx").read_bytes() == before
    (tuned / "model.onnx").write_bytes(b"not an onnx file at all")
    assert main(["train", "blend", str(tuned), str(SHIPPED), "--out", str(tmp_path / "z")]) != 0
    err = capsys.readouterr().err
    assert "not a readable ONNX model" in err and "internal error" not in err
