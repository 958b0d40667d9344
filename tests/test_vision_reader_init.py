"""Fine-tuning starts from the shipped reader: its ``model.onnx`` loaded into the training code's
torch network gives the same logits as onnxruntime, and the folded BatchNorms stay frozen while
training (vision/training/reader.py ``load_onnx_weights``, ``train_mode``). Needs the training
extra (torch, onnx); skipped without it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

if any(importlib.util.find_spec(p) is None for p in ("torch", "onnx")):
    pytest.skip("needs the training extra (torch, onnx)", allow_module_level=True)

import cv2  # noqa: E402
import torch  # noqa: E402
from rummi.vision.evaluation import labelled_photos  # noqa: E402
from rummi.vision.geometry import portrait_order, warp_crop  # noqa: E402
from rummi.vision.image_io import load_image  # noqa: E402
from rummi.vision.onnx_model import default_models_dir, load_onnx_model  # noqa: E402
from rummi.vision.training import reader as training  # noqa: E402

SAMPLES = Path(__file__).resolve().parents[1] / "vision" / "samples"
SHIPPED = default_models_dir() / "tile-reader"


def sample_inputs(count: int = 12) -> np.ndarray:
    """Crops of labelled tiles on the bundled photos and a few of random noise, as fed to the reader."""
    photo = labelled_photos(SAMPLES)[0]
    image = load_image(photo.image)
    crops = [warp_crop(image, portrait_order(cv2.boxPoints(cv2.minAreaRect(np.asarray(o, np.float32)))))
             for o in photo.outlines[:count]]
    crops += list(np.random.default_rng(0).integers(0, 256, (3, 96, 72, 3), dtype=np.uint8))
    return training.to_input(np.stack(crops))


def loaded_model() -> torch.nn.Module:
    torch.set_num_threads(1)
    model = training.build_model()
    training.load_onnx_weights(model, torch, SHIPPED / "model.onnx")
    return model


def test_the_shipped_reader_loaded_into_torch_gives_onnxruntimes_logits() -> None:
    model = loaded_model().eval()
    inputs = sample_inputs()
    expected = load_onnx_model(SHIPPED, 1).run(inputs)
    with torch.no_grad():
        got = model(torch.from_numpy(inputs)).numpy()
    assert got.shape == expected.shape == (len(inputs), 2 * len(training.TILE_NAMES))
    assert np.abs(got - expected).max() < 1e-4
    assert (got.argmax(1) == expected.argmax(1)).all()


def test_training_a_loaded_reader_leaves_its_folded_batch_norms_as_they_are() -> None:
    model = loaded_model()
    training.train_mode(model, frozen_norms=True)
    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    before = [m.running_mean.clone() for m in norms]
    model(torch.from_numpy(sample_inputs(4)))
    assert model.training and not any(m.training for m in norms)
    assert all(torch.equal(m.running_mean, b) for m, b in zip(norms, before))
    training.train_mode(model)
    assert all(m.training for m in norms)


def test_a_file_of_another_shape_is_refused(tmp_path: Path) -> None:
    other = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1, bias=False), torch.nn.BatchNorm2d(8),
                                torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8 * 64 * 48, 114))
    torch.onnx.export(other.eval(), torch.zeros(1, 3, 64, 48), str(tmp_path / "other.onnx"), opset_version=17,
                      dynamo=False)
    with pytest.raises(ValueError, match="not this architecture"):
        training.load_onnx_weights(training.build_model(), torch, tmp_path / "other.onnx")
