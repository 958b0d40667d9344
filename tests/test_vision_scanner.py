"""The shipped ONNX models, loaded by the real code, reading real held-out photos."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from rummi.api.cli import main as rummi
from rummi.engine.notation import parse_tile
from rummi.vision.detections import TileDetections
from rummi.vision.evaluation import evaluate, labelled_photos
from rummi.vision.image_io import load_image
from rummi.vision.scanner import Scanner, ScanResult

SAMPLES = Path(__file__).resolve().parents[1] / "vision" / "samples"
SCATTER = SAMPLES / "images" / "scatter-rummy-42.jpg"
SETS = SAMPLES / "images" / "sets-rummy-11.jpg"
RACK = SAMPLES / "images" / "rack-rummy4-87.jpg"


@pytest.fixture(scope="module")
def scanner() -> Scanner:
    return Scanner.load(threads=1)


@pytest.fixture(scope="module")
def scatter_scan(scanner: Scanner) -> ScanResult:
    return scanner.scan(load_image(SCATTER))


def truth_of(photo: Path) -> list[str]:
    (labelled,) = [p for p in labelled_photos(SAMPLES) if p.image == photo]
    return labelled.tiles


def test_every_tile_of_a_held_out_photo_is_found_and_almost_all_read(scatter_scan: ScanResult) -> None:
    truth = truth_of(SCATTER)
    assert abs(len(scatter_scan.found) - len(truth)) <= 1
    read = sorted(label for label in scatter_scan.found.labels if label)
    right = sum(min(read.count(t), truth.count(t)) for t in set(truth))
    assert right >= len(truth) - 2


def test_sets_on_the_table_become_sets_the_engine_checks(scanner: Scanner) -> None:
    result = scanner.scan(load_image(SETS))
    sets = [" ".join(str(t) for t in s) for s in result.sets]
    assert "k6 k7 k8 k9" in sets or "k9 k8 k7 k6" in sets
    assert sum(len(s) >= 3 for s in result.sets) >= 3
    verdicts = result.verdicts()
    assert sum(v.valid for v in verdicts) >= 3
    # The pair of sevens lies on the table, not on a rack (no ledge under them): an unfinished
    # set the engine calls invalid.
    assert result.rack is None
    assert sorted(map(str, next(s for s in result.sets if len(s) == 2))) == ["o7", "r7"]
    assert sum(not v.valid for v in verdicts) == 1


def test_asking_the_finder_for_weaker_boxes_keeps_the_sure_ones_as_they_were(scanner: Scanner) -> None:
    photo = load_image(SCATTER)
    sure = scanner.finder.find(photo)
    more = scanner.finder.find(photo, threshold=0.05)
    strong = more.find_confidence >= scanner.finder.confidence_threshold
    assert len(more) > len(sure)
    assert np.allclose(more.corners[strong], sure.corners) and np.allclose(more.find_confidence[strong], sure.find_confidence)


def test_a_tile_found_as_two_halves_is_read_as_one(scanner: Scanner) -> None:
    # A real k3 crop with a deep dimple, lying alone. The finder before 2026-12-05 boxed its
    # number and its logo apart (the number's half read as k10 at 0.41); the one shipped now
    # boxes it whole, so its box is cut in two here as that finder did. Read together, the two
    # halves are the k3 (vision/reader.py _join_halves), and the other half is no tile.
    from rummi.datasets.videos import TableView, sample_tile_bank

    view = TableView(np.random.default_rng(0), (1280, 720), sample_tile_bank(), "wood")
    photo = view.draw({11: ("k2", "k3", "k4", "k5"), 12: ("k3",), 14: ("o7", "o8", "o9")})
    found = scanner.finder.find(photo)
    assert len(found) == 8
    lone = int(np.argmin(np.linalg.norm(found.centers - np.asarray(view.slot_origin(12)), axis=1)))
    top_left, top_right, bottom_right, bottom_left = found.corners[lone]
    middle_left, middle_right = (top_left + bottom_left) / 2, (top_right + bottom_right) / 2
    halves = np.stack([[top_left, top_right, middle_right, middle_left],
                       [middle_left, middle_right, bottom_right, bottom_left]]).astype(np.float32)
    boxes = np.concatenate([np.delete(found.corners, lone, axis=0), halves])
    scores = np.concatenate([np.delete(found.find_confidence, lone), [0.8, 0.8]]).astype(np.float32)
    read = scanner.reader.read(photo, TileDetections.from_corners(boxes, scores))
    tiles = read[read.counted_as_tiles(scanner.uncertain_below)]
    assert sorted(tiles.labels) == sorted("k2 k3 k4 k5 k3 o7 o8 o9".split())
    k3s = [i for i, label in enumerate(tiles.labels) if label == "k3"]
    lone_k3 = min(k3s, key=lambda i: float(np.linalg.norm(tiles.centers[i] - found.centers[lone])))
    # the whole tile's box (both halves together), read surely
    assert np.linalg.norm(tiles.centers[lone_k3] - found.centers[lone]) < 0.1 * found.heights[lone]
    assert tiles.read_confidence[lone_k3] >= scanner.uncertain_below


def test_corners_are_inside_the_photo_and_follow_the_tile(scatter_scan: ScanResult) -> None:
    corners = scatter_scan.found.corners
    height, width = load_image(SCATTER).shape[:2]
    assert corners.shape == (len(scatter_scan.found), 4, 2)
    assert corners.min() > -20 and corners[..., 0].max() < width + 20 and corners[..., 1].max() < height + 20
    # Portrait tiles: the left and right edges are longer than the top and bottom edges. A box
    # clipped short at one end (the finder trained with generated scenes cuts one of these 27
    # tiles 2% short of square, still read right) may come out nearly square, never landscape.
    aspect = scatter_scan.found.heights / scatter_scan.found.widths
    assert np.median(aspect) > 1.2
    assert np.all(aspect > 0.95)


def test_json_follows_the_cli_contract(scatter_scan: ScanResult) -> None:
    data = scatter_scan.to_json("scatter.jpg")
    assert list(data) == ["image", "tiles", "sets", "rack", "uncertain", "advice"]
    assert data["advice"] == []  # a sharp, well-lit photo
    first = data["tiles"][0]
    assert set(first) == {"tile", "confidence", "corners"} and len(first["corners"]) == 4
    assert all(parse_tile(t["tile"]) for t in data["tiles"])
    assert all(0 <= t["confidence"] <= 1 for t in data["tiles"])
    assert all(0 <= i < len(data["tiles"]) for i in data["uncertain"])
    json.dumps(data)


def test_a_rack_photo_gives_a_rack(scanner: Scanner) -> None:
    result = scanner.scan(load_image(RACK))
    assert result.rack is not None and len(result.rack) >= 8
    assert result.found.on_rack.sum() == len(result.rack)


def test_a_12_megapixel_photo_reads_like_the_small_one(scanner: Scanner, scatter_scan: ScanResult) -> None:
    small = load_image(SCATTER)
    big = cv2.resize(small, (small.shape[1] * 4, small.shape[0] * 4), interpolation=cv2.INTER_CUBIC)  # 12 MP
    result = scanner.scan(big)
    assert abs(len(result.found) - len(scatter_scan.found)) <= 1
    assert sorted(filter(None, result.found.labels)) == sorted(filter(None, scatter_scan.found.labels)) or (
        len(set(result.found.labels) ^ set(scatter_scan.found.labels)) <= 2)


def test_a_rack_seen_from_across_the_table_reads_the_same(scanner: Scanner) -> None:
    """The photo turned by 180 degrees: the same tiles, each now read upside down."""
    upright = scanner.scan(load_image(RACK))
    turned = scanner.scan(cv2.rotate(load_image(RACK), cv2.ROTATE_180))
    assert not upright.found.upside_down.any()
    assert turned.found.upside_down.all()
    assert sorted(filter(None, turned.found.labels)) == sorted(filter(None, upright.found.labels))


def test_an_empty_table_has_no_tiles(scanner: Scanner) -> None:
    result = scanner.scan(np.full((750, 1000, 3), (60, 90, 140), np.uint8))
    assert len(result.found) == 0 and result.sets == [] and result.rack is None


def test_the_samples_are_read_well(scanner: Scanner) -> None:
    scores = evaluate(scanner, labelled_photos(SAMPLES))
    assert scores.precision >= 0.9 and scores.recall >= 0.9


def test_cli_scan_json_prints_one_object_per_photo(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    drawing = tmp_path / "out.png"
    assert rummi(["scan", str(SCATTER), str(RACK), "--json", "--draw", str(drawing)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert [json.loads(line)["image"] for line in lines] == [str(SCATTER), str(RACK)]
    assert cv2.imread(str(drawing)).shape == load_image(SCATTER).shape
    assert (tmp_path / "out-2.png").is_file()


def test_cli_scan_for_a_person_and_a_bad_photo(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"not a jpeg")
    assert rummi(["scan", str(SETS), str(broken)]) == 2
    captured = capsys.readouterr()
    assert "set 1:" in captured.out and "tiles found" in captured.out
    assert "broken.jpg is not an image" in captured.err and "Traceback" not in captured.err


def test_cli_eval_prints_the_figures(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    confusion = tmp_path / "confusion.png"
    assert rummi(["eval", str(SAMPLES), "--confusion", str(confusion)]) == 0
    out = capsys.readouterr().out
    assert "tile read precision" in out and "photos read perfectly" in out and "latency" in out
    assert cv2.imread(str(confusion)) is not None


def test_cli_eval_writes_no_picture_unless_asked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert rummi(["eval", str(SAMPLES), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["photos"] == 5 and "confusion_png" not in figures
    assert list(tmp_path.iterdir()) == []


def damaged_models(folder: Path, onnx: bytes, meta: str | None = None) -> Path:
    """A copy of the shipped model folders with ``model.onnx`` (and maybe ``model.json``) replaced."""
    shipped = Path(__file__).resolve().parents[1] / "models"
    for name in ("tile-finder", "tile-reader"):
        (folder / name).mkdir(parents=True)
        (folder / name / "model.onnx").write_bytes(onnx)
        (folder / name / "model.json").write_text(meta or (shipped / name / "model.json").read_text())
    return folder


def test_a_git_lfs_pointer_instead_of_weights_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    models = damaged_models(tmp_path, b"version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 1\n")
    assert rummi(["scan", str(SETS), "--models", str(models)]) == 2
    err = capsys.readouterr().err
    assert "tile-finder/model.onnx" in err and "is not a model" in err and "Traceback" not in err


def test_a_damaged_model_json_names_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    models = damaged_models(tmp_path, b"", meta="{bad")
    assert rummi(["scan", str(SETS), "--models", str(models)]) == 2
    err = capsys.readouterr().err
    assert "tile-finder/model.json" in err and "Traceback" not in err


def test_a_model_json_with_an_unknown_task_is_a_model_error(tmp_path: Path) -> None:
    """A ModelError, so that /scan answers 503 'photo reading is not available', not a 500."""
    from rummi.vision.onnx_model import ModelError

    shipped = Path(__file__).resolve().parents[1] / "models"
    for name in ("tile-finder", "tile-reader"):
        shutil.copytree(shipped / name, tmp_path / name)
    meta = json.loads((tmp_path / "tile-finder" / "model.json").read_text())
    (tmp_path / "tile-finder" / "model.json").write_text(json.dumps({**meta, "task": "segment"}))
    with pytest.raises(ModelError, match="unknown detector task 'segment'"):
        Scanner.load(tmp_path)


def test_cli_scan_draw_to_an_unknown_picture_format_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert rummi(["scan", str(SETS), "--draw", str(tmp_path / "out.xyz")]) == 2
    err = capsys.readouterr().err
    assert "could not write" in err and "out.xyz" in err and "Traceback" not in err


def test_cli_eval_refuses_a_confusion_name_it_could_not_write_before_scoring(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert rummi(["eval", str(SAMPLES), "--confusion", str(tmp_path / "confusion.xyz")]) == 2
    err = capsys.readouterr().err
    assert "could not write" in err and "[1/" not in err  # refused before the first photo


def test_a_12_mp_jpeg_decoded_at_half_size_gives_corners_in_its_own_pixels(
    scanner: Scanner, scatter_scan: ScanResult
) -> None:
    from rummi.vision.image_io import load_for_scan

    small = load_image(SCATTER)
    big = cv2.resize(small, (small.shape[1] * 4, small.shape[0] * 4), interpolation=cv2.INTER_CUBIC)
    ok, data = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    photo = load_for_scan(data.tobytes())
    assert photo.image.shape[1] == big.shape[1] // 2
    result = scanner.scan(photo.image, photo_scale=photo.scale)
    assert abs(len(result.found) - len(scatter_scan.found)) <= 1
    # every tile of the 1000x750 scan lies, four times as far out, under one of the 12 MP scan's
    centres = result.found.centers
    for centre in scatter_scan.found.centers * 4:
        assert np.min(np.linalg.norm(centres - centre, axis=1)) < 40


def test_the_models_run_one_thread_each_unless_told(scanner: Scanner) -> None:
    """One intra-op thread per session: faster than onnxruntime's default on 2 shared cores."""
    loaded = Scanner.load()
    for model in (loaded.finder.model, loaded.reader.model):
        assert model.session.get_session_options().intra_op_num_threads == 1
    wider = Scanner.load(threads=2)
    assert wider.reader.model.session.get_session_options().intra_op_num_threads == 2


