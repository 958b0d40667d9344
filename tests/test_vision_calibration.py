"""The reader's temperature: fitted on crops whose answers are drawn as a known temperature says,
it finds that temperature; the reader applies the one in model.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from rummi.vision.onnx_model import ModelError, default_models_dir
from rummi.vision.scanner import READER_FOLDER, Scanner
from rummi.vision.training.calibration import CalibrationSet, fit_temperature, negative_log_likelihood

ANSWERS = 57


def drawn_at(temperature: float, crops: int = 4000, seed: int = 0) -> CalibrationSet:
    """Logits of an over-confident reader whose true answers follow softmax(logits / temperature)."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 6, (crops, 2 * ANSWERS))
    scaled = np.exp((logits - logits.max(axis=1, keepdims=True)) / temperature)
    per_answer = (scaled / scaled.sum(axis=1, keepdims=True)).reshape(crops, 2, ANSWERS).sum(axis=1)
    truth = [[int(rng.choice(ANSWERS, p=p / p.sum()))] for p in per_answer]
    return CalibrationSet(logits, truth)


@pytest.mark.parametrize("temperature", [1.0, 1.6, 2.5])
def test_the_fitted_temperature_is_the_one_the_answers_were_drawn_at(temperature: float) -> None:
    calibration = drawn_at(temperature)
    fitted = fit_temperature(calibration)
    assert abs(fitted - temperature) <= 0.15 * temperature
    assert negative_log_likelihood(calibration.logits, calibration.truth, fitted) <= \
        negative_log_likelihood(calibration.logits, calibration.truth, 1.0)


def test_a_joker_of_no_known_colour_is_right_in_any_of_its_colours() -> None:
    logits = np.zeros((1, 2 * ANSWERS))
    logits[0, 52] = logits[0, ANSWERS + 53] = 5.0  # two joker colours, two ways up
    one = negative_log_likelihood(logits, [[52]], 1.0)
    both = negative_log_likelihood(logits, [[52, 53, 54, 55]], 1.0)
    assert both < one


def test_an_empty_calibration_set_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="empty"):
        fit_temperature(CalibrationSet(np.zeros((0, 2 * ANSWERS)), []))


def test_the_reader_divides_its_logits_by_the_temperature_of_its_model_json(tmp_path: Path) -> None:
    shutil.copytree(default_models_dir(), tmp_path / "models")
    path = tmp_path / "models" / READER_FOLDER / "model.json"
    meta = json.loads(path.read_text())
    meta["temperature"] = 2.0
    path.write_text(json.dumps(meta))
    hot, plain = Scanner.load(tmp_path / "models").reader, Scanner.load().reader
    assert hot.temperature == 2.0
    crops = np.random.default_rng(1).random((3, 3, plain.input_size[1], plain.input_size[0]), np.float32)
    raw = plain.model.run(crops).astype(np.float64)  # the logits, whatever the shipped temperature
    expected = np.exp(raw / 2.0 - (raw / 2.0).max(axis=1, keepdims=True))
    expected = (expected / expected.sum(axis=1, keepdims=True)).reshape(3, 2, -1)
    assert np.allclose(hot._probabilities(crops), expected)
    for wrong in (0, -1.0, "nan"):  # a damaged model.json is a clear error, not a silent read
        meta["temperature"] = float(wrong)
        path.write_text(json.dumps(meta))
        with pytest.raises(ModelError, match="temperature must be a positive number"):
            Scanner.load(tmp_path / "models")


def test_reliability_counts_sure_wrong_reads_and_flagged_right_ones_at_the_bar() -> None:
    from rummi.vision.training.calibration import reliability

    logits = np.full((3, 2 * ANSWERS), -20.0)
    logits[0, 5] = 10.0  # surely k6, truly k6
    logits[1, 7] = 10.0  # surely k8, truly k9: the defect
    logits[2, 1] = logits[2, 2] = 10.0  # k2 or k3, half each: flagged; truly k2
    r = reliability(CalibrationSet(logits, [[5], [8], [1]]), 1.0, 0.7, [52, 53, 54, 55])
    assert (r.sure, r.sure_wrong, r.right_flagged) == (2, 1, 1)
    assert 0.0 <= r.calibration_error <= 1.0
