"""Derived camera views of the real photos (datasets/real_views.py): labels follow the pixels."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from rummi.datasets.errors import DatasetError
from rummi.datasets.real_views import (
    MIN_SHOWN_FRACTION,
    clip_to_frame,
    closeup_view,
    label_lines,
    main,
    read_obb_labels,
    tilted_view,
    write_views,
)


def _tiles_photo() -> tuple[np.ndarray, np.ndarray]:
    """A dark table with 12 white tiles on a grid: labels are exact by construction."""
    image = np.full((600, 800, 3), 40, np.uint8)
    quads = []
    for row in range(3):
        for col in range(4):
            x, y = 80 + col * 180, 80 + row * 180
            quad = np.array([[x, y], [x + 70, y], [x + 70, y + 95], [x, y + 95]], np.float64)
            cv2.fillConvexPoly(image, quad.astype(np.int32), (235, 235, 235))
            quads.append(quad)
    return image, np.array(quads)


def _write_real(folder: Path) -> None:
    image, quads = _tiles_photo()
    for split in ("train", "val"):
        (folder / "images" / split).mkdir(parents=True)
        (folder / "labels" / split).mkdir(parents=True)
    for name in ("a", "b"):
        cv2.imwrite(str(folder / "images" / "train" / f"{name}.jpg"), image)
        (folder / "labels" / "train" / f"{name}.txt").write_text(label_lines(quads, 800, 600))
    cv2.imwrite(str(folder / "images" / "val" / "held.jpg"), image)


def _labels_on_tiles(image: np.ndarray, quads: np.ndarray, share: float = 0.8) -> None:
    """Every label's centre is on a white tile and most of its area (``share``) is white."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    for quad in quads:
        mask = np.zeros_like(grey)
        cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
        assert mask.sum() > 0
        centre_x, centre_y = np.round(quad.mean(axis=0)).astype(int)
        assert grey[centre_y, centre_x] > 150
        assert (grey[mask > 0] > 150).mean() > share


def test_label_lines_round_trip(tmp_path: Path) -> None:
    _, quads = _tiles_photo()
    (tmp_path / "x.txt").write_text(label_lines(quads, 800, 600))
    assert np.allclose(read_obb_labels(tmp_path / "x.txt", 800, 600), quads, atol=0.01)


@pytest.mark.parametrize("seed", range(6))
def test_tilted_view_moves_labels_with_the_pixels(seed: int) -> None:
    image, quads = _tiles_photo()
    view = tilted_view(np.random.default_rng(seed), image, quads)
    assert view.kind in ("tilt-fitted", "tilt-inside")
    assert 1 <= len(view.quads) <= len(quads)
    _labels_on_tiles(view.image, view.quads)
    if view.kind == "tilt-fitted":  # the whole view is kept: no tile is lost
        assert len(view.quads) == len(quads)


