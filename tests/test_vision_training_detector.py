"""The finder's recipe picks its checkpoint on photos carved from the training sessions, never
on the held-out photos, which are scored once at the end (vision/training/detector.py)."""

from __future__ import annotations

from pathlib import Path

import yaml
from rummi.vision.training.detector import carve_model_choice, combine_datasets, source_session


def write_dataset(root: Path, train: list[str], val: list[str]) -> Path:
    for split, names in (("train", train), ("val", val)):
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        for name in names:
            (root / "images" / split / name).write_bytes(b"")
    (root / "data.yaml").write_text(f"path: {root}\ntrain: images/train\nval: images/val\nnc: 1\nnames:\n  0: tile\n")
    return root / "data.yaml"


def test_a_view_names_the_photo_it_was_made_from() -> None:
    assert source_session("/x/rummy4-12-v3.jpg") == ("rummy4", 12)
    assert source_session("rummy-7.jpg") == ("rummy", 7)
    assert source_session("000123.jpg") is None


def test_the_last_photos_of_each_session_choose_the_model() -> None:
    images = [f"a-{n}.jpg" for n in range(1, 21)] + [f"b-{n}.jpg" for n in range(1, 7)] + ["000001.jpg"]
    train, choice = carve_model_choice(images, 0.15)
    assert choice == ["a-18.jpg", "a-19.jpg", "a-20.jpg", "b-6.jpg"]
    assert set(train) | set(choice) == set(images) and not set(train) & set(choice)
    assert "000001.jpg" in train  # a name that tells no session is trained on


def test_training_never_validates_on_the_held_out_photos(tmp_path: Path) -> None:
    real = write_dataset(tmp_path / "real", [f"r-{n}.jpg" for n in range(1, 11)], ["r-11.jpg", "r-12.jpg"])
    views = write_dataset(tmp_path / "views", [f"r-{n}-v{k}.jpg" for n in range(1, 11) for k in range(2)], [])
    data, heldout = combine_datasets([real, views], extra_images=100, folder=tmp_path / "run", seed=0)
    spec, final = yaml.safe_load(data.read_text()), yaml.safe_load(heldout.read_text())
    choice = Path(spec["val"]).read_text().split()
    trained = Path(spec["train"]).read_text().split()
    assert sorted(Path(p).name for p in choice) == ["r-10.jpg", "r-9.jpg"]
    assert not {Path(p).name for p in trained} & {"r-9.jpg", "r-10.jpg", "r-11.jpg", "r-12.jpg"}
    # no view of a model-choice photo is trained on; the other photos' views are
    names = {Path(p).name for p in trained}
    assert not names & {"r-9-v0.jpg", "r-9-v1.jpg", "r-10-v0.jpg", "r-10-v1.jpg"} and "r-8-v1.jpg" in names
    assert final["val"] == "images/val" and final["path"] == str(tmp_path / "real")
