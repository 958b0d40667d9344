"""The training record a model card cites holds no path of the machine that trained."""

from __future__ import annotations

import json
from pathlib import Path

from rummi.vision.training.record import TrainingRecord, project_relative

ROOT = Path(__file__).resolve().parents[1]


def test_paths_inside_the_checkout_are_written_relative(tmp_path: Path) -> None:
    record = TrainingRecord(
        model="tile-reader", command=f"rummi train reader --data {ROOT}/data/real/crops --out {ROOT}/runs/x",
        data=f"{ROOT}/data/real/crops; jittered boxes in the photos of /elsewhere/data", seed=0, epochs=1,
        imgsz=[48, 64], architecture="small CNN", train_seconds=1, machine="test",
    )
    record.save(tmp_path)
    saved = json.loads((tmp_path / "training.json").read_text())
    assert saved["command"] == "rummi train reader --data data/real/crops --out runs/x"
    assert saved["data"] == "data/real/crops; jittered boxes in the photos of /elsewhere/data"


def test_a_path_that_only_starts_like_the_checkout_is_left_alone() -> None:
    assert project_relative(f"{ROOT}-other/data", ROOT) == f"{ROOT}-other/data"


def test_the_shipped_records_and_cards_name_no_absolute_path() -> None:
    for folder in ("tile-finder", "tile-reader"):
        for name in ("training.json", "MODEL_CARD.md"):
            text = (ROOT / "models" / folder / name).read_text(encoding="utf-8")
            assert "/work/" not in text and "/home/" not in text, f"{folder}/{name}"


def test_a_card_says_from_scratch_only_for_weights_that_started_from_scratch(tmp_path: Path) -> None:
    from rummi.vision.training.model_card import render

    (tmp_path / "model.onnx").write_bytes(b"")
    (tmp_path / "model.json").write_text("{}")
    for data, words in (("data/real/crops", "from scratch"),
                        ("data/real/crops; started from models/tile-reader/model.onnx", "fine-tuned")):
        TrainingRecord(model="tile-reader", command="rummi train reader", data=data, seed=0, epochs=1,
                       imgsz=[48, 64], architecture="small CNN", train_seconds=60, machine="test").save(tmp_path)
        architecture = next(line for line in render(tmp_path, None, "").splitlines() if "Architecture" in line)
        assert words in architecture
