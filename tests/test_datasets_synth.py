"""The scene generator: labels line up with pixels, truth is consistent, a seed reproduces."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from rummi.api.cli import main
from rummi.datasets.check import check_dataset
from rummi.datasets.geometry import ink_offset
from rummi.datasets.synth.content import random_set
from rummi.datasets.synth.fonts import tile_fonts
from rummi.datasets.synth.generate import generate
from rummi.datasets.synth.layouts import SCENE_KINDS
from rummi.datasets.synth.render import MIN_VISIBLE_FRACTION, MIN_VISIBLE_PX, render_scene
from rummi.engine.melds import classify
from rummi.engine.notation import parse_tiles
from rummi.vision.classes import tile_class_index
from rummi.vision.geometry import warp_crop

TILE_KINDS = [k for k in SCENE_KINDS if k != "empty"]


def _quad_mask(shape: tuple[int, int], quad: np.ndarray, grow_px: int = 0) -> np.ndarray:
    """Pixels of a quad, grown (or, negative, shrunk) by a margin for anti-aliased edges."""
    mask = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad).astype(np.int32), 1)
    kernel = np.ones((2 * abs(grow_px) + 1, 2 * abs(grow_px) + 1), np.uint8)
    if grow_px > 0:
        mask = cv2.dilate(mask, kernel)
    elif grow_px < 0:
        mask = cv2.erode(mask, kernel)
    return mask.astype(bool)


@pytest.mark.parametrize("kind", TILE_KINDS)
@pytest.mark.parametrize("index", [0, 1])
def test_every_label_covers_its_tile_and_every_visible_tile_is_labelled(kind, index):
    rendered = render_scene(11, index, kind=kind)
    scene, ids = rendered.scene, rendered.ids
    assert scene.tiles, "a scene of this kind has tiles"
    for tile, tile_id in zip(scene.tiles, rendered.label_ids):
        pixels = ids == tile_id
        inside = _quad_mask(ids.shape, tile.quad, grow_px=2)
        assert pixels.sum() >= MIN_VISIBLE_PX
        assert (pixels & ~inside).sum() <= 0.01 * pixels.sum(), f"{tile.notation} drawn outside its box"
        box = _quad_mask(ids.shape, tile.quad, grow_px=-1)  # touching neighbours share an edge pixel
        others = (ids[box] > 0) & (ids[box] != tile_id)
        assert others.mean() < 0.03, f"{tile.notation}'s box holds another tile"
    labelled = set(rendered.label_ids)
    counts = np.bincount(ids.ravel().astype(np.int64), minlength=len(rendered.placement_quads) + 1)
    for number, quad in enumerate(rendered.placement_quads, start=1):
        if number not in labelled:
            area = abs(cv2.contourArea(quad))
            assert counts[number] < max(MIN_VISIBLE_PX, MIN_VISIBLE_FRACTION * area)


def test_labelled_corners_find_the_number_at_the_top_of_the_pixels():
    """Warping the photo by a label's corners gives an upright tile: labels match pixel content."""
    checked = upright = 0
    for index in range(6):
        scene = render_scene(5, index, kind="closeup").scene
        for tile in scene.tiles:
            if tile.notation.startswith("J") or tile.visible_fraction < 0.97:
                continue
            checked += 1
            upright += ink_offset(warp_crop(scene.image, tile.quad)) < -0.05
    assert checked >= 20
    assert upright >= 0.9 * checked


def test_truth_records_sets_and_rack():
    rack = render_scene(3, 0, kind="rack").scene
    on_rack = [t for t in rack.tiles if t.on_rack]
    assert on_rack and all(abs(t.angle_degrees()) < 10 or abs(t.angle_degrees()) > 170 for t in on_rack)
    assert render_scene(3, 2, kind="empty").scene.tiles == []  # negatives: table, maybe a rack, no tiles
    melds = render_scene(3, 1, kind="melds").scene
    assert melds.sets
    for number, members in enumerate(melds.sets):
        assert all(melds.tiles[i].set_index == number for i in members)


def test_generated_sets_are_legal():
    rng = np.random.default_rng(0)
    for _ in range(300):
        tiles = random_set(rng)
        edition = "expert" if any(t in ("Jk", "Jb", "Jo", "Jr") for t in tiles) else "standard"
        text = " ".join("J" if t == "Js" else t for t in tiles)
        assert classify(parse_tiles(text, edition), edition).valid, tiles


