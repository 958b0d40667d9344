"""`rummi dataset real` and `rummi dataset check`, on a few of the shared real photos."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from rummi.api.cli import main
from rummi.datasets.check import check_dataset
from rummi.datasets.errors import DatasetError
from rummi.datasets.real import DEFAULT_SOURCE, convert
from rummi.datasets.sessions import session_of, split_by_session

SOURCE = Path(os.environ.get("RUMMI_REAL_PHOTOS", DEFAULT_SOURCE))
needs_photos = pytest.mark.skipif(not (SOURCE / "data.yaml").is_file(), reason=f"real photos not at {SOURCE}")
PICK = ("rummy2-1_", "rummy2-3_", "rummy2-5_", "rummy2-6_", "rummy2-7_", "rummyBackground-4_", "rummyBackground-5_")


def _small_export(target: Path, reorder: bool = False) -> Path:
    """A copy of a few shared photos; ``reorder`` reverses the class list and relabels to match."""
    names = yaml.safe_load((SOURCE / "data.yaml").read_text())["names"]
    new_names = list(reversed(names)) if reorder else list(names)
    for split in ("train", "valid"):
        (target / split / "images").mkdir(parents=True)
        (target / split / "labels").mkdir(parents=True)
        for image in sorted((SOURCE / split / "images").glob("*.jpg")):
            if not image.name.startswith(PICK):
                continue
            shutil.copy(image, target / split / "images" / image.name)
            label = SOURCE / split / "labels" / f"{image.stem}.txt"
            lines = []
            for line in label.read_text().splitlines():
                parts = line.split()
                parts[0] = str(new_names.index(names[int(parts[0])]))
                lines.append(" ".join(parts))
            (target / split / "labels" / label.name).write_text("\n".join(lines))
    (target / "data.yaml").write_text(yaml.safe_dump({"names": new_names, "nc": len(new_names)}))
    return target


def test_session_of_reads_prefix_and_number():
    assert session_of("rummy2-11_jpeg.rf.f40b.jpg") == ("rummy2", 11)
    assert session_of("rummyBackground-4_jpeg.rf.x.jpg") == ("rummyBackground", 4)
    with pytest.raises(DatasetError):
        session_of("IMG_0042.jpg")


@settings(max_examples=80, deadline=None)
@given(sessions=st.dictionaries(st.sampled_from(["rummy", "rummy2", "x"]),
                                st.sets(st.integers(1, 200), min_size=1, max_size=40), min_size=1),
       fraction=st.floats(0.05, 0.5))
def test_val_is_one_tail_block_per_session(sessions, fraction):
    photos = [(prefix, n) for prefix, numbers in sessions.items() for n in numbers]
    split = split_by_session(photos, fraction)
    for prefix, numbers in sessions.items():
        train = [n for n in numbers if split[(prefix, n)] == "train"]
        val = [n for n in numbers if split[(prefix, n)] == "val"]
        if len(numbers) > 1:
            assert len(val) >= fraction * len(numbers) and train
            assert max(train) < min(val)


@needs_photos
def test_convert_writes_every_variant_with_session_split(tmp_path):
    manifest = convert(_small_export(tmp_path / "src"), tmp_path / "out", show_progress=False)
    out = tmp_path / "out"
    # rummy2: 1 3 5 6 train, 7 val (the highest 20%); backgrounds 4 train, 5 val
    assert sorted(p.name for p in (out / "detect/images/val").iterdir()) == ["rummy2-7.jpg", "rummyBackground-5.jpg"]
    for variant in ("detect", "detect53", "obb", "obb53"):
        data = yaml.safe_load((out / variant / "data.yaml").read_text())
        assert Path(data["path"]).is_absolute()
        assert (out / variant / "images/train/rummy2-1.jpg").is_file()
    assert manifest["val_ranges"] == {"rummy2": [7, 7], "rummyBackground": [5, 5]}
    assert manifest["crops"]["orientation"] == "upright"
    assert (out / "detect/labels/train/rummyBackground-4.txt").read_text() == ""  # a negative
    report = check_dataset(out)
    assert report.problems == []
    assert report.images["obb"] == {"train": 5, "val": 2}


@needs_photos
def test_the_val_fraction_decides_the_val_block(tmp_path):
    # rummi dataset real --val-fraction used to be accepted and ignored (always 20%).
    src = _small_export(tmp_path / "src")
    manifest = convert(src, tmp_path / "out", val_fraction=0.5, show_progress=False)
    assert manifest["val_ranges"] == {"rummy2": [5, 7], "rummyBackground": [5, 5]}  # ceil(5 / 2) of rummy2
    assert "50%" in manifest["val_policy"]


@needs_photos
def test_upside_down_tiles_get_their_corners_turned(tmp_path):
    convert(_small_export(tmp_path / "src"), tmp_path / "out", show_progress=False)
    # rummy2-5 photographs eight tiles all upside down, rummy2-1 eight all upright
    flipped = json.loads((tmp_path / "out/truth/train/rummy2-5.json").read_text())["tiles"]
    upright = json.loads((tmp_path / "out/truth/train/rummy2-1.json").read_text())["tiles"]
    assert len(flipped) == 8 and all(abs(t["angle_deg"]) > 150 for t in flipped)
    assert len(upright) == 8 and all(abs(t["angle_deg"]) < 30 for t in upright)
    assert all(t["orientation_confidence"] > 0.2 for t in flipped + upright)
    crops = list((tmp_path / "out/crops/train").rglob("rummy2-5_*.jpg"))
    assert len(crops) == len(flipped)


@needs_photos
def test_classes_are_mapped_by_name_not_index(tmp_path):
    convert(_small_export(tmp_path / "a"), tmp_path / "plain", show_progress=False)
    convert(_small_export(tmp_path / "b", reorder=True), tmp_path / "reordered", show_progress=False)
    for label in (tmp_path / "plain/obb53/labels/train").glob("*.txt"):
        assert label.read_text() == (tmp_path / "reordered/obb53/labels/train" / label.name).read_text()


@needs_photos
def test_cli_real_then_check_and_a_broken_label_fails_loudly(tmp_path, capsys):
    src = _small_export(tmp_path / "src")
    assert main(["dataset", "real", "--source", str(src), "--out", str(tmp_path / "out")]) == 0
    assert main(["dataset", "check", str(tmp_path / "out")]) == 0
    label = tmp_path / "out/obb/labels/train/rummy2-1.txt"
    label.write_text(label.read_text() + "0 0.5 0.5 0.6\n")
    capsys.readouterr()
    assert main(["dataset", "check", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "obb/labels/train/rummy2-1.txt line" in err and "expected 9" in err


@needs_photos
def test_check_finds_boxes_outside_and_images_in_both_splits(tmp_path):
    out = tmp_path / "out"
    convert(_small_export(tmp_path / "src"), out, show_progress=False)
    (out / "detect/labels/train/rummy2-3.txt").write_text("0 0.95 0.5 0.2 0.1\n")
    shutil.copy(out / "detect/images/train/rummy2-1.jpg", out / "detect/images/val/copy.jpg")
    (out / "detect/labels/val/copy.txt").write_text("")
    problems = check_dataset(out).problems
    assert any("rummy2-3.txt line 1: box outside the image" in p for p in problems)
    assert any("same image in train and val" in p for p in problems)


@needs_photos
def test_a_broken_source_polygon_is_a_clear_error(tmp_path, capsys):
    src = _small_export(tmp_path / "src")
    label = next((src / "train/labels").glob("rummy2-1_*.txt"))
    label.write_text("3 0.1 0.2 0.3\n")
    assert main(["dataset", "real", "--source", str(src), "--out", str(tmp_path / "out")]) == 2
    assert "line 1: a polygon needs at least 3 (x, y) pairs" in capsys.readouterr().err


def test_check_refuses_a_folder_that_is_no_dataset(tmp_path):
    with pytest.raises(DatasetError, match="not a dataset folder"):
        check_dataset(tmp_path)


@needs_photos
def test_real_tiles_for_pasting_come_only_from_train_sessions(tmp_path):
    from rummi.datasets.synth.real_tiles import cut_real_tiles

    bank = cut_real_tiles(_small_export(tmp_path / "src"))
    assert len(bank) >= 20
    assert {t.source for t in bank} <= {"rummy2-1", "rummy2-3", "rummy2-5", "rummy2-6"}  # rummy2-7 is val
    for tile in bank:
        assert tile.sprite.shape == (160, 120, 4)
        assert tile.sprite[..., 3].max() == 255 and tile.sprite[..., 3].min() == 0  # cut along the outline


def test_check_refuses_labels_that_are_not_finite_numbers(tmp_path):
    # float() reads "nan" and "inf", and every comparison with NaN is false: such a box passed.
    for kind in ("images", "labels"):
        (tmp_path / f"detect/{kind}/train").mkdir(parents=True)
    (tmp_path / "detect/images/train/a.jpg").write_bytes(b"not looked at")
    (tmp_path / "detect/labels/train/a.txt").write_text("0 nan 0.5 0.1 0.1\n0 0.5 0.5 inf 0.1\n")
    problems = check_dataset(tmp_path).problems
    assert [p for p in problems if "a.txt" in p] == [
        "detect/labels/train/a.txt line 1: not finite: '0 nan 0.5 0.1 0.1'",
        "detect/labels/train/a.txt line 2: not finite: '0 0.5 0.5 inf 0.1'",
    ]