@pytest.mark.parametrize("portrait", [False, True])
@pytest.mark.parametrize("seed", range(8))
def test_a_steep_view_turns_40_to_60_degrees_and_keeps_its_far_edge_off_the_horizon(
    seed: int, portrait: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rummi.datasets.real_views as real_views

    turns: list[tuple[float, str, float]] = []
    original = real_views.tilt_matrix

    def recorded(width: int, height: int, degrees: float, axis: str, fov_degrees: float) -> np.ndarray:
        turns.append((degrees, axis, fov_degrees))
        return original(width, height, degrees, axis, fov_degrees)

    monkeypatch.setattr(real_views, "tilt_matrix", recorded)
    image, quads = _tiles_photo()
    if portrait:  # turned a quarter round: 600 x 800, the labels with it
        image, quads = np.ascontiguousarray(np.rot90(image)), quads[..., ::-1] * [1, -1] + [0, 799]
    h, w = image.shape[:2]
    view = tilted_view(np.random.default_rng(seed), image, quads, steep=True)
    assert view.kind in ("steep-fitted", "steep-inside")
    (degrees, axis, fov), = turns
    assert 40 <= abs(degrees) <= 60 and fov <= 75
    # the lens's half-angle along the turn (the photo's height for a turn about x), from its width
    along = h if axis == "x" else w
    half_along = np.degrees(np.arctan(np.tan(np.radians(fov / 2)) * along / w))
    assert abs(degrees) + half_along <= real_views.MAX_VIEW_ANGLE + 1e-6
    out_h, out_w = view.image.shape[:2]
    assert min(out_h, out_w) >= real_views.MIN_INSIDE_ASPECT * max(out_h, out_w) - 1
    assert 1 <= len(view.quads) <= len(quads)
    # a steep view's far tiles are a few pixels deep: the rounded outline's edge takes in table
    _labels_on_tiles(view.image, view.quads, share=0.7)


@pytest.mark.parametrize("seed", range(6))
def test_closeup_keeps_tiles_that_mostly_show(seed: int) -> None:
    image, quads = _tiles_photo()
    view = closeup_view(np.random.default_rng(seed), image, quads)
    h, w = view.image.shape[:2]
    assert w < 800 and h < 600
    _labels_on_tiles(view.image, view.quads)
    assert np.all(view.quads >= -0.01) and np.all(view.quads[..., 0] <= w + 0.01) and np.all(view.quads[..., 1] <= h + 0.01)


def test_a_tile_cut_by_the_border_is_labelled_by_what_shows_or_dropped() -> None:
    tile = np.array([[-30, 10], [70, 10], [70, 110], [-30, 110]], np.float64)  # 70 % inside
    sliver = np.array([[-80, 200], [20, 200], [20, 300], [-80, 300]], np.float64)  # 20 % inside
    kept = clip_to_frame(np.array([tile, sliver]), 400, 400)
    assert len(kept) == 1
    assert MIN_SHOWN_FRACTION == 0.5
    xs, ys = kept[0][:, 0], kept[0][:, 1]
    assert xs.min() == pytest.approx(0, abs=1) and xs.max() == pytest.approx(70, abs=1)
    assert ys.min() == pytest.approx(10, abs=1) and ys.max() == pytest.approx(110, abs=1)


def test_write_views_reads_train_only_and_is_reproducible(tmp_path: Path) -> None:
    _write_real(tmp_path / "real")
    first = write_views(tmp_path / "real", tmp_path / "views", views=3, seed=4)
    assert first["images"] == 6 and sum(first["by_kind"].values()) == 6
    images = sorted((tmp_path / "views" / "obb" / "images" / "train").glob("*.jpg"))
    assert [p.name for p in images] == [f"{n}-v{k}.jpg" for n in "ab" for k in range(3)]
    assert not (tmp_path / "views" / "obb" / "images" / "val").exists()  # the held-out photo is not used
    spec = (tmp_path / "views" / "obb" / "data.yaml").read_text()
    assert f"val: {(tmp_path / 'real' / 'images' / 'val').resolve()}" in spec  # no empty val folder
    labels = {p.name: p.read_text() for p in (tmp_path / "views" / "obb" / "labels" / "train").glob("*.txt")}
    second = write_views(tmp_path / "real", tmp_path / "again", views=3, seed=4)
    assert second["tiles"] == first["tiles"]
    assert labels == {p.name: p.read_text() for p in (tmp_path / "again" / "obb" / "labels" / "train").glob("*.txt")}
    assert "train: images/train" in (tmp_path / "views" / "obb" / "data.yaml").read_text()


def test_bad_input_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(DatasetError, match="no images/train"):
        write_views(tmp_path, tmp_path / "out", views=2, seed=0)
    assert main(["--real", str(tmp_path), "--out", str(tmp_path / "out")]) == 1
    assert "error:" in capsys.readouterr().out
    _write_real(tmp_path / "real")
    with pytest.raises(DatasetError, match="--views"):
        write_views(tmp_path / "real", tmp_path / "out", views=0, seed=0)


def test_the_train_photos_next_to_a_held_out_block_give_no_views(tmp_path: Path) -> None:
    """Session r holds out 6 and on: r-4 and r-5, near-copies of r-6, give no views."""
    image, quads = _tiles_photo()
    real = tmp_path / "real"
    for split in ("train", "val"):
        (real / "images" / split).mkdir(parents=True)
        (real / "labels" / split).mkdir(parents=True)
    for n in range(1, 6):
        cv2.imwrite(str(real / "images" / "train" / f"r-{n}.jpg"), image)
        (real / "labels" / "train" / f"r-{n}.txt").write_text(label_lines(quads, 800, 600))
    cv2.imwrite(str(real / "images" / "val" / "r-6.jpg"), image)
    manifest = write_views(real, tmp_path / "views", views=1, seed=0)
    names = sorted(p.name for p in (tmp_path / "views" / "obb" / "images" / "train").glob("*.jpg"))
    assert names == ["r-1-v0.jpg", "r-2-v0.jpg", "r-3-v0.jpg"]
    assert manifest["skipped_next_to_held_out"] == ["r-4.jpg", "r-5.jpg"] and manifest["images"] == 3