def _digest(root: Path) -> dict[str, str]:
    """Hash of every file but those naming the folder itself (manifest, data.yaml: absolute paths)."""
    return {str(p.relative_to(root)): hashlib.sha1(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name not in ("manifest.json", "data.yaml")}


def test_written_labels_match_truth_and_a_seed_reproduces_the_dataset(tmp_path):
    one = generate(tmp_path / "one", n=4, seed=3, real_source=None, workers=1, show_progress=False)
    generate(tmp_path / "two", n=4, seed=3, real_source=None, workers=2, show_progress=False)
    assert _digest(tmp_path / "one") == _digest(tmp_path / "two")
    assert one["splits"]["train"]["images"] + one["splits"]["val"]["images"] == 4
    assert check_dataset(tmp_path / "one").problems == []
    for truth_file in (tmp_path / "one/truth").rglob("*.json"):
        truth = json.loads(truth_file.read_text())
        split = truth_file.parent.name
        w, h = truth["width"], truth["height"]
        obb = (tmp_path / "one/obb53/labels" / split / f"{truth['name']}.txt").read_text().splitlines()
        axis = (tmp_path / "one/detect/labels" / split / f"{truth['name']}.txt").read_text().splitlines()
        assert len(obb) == len(axis) == len(truth["tiles"])
        for tile, line, box in zip(truth["tiles"], obb, axis):
            values = line.split()
            assert int(values[0]) == tile_class_index(tile["notation"])
            corners = np.array(tile["corners"])
            if corners.min() >= 0 and corners[:, 0].max() <= w and corners[:, 1].max() <= h:
                assert np.allclose(np.array(values[1:], float).reshape(4, 2) * [w, h], corners, atol=0.6)
                cx, cy, bw, bh = (float(v) for v in box.split()[1:])
                assert cx * w == pytest.approx(corners[:, 0].mean(), abs=max(1.0, bw * w * 0.5))
                assert bw * w == pytest.approx(np.ptp(corners[:, 0]), abs=1.0)


def test_cli_synth_writes_a_dataset_that_checks_clean(tmp_path):
    out = tmp_path / "synth"
    assert main(["dataset", "synth", "--n", "2", "--seed", "1", "--out", str(out), "--real", "none",
                 "--workers", "1"]) == 0
    assert main(["dataset", "check", str(out)]) == 0
    assert main(["dataset", "synth", "--n", "2", "--out", str(out), "--real", "none"]) == 2  # refuses to overwrite


def test_pressman_share_one_makes_a_folder_of_that_print_alone(tmp_path):
    """`--pressman-share 1` (a folder the reader's trainer can weigh on its own) gives every
    scene the pressman print, and the manifest's command says how to make it again."""
    out = tmp_path / "pressman"
    assert main(["dataset", "synth", "--n", "3", "--seed", "5", "--out", str(out), "--real", "none",
                 "--workers", "1", "--pressman-share", "1"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["command"].endswith("--pressman-share 1") and manifest["pressman_share"] == 1.0
    for truth_file in (out / "truth").rglob("*.json"):
        assert json.loads(truth_file.read_text())["meta"]["printing"] == "pressman"
    assert main(["dataset", "synth", "--n", "1", "--out", str(tmp_path / "bad"), "--real", "none",
                 "--pressman-share", "1.5"]) == 2


def test_fonts_come_from_the_system_packages():
    fonts = tile_fonts()
    assert len(fonts) >= 2
    assert all(str(f).startswith("/usr/") and f.is_file() for f in fonts)


def test_a_missing_font_is_said_not_silent(monkeypatch):
    """With a font missing every generated scene differs from the documented dataset, so the
    generator and the benchmark warn (the set-up installs them all, so none is missing here)."""
    from rummi.datasets.synth import fonts as font_module

    assert font_module.missing_fonts() == () and font_module.missing_fonts_warning() is None
    monkeypatch.setattr(font_module, "tile_fonts", lambda: tile_fonts()[:1])
    warning = font_module.missing_fonts_warning()
    assert warning and f"{len(font_module.BOLD_SANS) - 1} of {len(font_module.BOLD_SANS)}" in warning
    assert "setup-system.sh" in warning


def test_the_pressman_print_has_teal_blue_a_dot_under_6_and_9_and_an_emblem_joker():
    """The kept-back photos' US print (issue 15) is among the generated ones, with what tells
    it apart: a blue nearer teal than the other prints' blue, a dot under 6 and 9 and no other
    number, and a joker that is a picture, not a face or a letter."""
    from rummi.datasets.synth.styles import POOL_SIZE, style_pool
    from rummi.datasets.synth.tile_art import EMBLEM_DESIGNS, INK_RGB, render_face

    styles = style_pool()
    pressman = [s for s in styles if s.printing == "pressman"]
    assert pressman and all(s.printing != "pressman" for s in styles[:POOL_SIZE])
    for style in pressman:
        red, green, blue = style.ink("b")
        assert green / blue > 0.7 > INK_RGB["b"][1] / INK_RGB["b"][2]  # teal, not mid blue
        assert style.joker_design in EMBLEM_DESIGNS
    marked = next(s for s in pressman if s.mark_6_9)

    def ink_rows(notation: str) -> np.ndarray:
        face = render_face(notation, marked)
        grey = face[..., :3].astype(np.float32).mean(axis=2)
        inked = (grey < 170) & (face[..., 3] > 200)
        inked[:, :12] = inked[:, -12:] = inked[:12] = inked[-12:] = False  # the bevel
        return np.flatnonzero(inked.any(axis=1))

    for notation in ("b6", "b9"):
        rows = ink_rows(notation)
        assert np.diff(rows).max() >= 3, f"{notation}: no separate mark under the number"
    rows = ink_rows("b8")
    assert np.diff(rows).max() < 3  # one block of ink: no mark
