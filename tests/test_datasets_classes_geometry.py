"""Class names and tile geometry: the contracts every dataset file relies on."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rummi.datasets.geometry import flip_quad, ink_offset, min_area_quad
from rummi.datasets.scene import LabelledTile
from rummi.datasets.synth.fonts import tile_fonts
from rummi.datasets.synth.tile_art import TileStyle, render_face
from rummi.vision.classes import (
    TILE_CLASSES,
    UnknownClassError,
    class_names_from_yaml,
    reader_class,
    source_name_to_notation,
    tile_class_index,
)
from rummi.vision.geometry import portrait_order, warp_crop


def test_source_names_map_to_engine_notation_by_name():
    assert source_name_to_notation("black_7") == "k7"
    assert source_name_to_notation("blue_13") == "b13"
    assert source_name_to_notation("orange_1") == "o1"
    assert source_name_to_notation("yellow_4") == "o4"  # yellow printings are the orange slot
    assert source_name_to_notation("red_10") == "r10"
    assert source_name_to_notation("joker") == "J"


@pytest.mark.parametrize("bad", ["green_3", "black_14", "black", "jokers", ""])
def test_unknown_source_names_are_refused(bad):
    with pytest.raises(UnknownClassError):
        source_name_to_notation(bad)


def test_tile_classes_are_engine_order_with_joker_last():
    assert len(TILE_CLASSES) == 53
    assert TILE_CLASSES[:3] == ("k1", "k2", "k3")
    assert TILE_CLASSES[13] == "b1" and TILE_CLASSES[26] == "o1" and TILE_CLASSES[39] == "r1"
    assert TILE_CLASSES[52] == "J"


def test_every_joker_kind_is_one_reader_class():
    for joker in ("J", "Jd", "Jm", "Jc", "Js", "Jk", "Jb", "Jo", "Jr"):
        assert reader_class(joker) == "J"
        assert tile_class_index(joker) == 52
    assert reader_class("r7") == "r7"


@settings(max_examples=60, deadline=None)
@given(cx=st.floats(50, 450), cy=st.floats(50, 450), w=st.floats(10, 60), aspect=st.floats(1.1, 1.6),
       angle=st.floats(-180, 180))
def test_min_area_quad_is_portrait_and_keeps_the_rectangle(cx, cy, w, aspect, angle):
    h = w * aspect
    a = np.radians(angle)
    rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) @ rotation.T + [cx, cy]
    quad = min_area_quad(corners)
    top, side = np.linalg.norm(quad[1] - quad[0]), np.linalg.norm(quad[2] - quad[1])
    assert top == pytest.approx(w, rel=0.02, abs=0.5)
    assert side == pytest.approx(h, rel=0.02, abs=0.5)
    assert quad.mean(axis=0) == pytest.approx([cx, cy], abs=0.5)
    flipped = flip_quad(quad)
    assert np.allclose(flipped[0], quad[2]) and np.allclose(flipped[2], quad[0])


def test_portrait_order_puts_the_top_edge_nearest_the_top_of_the_image():
    landscape_listing = np.array([[10, 10], [10, 50], [40, 50], [40, 10]], np.float32)  # counter-clockwise
    quad = portrait_order(landscape_listing)
    assert quad.tolist() == [[10, 10], [40, 10], [40, 50], [10, 50]]
    assert LabelledTile("k1", quad).angle_degrees() == pytest.approx(0.0)
    assert LabelledTile("k1", flip_quad(quad)).upside_down_in_image


def test_ink_offset_tells_an_upright_face_from_an_upside_down_one():
    style = TileStyle("classic", tile_fonts()[0], (236, 229, 210), False, False, "smiley")
    for notation in ("k8", "b1", "o13", "r6", "J"):
        face = render_face(notation, style)[..., :3]
        h, w = face.shape[:2]
        quad = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
        assert ink_offset(warp_crop(face, quad)) < -0.1, notation
        assert ink_offset(warp_crop(face, flip_quad(quad))) > 0.1, notation


@settings(max_examples=80, deadline=None)
@given(tiles=st.lists(st.tuples(st.floats(-40, 360), st.floats(-40, 280), st.floats(12, 60), st.floats(-180, 180),
                                st.sampled_from(["k1", "b13", "o7", "r9", "J", "Jd"])), max_size=6))
def test_tiles_running_off_the_photo_still_give_labels_inside_it(tmp_path_factory, tiles):
    """ultralytics drops a whole image for one coordinate outside 0..1: the writer clips to the photo."""
    from rummi.datasets import writer
    from rummi.datasets.check import check_dataset
    from rummi.datasets.scene import Scene

    out = tmp_path_factory.mktemp("ds")
    writer.prepare(out)
    labelled = []
    for cx, cy, w, angle, notation in tiles:
        a = np.radians(angle)
        rotation = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        local = np.array([[-w / 2, -w * 2 / 3], [w / 2, -w * 2 / 3], [w / 2, w * 2 / 3], [-w / 2, w * 2 / 3]])
        quad = (local @ rotation.T + [cx, cy]).astype(np.float32)
        x0, y0, x1, y1 = quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max()
        if x1 > 0 and y1 > 0 and x0 < 320 and y0 < 240:  # some of its box is in the photo
            labelled.append(LabelledTile(notation, quad))
    image = np.full((240, 320, 3), 128, np.uint8)
    summary, _ = writer.write_scene(out, Scene("edge", image, labelled), "train")
    writer.finish(out, [summary], [], {"kind": "test"})
    assert check_dataset(out).problems == []


def test_class_names_come_from_a_data_yaml_list_or_mapping_and_bad_ones_are_clear(tmp_path):
    listed, mapped, broken = tmp_path / "a.yaml", tmp_path / "b.yaml", tmp_path / "c.yaml"
    listed.write_text("names:\n- black_1\n- joker\n")
    mapped.write_text("names: {1: joker, 0: black_1}\n")
    broken.write_text("names: [unclosed\n")
    assert class_names_from_yaml(listed) == class_names_from_yaml(mapped) == ["black_1", "joker"]
    with pytest.raises(UnknownClassError, match="not readable YAML"):
        class_names_from_yaml(broken)
    with pytest.raises(UnknownClassError, match="not found"):
        class_names_from_yaml(tmp_path / "missing.yaml")