def test_a_shaken_photo_says_hold_steady_and_no_read_is_sure(scanner: Scanner) -> None:
    kernel = np.zeros((15, 15), np.float32)
    kernel[7, :] = 1 / 15  # a 15 px horizontal shake
    shaken = cv2.filter2D(load_image(SETS), -1, kernel)
    result = scanner.scan(shaken)
    assert result.advice == ["hold steady"]
    assert result.uncertain == list(range(len(result.found))) and len(result.found) > 0
    assert "hold steady" in result.describe() and result.to_json("x")["advice"] == ["hold steady"]


def test_a_far_photo_says_come_closer_not_hold_steady_and_no_read_is_sure(scanner: Scanner) -> None:
    """The sample shrunk until its tiles are about 20 px: the photo is still, its tiles too few
    pixels (a sharp face that small measures soft). Half as small, it reads as it should."""
    photo = load_image(SETS)
    height, width = photo.shape[:2]
    far = cv2.resize(photo, (width // 4, height // 4), interpolation=cv2.INTER_AREA)
    result = scanner.scan(far)
    assert result.advice == ["come closer"] and result.quality.tile_px < 22
    assert result.uncertain == list(range(len(result.found))) and len(result.found) > 0
    assert "too far" in result.describe() and result.to_json("x")["advice"] == ["come closer"]
    nearer = scanner.scan(cv2.resize(photo, (width // 2, height // 2), interpolation=cv2.INTER_AREA))
    assert nearer.advice == [] and not nearer.uncertain


def test_a_dark_photo_says_more_light(scanner: Scanner) -> None:
    dark = (load_image(SETS).astype(np.float32) * 0.15).astype(np.uint8)
    result = scanner.scan(dark)
    assert "more light" in result.advice


def test_the_samples_need_no_advice(scanner: Scanner) -> None:
    for photo in (SCATTER, SETS, RACK):
        assert scanner.scan(load_image(photo)).advice == [], photo.name


def test_a_tile_the_photo_cuts_is_never_read_surely(scanner: Scanner, scatter_scan: ScanResult) -> None:
    """The left half of a held-out photo: the tiles its edge cuts are uncertain, whatever the
    reader says; tiles not cut keep their own confidence."""
    photo = load_image(SCATTER)
    half = np.ascontiguousarray(photo[:, : photo.shape[1] // 2])
    result = scanner.scan(half)
    cut = result.found.cut_by_the_edge(half.shape[1], half.shape[0])
    assert cut.any() and not cut.all()
    assert set(np.flatnonzero(cut)) <= set(result.uncertain)
    inside = [i for i in np.flatnonzero(~cut) if result.found.confidence[i] >= scanner.uncertain_below]
    assert inside and not set(inside) & set(result.uncertain)
    # The whole photo: no tile touches its edge, so none is flagged for it.
    whole = scatter_scan.found.at_the_edge(photo.shape[1], photo.shape[0])
    assert not whole.any()


def test_at_the_edge_is_measured_in_the_tiles_own_width() -> None:
    from rummi.vision.detections import EDGE_MARGIN, TileDetections

    def tile(x: float, y: float) -> np.ndarray:
        return np.array([[x, y], [x + 40, y], [x + 40, y + 56], [x, y + 56]], np.float32)

    near = 40 * EDGE_MARGIN
    found = TileDetections.from_corners(np.stack([tile(100, 100), tile(near / 2, 100), tile(-10, 100),
                                                  tile(100, 200 - 56 - near / 2), tile(near * 2, 100)]),
                                        np.ones(5))
    assert found.at_the_edge(300, 200).tolist() == [False, True, True, True, False]
    assert TileDetections.empty().at_the_edge(300, 200).shape == (0,)


def test_only_a_box_that_looks_cut_is_cut_by_the_edge() -> None:
    """A tightly framed photo: a whole tile touching the edge is not cut (its violations must
    still be called), a box the edge halves is, and so is a box the finder drew past the edge
    (the whole tile guessed, a third of it outside)."""
    from rummi.vision.detections import TileDetections

    def tile(x: float, y: float, w: float = 40, h: float = 56) -> np.ndarray:
        return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)

    boxes = [tile(100, 100), tile(150, 100), tile(200, 100),  # the photo's median tile: 40 x 56
             tile(0, 20),  # whole, touching the left edge
             tile(260, 144),  # whole, touching the bottom right corner
             tile(0, 100, w=20),  # the left edge halves it
             tile(-14, 30)]  # drawn past the left edge: 26 of its 40 px inside
    found = TileDetections.from_corners(np.stack(boxes), np.ones(len(boxes)))
    assert found.at_the_edge(300, 200).tolist() == [False, False, False, True, True, True, True]
    assert found.cut_by_the_edge(300, 200).tolist() == [False, False, False, False, False, True, True]
    # Too few tiles to know a whole one's size: every box at the edge counts as cut.
    two = found[np.array([3, 0])]
    assert two.cut_by_the_edge(300, 200).tolist() == [True, False]


def test_an_unsure_second_box_on_a_tile_read_surely_is_a_repeat() -> None:
    """A tile boxed whole and again by its number's half (a steep view, a close-up): the half
    read unsure is no second tile. Touching neighbours and sure reads are never dropped."""
    from rummi.vision.detections import TileDetections

    def box(x: float, y: float, w: float = 40, h: float = 56) -> np.ndarray:
        return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float32)

    boxes = [box(100, 100),  # a tile read surely
             box(102, 100, h=30),  # its number's half, read unsure: a repeat
             box(140, 100),  # its neighbour, touching, read unsure: a tile
             box(300, 100), box(300, 110),  # two sure reads on one spot: both kept
             box(400, 100), box(402, 104, h=40)]  # a box read as no tile repeats nothing
    found = TileDetections.from_corners(np.stack(boxes), np.ones(len(boxes)))
    read = found.with_reads(found.corners, ["k7", "k1", "r5", "b3", "b8", "none", "o2"],
                            np.array([0.95, 0.4, 0.5, 0.9, 0.8, 0.99, 0.5]))
    assert read.repeats(0.7).tolist() == [False, True, False, False, False, False, False]
    assert TileDetections.empty().repeats(0.7).shape == (0,)


def test_the_scan_drops_a_repeat_with_the_boxes_it_refused(scanner: Scanner, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real pipeline on a sample with one tile's number boxed again by the finder: the
    second box is read, found a repeat, and kept out of the tiles (in ``refused``)."""
    from rummi.vision.detections import TileDetections

    photo = load_image(SCATTER)
    plain = scanner.finder.find(photo)
    whole = plain.corners[int(np.argmax(plain.find_confidence))]
    top, left = whole[0], whole[1]  # the number's half: the top 45 % of the tile
    half = np.stack([top, left, left + 0.45 * (whole[2] - whole[1]), top + 0.45 * (whole[3] - whole[0])])
    doubled = TileDetections.from_corners(np.concatenate([plain.corners, half[None]]),
                                          np.concatenate([plain.find_confidence, [0.6]]))
    monkeypatch.setattr(scanner.finder, "find", lambda image, **_: doubled)
    result = scanner.scan(photo)
    assert len(result.found) + len(result.refused) == len(doubled)
    assert len(result.found) == len(plain) - int((~scanner.reader.read(photo, plain).read_as_tiles).sum())


def test_a_6_the_reader_half_takes_for_a_turned_9_is_a_6_beside_its_upright_mates(scanner: Scanner) -> None:
    # Real tile crops (the bundled photos' b6, b7, b8) laid as one run on a generated table. The
    # finder before 2026-12-05 gave the b6 a box the reader alone half took for a b9 turned
    # round; the one shipped now boxes it so that it reads right. So that reader's belief is put
    # back on the real scan's b6: its mates, read surely upright, tell it is a 6
    # (vision/reader.py agree_with_set_mates), in the scanner's own step.
    from rummi.datasets.videos import TableView, sample_tile_bank
    from rummi.vision.layout import lay_out

    image = TableView(np.random.default_rng(4), (640, 360), sample_tile_bank(), "plain").draw({0: ("b6", "b7", "b8")})
    scan = scanner.scan(image)
    assert [[str(t) for t in s] for s in scan.sets] == [["b6", "b7", "b8"]]
    found = scan.found
    six = list(found.labels).index("b6")
    names = scanner.reader.tile_names
    belief = np.full((2, len(names)), 1e-6, np.float32)
    belief[0, names.index("b9")], belief[1, names.index("b6")] = 0.64, 0.30  # as it lies: a 9
    corners, probabilities = found.corners.copy(), found.read_probabilities.copy()
    corners[six] = np.roll(corners[six], 2, axis=0)  # the box the other way round
    probabilities[six] = belief
    labels = list(found.labels)
    labels[six] = "b9"
    confidence = found.read_confidence.copy()
    confidence[six] = 0.64
    half = found.with_reads(corners, labels, confidence, probabilities)
    assert half.upside_down[six] and half.read_probabilities[six, 0].sum() < 0.9  # the premise: a divided 9
    weighed, layout = scanner.weigh_by_set_mates(half, lay_out(half, "table"), "standard")
    assert [[weighed.labels[i] for i in s] for s in layout.sets] == [["b6", "b7", "b8"]]
    assert not weighed.upside_down.any()  # the 6 now faces as its mates do
