"""Fit the reader's temperature: make its confidence mean what it says.

A reader trained to near-perfect accuracy on its own crops is over-confident on crops unlike
them (a steep view, another print): a wrong read at 0.9 is a defect, because a tile read at 0.7
or more is reported sure and reaches a verdict, a score or a hint unflagged. Temperature
scaling (Guo et al., "On calibration of modern neural networks", 2017) divides the logits by
one number fitted on held-apart data: it keeps the order of one softmax's answers and makes
the reader surer or less sure as a whole. It can still change a read here and there, because
the scan adds probabilities after the softmax (the two ways up, a joker's colours): the fit
reports how many calibration reads change their answer at the fitted temperature.

The calibration set is generated scenes of every print the generator draws, rendered with
``CALIBRATION_SEED``: a seed no training set used (the training scenes are seed 7) and not the
robustness benchmark's (``benchmarks/vision_robustness.py``, seed 20261201), so the benchmark
still measures the fitted reader on scenes it never saw; and never the held-out real photos.
Each scene is scanned by the shipped pipeline; every box it kept or refused is read again, in
the corners the pipeline settled on, and its true answer is the tile whose outline holds its
centre (``none`` for a box on no tile; boxes on a hidden tile, and second boxes on a tile, are
left out). The temperature
is the one that makes those answers most likely (the mean negative log-likelihood of the true
answer, the joker's colours and the two ways up added up, as the scan's confidence adds them).

    .venv/bin/python -m rummi.vision.training.calibration --scenes 120            # prints the fit
    .venv/bin/python -m rummi.vision.training.calibration --scenes 120 --write    # into model.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: The calibration scenes' seed: used by no training set and not by the robustness benchmark.
CALIBRATION_SEED = 20261130
#: Temperatures tried (a fine grid: the likelihood is smooth in it, and one number is fitted).
TEMPERATURES = np.round(np.arange(0.5, 4.0001, 0.05), 2)


@dataclass(frozen=True)
class CalibrationSet:
    """The reader's logits for crops of the calibration set, ``(N, 2 * answers)`` (orientation
    major, as the model outputs them), and each crop's true answer columns (one, or the joker's
    colours: a joker whose colour the scene does not give is right in any of them)."""

    logits: np.ndarray
    truth: list[list[int]]


def negative_log_likelihood(logits: np.ndarray, truth: Sequence[Sequence[int]], temperature: float) -> float:
    """Mean ``-log P(true answer)`` with the logits divided by ``temperature``; the two ways up
    of an answer (and a joker's colours) add up, as the scan's confidence adds them."""
    per_answer = _answers(logits, temperature)
    right = np.array([per_answer[i, list(columns)].sum() for i, columns in enumerate(truth)])
    return float(-np.log(np.maximum(right, 1e-12)).mean())


def _answers(logits: np.ndarray, temperature: float) -> np.ndarray:
    """Per crop and answer, the probability under ``temperature`` (the two ways up added)."""
    scaled = logits / temperature
    scaled = scaled - scaled.max(axis=1, keepdims=True)
    probabilities = np.exp(scaled)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    return probabilities.reshape(len(logits), 2, -1).sum(axis=1)


@dataclass(frozen=True)
class Reliability:
    """What a temperature does at the scan's unsure bar: reads at or above it, wrong ones among
    them (the defect), right ones below it (what the flags cost), and the expected calibration
    error (10 bins): how far the confidence is from the share read right."""

    sure: int
    sure_wrong: int
    right_flagged: int
    calibration_error: float


def reliability(calibration: CalibrationSet, temperature: float, unsure_below: float,
                joker_columns: Sequence[int]) -> Reliability:
    """The calibration set's reads under ``temperature``, each crop's answer chosen as the scan
    chooses it (the joker's colours taken together)."""
    best, confidence = chosen_answers(calibration, temperature, joker_columns)
    jokers = list(joker_columns)
    right = np.array([b in t or (b == jokers[0] and jokers[0] in t) for b, t in zip(best, calibration.truth)])
    sure = confidence >= unsure_below
    bins = np.minimum((confidence * 10).astype(int), 9)
    error = sum(abs(right[bins == b].mean() - confidence[bins == b].mean()) * (bins == b).sum()
                for b in range(10) if (bins == b).any()) / max(1, len(confidence))
    return Reliability(int(sure.sum()), int((sure & ~right).sum()), int((~sure & right).sum()), float(error))


def chosen_answers(calibration: CalibrationSet, temperature: float,
                   joker_columns: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Each crop's answer as the scan chooses it under ``temperature`` (the two ways up and the
    joker's colours taken together), and its confidence. Sums after the softmax can change
    their winner with the temperature, so a temperature may change a read, not only its
    confidence: :func:`main` counts them."""
    answers = _answers(calibration.logits, temperature)
    jokers = list(joker_columns)
    if len(jokers) > 1:
        answers[:, jokers[0]] = answers[:, jokers].sum(axis=1)
        answers[:, jokers[1:]] = 0.0
    best = answers.argmax(axis=1)
    return best, answers[np.arange(len(best)), best]


def fit_temperature(calibration: CalibrationSet, temperatures: np.ndarray = TEMPERATURES) -> float:
    """The temperature of ``temperatures`` under which the calibration set's true answers are
    most likely."""
    if not len(calibration.logits):
        raise ValueError("the calibration set is empty: nothing to fit a temperature on")
    losses = [negative_log_likelihood(calibration.logits, calibration.truth, t) for t in temperatures]
    return float(temperatures[int(np.argmin(losses))])


def calibration_scenes(count: int, seed: int = CALIBRATION_SEED) -> Iterator[tuple[np.ndarray, list[str], list[np.ndarray], np.ndarray]]:
    """``count`` generated scenes (every print, in the generator's own mix), each as (photo,
    reader classes, outlines, counted: tiles shown enough to be labelled)."""
    import cv2
    from rummi.datasets.synth.render import render_scene
    from rummi.vision.classes import reader_class

    for index in range(count):
        scene = render_scene(seed, index).scene
        ok, data = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, int(scene.meta["jpeg_quality"])])
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else scene.image
        labels = [reader_class(t.notation) for t in scene.tiles]
        outlines = [np.asarray(t.quad, np.float32) for t in scene.tiles]
        counted = np.array([t.visible_fraction >= 0.5 for t in scene.tiles], bool)
        yield image, labels, outlines, counted


def collect(scanner: object, scenes: Iterator[tuple[np.ndarray, list[str], list[np.ndarray], np.ndarray]]) -> CalibrationSet:
    """Scan every scene with ``scanner`` (a :class:`vision.scanner.Scanner`) and read every box
    it kept or refused once more, as the pipeline left it: the logits and true answers."""
    import cv2
    from rummi.vision.evaluation import match_indices

    reader = scanner.reader  # type: ignore[attr-defined]
    names = reader.tile_names
    none = [reader.none_column] if reader.none_column is not None else []
    jokers = [int(c) for c in reader.joker_columns]
    all_logits, truth = [], []
    for image, labels, outlines, counted in scenes:
        result = scanner.scan(image, kind="table")  # type: ignore[attr-defined]
        corners = np.concatenate([result.found.corners, result.refused.corners])
        if not len(corners):
            continue
        centres = corners.mean(axis=1)
        partner = {f: t for t, f in match_indices(centres, outlines).items()}
        keep, answers = [], []
        for f in range(len(corners)):
            if f not in partner:
                on_a_tile = any(cv2.pointPolygonTest(o.reshape(-1, 1, 2), (float(centres[f][0]), float(centres[f][1])),
                                                     False) >= 0 for o in outlines)
                if none and not on_a_tile:  # a second box on a tile is neither that tile nor none
                    keep.append(f)
                    answers.append(none)
            elif counted[partner[f]]:
                label = labels[partner[f]]
                keep.append(f)
                answers.append(jokers if label == "J" else [names.index(label)])
        if not keep:
            continue
        crops = np.stack([reader._prepare(reader.crop(image, corners[f])) for f in keep])
        all_logits.append(reader.model.run(np.ascontiguousarray(crops)).astype(np.float64))
        truth.extend(answers)
    logits = np.concatenate(all_logits) if all_logits else np.zeros((0, 2 * len(names)))
    return CalibrationSet(logits, truth)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fit the shipped reader's temperature on generated calibration scenes.")
    parser.add_argument("--scenes", type=int, default=120, help="calibration scenes to render and scan")
    parser.add_argument("--seed", type=int, default=CALIBRATION_SEED)
    parser.add_argument("--models", type=Path, default=None, help="models folder (default: the shipped one)")
    parser.add_argument("--write", action="store_true", help="write the temperature into tile-reader/model.json")
    args = parser.parse_args(argv)
    from rummi.vision.onnx_model import default_models_dir
    from rummi.vision.scanner import READER_FOLDER, UNCERTAIN_BELOW, Scanner

    folder = args.models or default_models_dir()
    scanner = Scanner.load(folder, threads=1)
    scanner.reader.temperature = 1.0  # fitted on the raw logits, whatever model.json says now
    calibration = collect(scanner, calibration_scenes(args.scenes, args.seed))
    temperature = fit_temperature(calibration)
    before = negative_log_likelihood(calibration.logits, calibration.truth, 1.0)
    after = negative_log_likelihood(calibration.logits, calibration.truth, temperature)
    print(f"{len(calibration.truth)} crops of {args.scenes} scenes (seed {args.seed}): temperature {temperature} "
          f"(negative log-likelihood {before:.4f} at 1.0 -> {after:.4f})")
    changed = int((chosen_answers(calibration, temperature, scanner.reader.joker_columns)[0]
                   != chosen_answers(calibration, 1.0, scanner.reader.joker_columns)[0]).sum())
    print(f"  {changed} of the {len(calibration.truth)} reads change their answer at {temperature}")
    for t in sorted({1.0, temperature}):
        r = reliability(calibration, t, UNCERTAIN_BELOW, scanner.reader.joker_columns)
        print(f"  at {t}: {r.sure} reads at or above the unsure bar {UNCERTAIN_BELOW}, {r.sure_wrong} of them wrong; "
              f"{r.right_flagged} right reads below it; calibration error {r.calibration_error:.4f}")
    if args.write:
        path = folder / READER_FOLDER / "model.json"
        meta = json.loads(path.read_text())
        meta["temperature"] = temperature
        meta["temperature_fit"] = (f"python -m rummi.vision.training.calibration --scenes {args.scenes} "
                                   f"--seed {args.seed}: {len(calibration.truth)} crops, NLL {before:.4f} -> {after:.4f}")
        path.write_text(json.dumps(meta, indent=1) + "\n")
        print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
