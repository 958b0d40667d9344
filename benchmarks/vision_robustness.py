"""How the vision pipeline holds up when a photo is not a good one: one table, one row per variant.

    .venv/bin/python benchmarks/vision_robustness.py                 # every variant, ~5-10 min
    .venv/bin/python benchmarks/vision_robustness.py --limit 10      # 10 photos a variant, quick
    .venv/bin/python benchmarks/vision_robustness.py --variants original,gamma-2.2 --scenes 0

Photos: the real photos held out by shooting session (``data/real/manifest.json``'s val split,
made by `rummi dataset real`), each also changed the way a phone user changes a photo every day
(turned, small, huge, JPEG 25, dark, dim, warm light, motion blur, tilted, cropped); tilt-30 and
crop-half lie inside what the finder's training views cover (datasets/real_views.py), so two
variants outside it stand beside them: the phone turned 50 degrees about the vertical axis
through a 45 degree (tele) lens, and an off-centre window a third of the photo; plus
generated validation scenes of each tile print the generator draws (``classic``, ``modern``;
only drawn tiles, no real ones pasted in, rendered with a seed no training set used).

Per variant:

* read precision / recall / F1: a tile is read right when number and colour (or joker) agree;
  found tiles are matched to labelled ones as `rummi eval` does (centre inside the outline);
* photos perfect: every labelled tile read right and nothing else reported;
* sets rebuilt: labelled sets the scan reports exactly (same tiles, each read right, nothing
  added). Generated scenes know their sets; for a real table photo the sets are the chains of
  three or more touching tiles that the layout builds from the *labelled* outlines and names;
* rack right: photos whose rack the scan gives exactly (no rack where there is none). Real
  rack photos are the held-out ``rummy4`` numbers 86-93 (two-tier racks, looked at one by
  one); every other real photo shows tiles on a table or a cloth and no rack;
* false finds per 100 photos; finds excused: finds on a tile that is not counted (cut by a
  crop to under half its face, or a generated tile shown too little to be labelled), left out
  of precision and false finds alike, counted here so the exemption stays visible;
* wrong reads the pipeline was sure of (confidence at or above
  the scanner's unsure threshold, on a photo it did not call too blurred or dark) per 200
  labelled tiles;
* right but flagged uncertain: tiles read right that the scan still marked uncertain (low
  confidence, a box the photo's edge cuts, or a photo too blurred, dark or far): what the flags cost,
  since in /games and /play an uncertain spot turns an "illegal" verdict into "uncertain";
* told to retake: photos the scan called too blurred, too dark or too far ("hold steady",
  "more light", "come closer");
* where the errors come from (``--causes``): counted tiles the finder missed, boxes on no tile
  (false finds), tiles the finder found but the reader answered "not a tile" (refused) and
  found tiles read wrong (misreads), so a retraining aims at the stage
  that fails; and for generated scenes, the jokers whose colour the truth gives (Expert's,
  Twist's) read in the right colour (photos are scanned as Expert, which names jokers by
  colour; a tile is right when its number and colour, or "joker", are).

Tiles cut by a crop to less than half their face are not counted either way (a scan may find
them or not); so are a generated scene's tiles shown too little to be labelled (mostly under a
hand or a score pad, or cut by the frame): such a hidden tile is matched by the largest patch of
its pixels that shows, never by its whole face, so a box on the hand covering it is still a
false find. Latency here is the scan only; ``benchmarks/vision.py`` times decoding too.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rummi.datasets.real import default_real_photos  # noqa: E402
from rummi.datasets.real_views import fit_in_frame, tilt_matrix  # noqa: E402
from rummi.datasets.synth.fonts import missing_fonts_warning  # noqa: E402
from rummi.vision.classes import JOKER_COLOUR_OF, reader_class  # noqa: E402
from rummi.vision.detections import TileDetections  # noqa: E402
from rummi.vision.evaluation import Evaluation, holdout_filter, labelled_photos, match_indices  # noqa: E402
from rummi.vision.geometry import portrait_order  # noqa: E402
from rummi.vision.image_io import load_image  # noqa: E402
from rummi.vision.layout import MIN_SET_TILES, lay_out  # noqa: E402
from rummi.vision.scanner import Scanner, ScanResult  # noqa: E402

MANIFEST = ROOT / "data" / "real" / "manifest.json"
#: Held-out real photos that show a rack (every tile on it): looked at one by one.
RACK_PHOTOS = {("rummy4", n) for n in range(86, 94)}
#: A seed no training set used, for the generated scenes.
SCENE_SEED = 20261201
PRINTS = ("classic", "modern", "pressman")
#: A tile with less of its face in the picture than this is not counted either way.
MIN_COUNTED_FRACTION = 0.5


@dataclass
class Case:
    """One photo to scan and what is in it."""

    name: str
    image: np.ndarray
    labels: list[str]  # reader classes ("r7", "J")
    outlines: list[np.ndarray]  # polygons in pixels
    counted: np.ndarray  # (N,) bool: tiles that must be found
    sets: list[list[int]]  # indices into labels
    rack: list[int] | None  # indices into labels, None when the photo shows no rack
    #: Jokers whose colour the truth gives (generated Expert and Twist jokers): index -> Jk/Jb/Jo/Jr.
    joker_colours: dict[int, str] = field(default_factory=dict)


@dataclass
class Tally:
    """One variant's figures: read precision, recall and perfect photos from the scoring
    `rummi eval` uses (``vision.evaluation.Evaluation``), and beside them where the errors come
    from, sets, racks, calibration and joker colours."""

    scores: Evaluation = field(default_factory=Evaluation)
    false_finds: int = 0
    excused: int = 0  # finds on a tile not counted (cut by a crop, hidden): neither right nor phantom
    missed: int = 0
    refused: int = 0
    misread: int = 0
    sure_wrong: int = 0
    right_unsure: int = 0  # read right but flagged uncertain: what the flags cost
    sets: int = 0
    sets_rebuilt: int = 0
    rack_right: int = 0
    advised: int = 0
    jokers_coloured: int = 0
    joker_colour_right: int = 0

    def add(self, case: Case, result: ScanResult, latency_ms: float) -> None:
        found = result.found
        matched = self.scores.add(case.name, case.labels, case.outlines, result, latency_ms, case.counted)
        partner, right, ignored, of_found = matched.partner, matched.right, matched.ignored, matched.of_found
        unmatched = [f for f in range(len(found)) if f not in of_found]
        wrong = [f for f in range(len(found)) if f not in right and f not in ignored]
        self.false_finds += len(unmatched)
        self.excused += len(ignored)
        missed = [t for t in range(len(case.labels)) if case.counted[t] and t not in partner]
        refused = set(match_indices(result.refused.centers, [case.outlines[t] for t in missed]))
        self.refused += len(refused)
        self.missed += len(missed) - len(refused)
        self.misread += sum(1 for t, f in partner.items() if case.counted[t] and f not in right)
        unsure = set(result.uncertain)
        self.sure_wrong += sum(1 for f in wrong if f not in unsure)
        self.right_unsure += sum(1 for f in right if f in unsure)
        scanned_sets = [frozenset(of_found.get(f, -1 - f) for f in s) for s in result.layout.sets]
        all_right = [all(f in right for f in s) for s in result.layout.sets]
        for truth in case.sets:
            if not all(case.counted[t] for t in truth):
                continue
            self.sets += 1
            wanted = frozenset(truth)
            self.sets_rebuilt += any(s == wanted and ok for s, ok in zip(scanned_sets, all_right))
        self.rack_right += _rack_right(case, result, of_found)
        self.advised += bool(result.advice)
        for t, colour in case.joker_colours.items():
            if case.counted[t] and t in partner:
                self.jokers_coloured += 1
                self.joker_colour_right += found.labels[partner[t]] == colour

    def row(self, name: str) -> dict[str, float | int | str]:
        scores = self.scores
        precision, recall = scores.precision, scores.recall
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {
            "variant": name, "photos": scores.photos, "tiles": scores.labelled,
            "precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4),
            "perfect": scores.perfect, "sets": self.sets, "sets_rebuilt": self.sets_rebuilt,
            "rack_right": self.rack_right, "advised": self.advised,
            "false_finds_per_100_photos": round(100 * self.false_finds / max(1, scores.photos), 1),
            "excused": self.excused,
            "jokers_coloured": self.jokers_coloured, "joker_colour_right": self.joker_colour_right,
            "missed": self.missed, "refused": self.refused, "false_finds": self.false_finds, "misread": self.misread,
            "sure_wrong_per_200_tiles": round(200 * self.sure_wrong / max(1, scores.labelled), 2),
            "right_unsure": self.right_unsure,
            "median_ms": round(scores.median_latency_ms, 1),
        }


def _rack_right(case: Case, result: ScanResult, of_found: dict[int, int]) -> bool:
    rack = result.layout.rack
    if case.rack is None or not any(case.counted[t] for t in case.rack):
        return rack is None
    if rack is None:
        return False
    mapped = {of_found.get(f, -1 - f) for f in rack}
    mapped = {t for t in mapped if t < 0 or case.counted[t]}
    return mapped == {t for t in case.rack if case.counted[t]}


# --- the photos --------------------------------------------------------------------------
def real_cases(photos_dir: Path, manifest: Path, limit: int | None, split: str = "val") -> list[Case]:
    from rummi.datasets.sessions import session_of

    photos = labelled_photos(photos_dir, holdout_filter(manifest, split))
    photos = sorted(photos, key=lambda p: session_of(p.image.name))
    if limit:
        photos = _spread(photos, limit)
    cases = []
    for photo in photos:
        session = session_of(photo.image.name)
        name = f"{session[0]}-{session[1]}"
        labels = [reader_class(t) for t in photo.tiles]
        outlines = [np.asarray(o, np.float32) for o in photo.outlines]
        if session in RACK_PHOTOS:
            sets, rack = [], list(range(len(labels)))
        else:
            sets, rack = _touching_chains(labels, outlines), None
        cases.append(Case(name, load_image(photo.image), labels, outlines, np.ones(len(labels), bool), sets, rack))
    return cases


def _touching_chains(labels: list[str], outlines: list[np.ndarray]) -> list[list[int]]:
    """The sets a table photo holds: chains of touching tiles the layout builds from the labels."""
    if not labels:
        return []
    quads = np.stack([portrait_order(cv2.boxPoints(cv2.minAreaRect(o))) for o in outlines])
    truth = TileDetections.from_corners(quads, np.ones(len(labels)))
    truth = truth.with_reads(truth.corners, labels, np.ones(len(labels)))
    return [s for s in lay_out(truth, "table").sets if len(s) >= MIN_SET_TILES]


def _spread(items: list, count: int) -> list:
    """``count`` items spread evenly over the list (every session keeps some)."""
    if count >= len(items):
        return items
    picks = np.linspace(0, len(items) - 1, count).round().astype(int)
    return [items[i] for i in sorted(set(picks.tolist()))]


def generated_cases(printing: str, count: int) -> Iterator[Case]:
    """Validation scenes of one print, rendered with drawn tiles only (no real tile pasted)."""
    from rummi.datasets.synth.render import render_scene

    made, index = 0, 0
    while made < count:
        # Each print on the same run of layouts: the classic and modern scenes are those this
        # benchmark rendered before the pressman print existed.
        rendered = render_scene(SCENE_SEED, index, pressman_share=float(printing == "pressman"))
        scene = rendered.scene
        index += 1
        if scene.meta["printing"] != printing:
            continue
        made += 1
        ok, data = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, int(scene.meta["jpeg_quality"])])
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else scene.image
        labels = [reader_class(t.notation) for t in scene.tiles]
        outlines = [np.asarray(t.quad, np.float32) for t in scene.tiles]
        counted = np.array([t.visible_fraction >= MIN_COUNTED_FRACTION for t in scene.tiles], bool)
        on_rack = [i for i, t in enumerate(scene.tiles) if t.on_rack]
        colours = {i: JOKER_COLOUR_OF[t.notation] for i, t in enumerate(scene.tiles) if t.notation in JOKER_COLOUR_OF}
        # Tiles too hidden (under a hand, a pad) or too cut by the frame to be labelled are still
        # tiles: a find on what shows of one is not counted either way (the benchmark's column
        # "excused" says how many). Only the pixels that show excuse a find: a box on the hand or
        # pad covering the rest is a phantom and counts as a false find.
        hidden = [j for j in range(len(rendered.placement_quads)) if j + 1 not in rendered.label_ids]
        shown = [(j, visible_outline(rendered.ids, j + 1)) for j in hidden]
        shown = [(j, outline) for j, outline in shown if outline is not None]
        labels += ["hidden"] * len(shown)
        outlines += [outline for _, outline in shown]
        counted = np.concatenate([counted, np.zeros(len(shown), bool)])
        yield Case(f"{scene.name}-{scene.meta['kind']}", image, labels, outlines, counted,
                   [list(s) for s in scene.sets], on_rack or None, colours)


def visible_outline(ids: np.ndarray, placement: int) -> np.ndarray | None:
    """The outline of the largest patch of ``placement``'s pixels that show in the photo (``ids``
    is the renderer's map of which placement each pixel shows), or None when none shows.

    A hidden tile is matched by what shows of it, never by its whole face: a find whose centre
    lies on the hand or pad covering the tile is a false find, not excused."""
    mask = (ids == placement).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    largest = max(contours, key=cv2.contourArea)
    if len(largest) < 3:
        return None
    return largest.reshape(-1, 2).astype(np.float32)


# --- the variants ------------------------------------------------------------------------
Variant = Callable[[Case], Case]


def _moved(case: Case, image: np.ndarray, matrix: np.ndarray) -> Case:
    """The case with its picture replaced and its outlines carried by a 3x3 ``matrix``."""
    outlines = [cv2.perspectiveTransform(o.reshape(-1, 1, 2), matrix).reshape(-1, 2) for o in case.outlines]
    return Case(case.name, image, case.labels, outlines, case.counted.copy(), case.sets, case.rack,
                case.joker_colours)


def _pixels(case: Case, image: np.ndarray) -> Case:
    return Case(case.name, image, case.labels, case.outlines, case.counted, case.sets, case.rack,
                case.joker_colours)


def rotated(quarters: int) -> Variant:
    codes = {1: cv2.ROTATE_90_CLOCKWISE, 2: cv2.ROTATE_180, 3: cv2.ROTATE_90_COUNTERCLOCKWISE}

    def turn(case: Case) -> Case:
        h, w = case.image.shape[:2]
        # pixel-edge coordinates; clockwise: (x, y) -> (h - y, x); 180: (w - x, h - y); 270: (y, w - x)
        matrices = {1: [[0, -1, h], [1, 0, 0], [0, 0, 1]], 2: [[-1, 0, w], [0, -1, h], [0, 0, 1]],
                    3: [[0, 1, 0], [-1, 0, w], [0, 0, 1]]}
        return _moved(case, cv2.rotate(case.image, codes[quarters]), np.array(matrices[quarters], np.float64))
    return turn


def resized_to(long_side: int) -> Variant:
    def resize(case: Case) -> Case:
        h, w = case.image.shape[:2]
        scale = long_side / max(h, w)
        size = (round(w * scale), round(h * scale))
        image = cv2.resize(case.image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)
        matrix = np.diag([size[0] / w, size[1] / h, 1.0])
        return _moved(case, image, matrix)
    return resize


def jpeg(quality: int) -> Variant:
    def compress(case: Case) -> Case:
        ok, data = cv2.imencode(".jpg", case.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return _pixels(case, cv2.imdecode(data, cv2.IMREAD_COLOR))
    return compress


def gamma(value: float) -> Variant:
    table = (255 * (np.arange(256) / 255.0) ** value).round().clip(0, 255).astype(np.uint8)
    return lambda case: _pixels(case, cv2.LUT(case.image, table))


def gains(blue: float, green: float, red: float) -> Variant:
    factors = np.array([blue, green, red], np.float32)
    return lambda case: _pixels(case, (case.image.astype(np.float32) * factors).round().clip(0, 255).astype(np.uint8))


def motion_blur(length: int) -> Variant:
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length  # a horizontal shake
    return lambda case: _pixels(case, cv2.filter2D(case.image, -1, kernel, borderType=cv2.BORDER_REFLECT))


def tilted(degrees: float, axis: str = "x", fov_degrees: float = 69.0) -> Variant:
    """The phone turned ``degrees`` about the photo's horizontal (``"x"``: the top recedes) or
    vertical (``"y"``: one side recedes) axis, seen through a lens of horizontal field of view
    ``fov_degrees`` (a phone's main lens: about 69), fitted back in the frame."""
    def tilt(case: Case) -> Case:
        h, w = case.image.shape[:2]
        matrix = tilt_matrix(w, h, degrees, axis, fov_degrees)
        frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32).reshape(-1, 1, 2)
        moved = cv2.perspectiveTransform(frame, matrix).reshape(-1, 2)
        matrix = fit_in_frame(moved, w, h) @ matrix
        image = cv2.warpPerspective(case.image, matrix, (w, h), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
        return _moved(case, image, matrix)
    return tilt


def cropped(share: float, left: float, top: float) -> Variant:
    """A window ``share`` of the photo's width and height whose top left corner lies at
    (``left``, ``top``) of the photo's width and height: a close-up, tiles 1/``share`` times as
    big in the frame. Tiles left with less than half their face inside are not counted."""
    def crop(case: Case) -> Case:
        h, w = case.image.shape[:2]
        cw, ch = int(w * share), int(h * share)
        x0, y0 = int(w * left), int(h * top)
        image = np.ascontiguousarray(case.image[y0:y0 + ch, x0:x0 + cw])
        moved = _moved(case, image, np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64))
        frame = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
        for i, outline in enumerate(moved.outlines):
            hull = cv2.convexHull(outline.astype(np.float32))
            area = abs(cv2.contourArea(hull))
            inside, _ = cv2.intersectConvexConvex(hull, frame)
            moved.counted[i] = area > 0 and inside >= MIN_COUNTED_FRACTION * area
        return moved
    return crop


#: The middle of the photo, half as wide and half as high (tiles twice as big).
cropped_half = cropped(0.5, 0.25, 0.25)


VARIANTS: dict[str, Variant] = {
    "original": lambda case: case,
    "rot-90": rotated(1),
    "rot-180": rotated(2),
    "rot-270": rotated(3),
    "640px": resized_to(640),
    "12MP": resized_to(4000),
    "jpeg-25": jpeg(25),
    "gamma-2.2": gamma(2.2),
    "brightness-40%": gains(0.4, 0.4, 0.4),
    "warm-cast": gains(0.55, 0.8, 1.0),
    "motion-blur-9px": motion_blur(9),
    "tilt-30": tilted(30.0),
    "crop-half": cropped_half,
    # Outside what the finder's training views cover (datasets/real_views.py: tilts of 15-40
    # degrees through 60-75 degree lenses, close-ups of 40-70 % of the photo anywhere in it),
    # since tilt-30 and crop-half lie inside it:
    "tilt-50-side-tele": tilted(50.0, axis="y", fov_degrees=45.0),
    "crop-third-off-centre": cropped(1 / 3, 0.6, 0.1),
}
#: Variants the finder's training views (datasets/real_views.py) copy: in distribution for the finder.
TRAINED_ON = {"tilt-30", "crop-half"}


# --- running -----------------------------------------------------------------------------
def run(scanner: Scanner, name: str, cases: Iterator[Case] | list[Case], total: int,
        variant: Variant = VARIANTS["original"]) -> dict:
    tally = Tally()
    started = time.perf_counter()
    for number, case in enumerate(cases, start=1):
        changed = variant(case)
        clock = time.perf_counter()
        # Expert names a joker by its colour, so the colour read can be checked; a tile is
        # right when its reader class (every joker J) is.
        result = scanner.scan(changed.image, edition="expert")
        tally.add(changed, result, (time.perf_counter() - clock) * 1000)
        print(f"\r  {name:<18} {number}/{total}  {time.perf_counter() - started:5.0f} s", end="",
              file=sys.stderr, flush=True)
    print(file=sys.stderr)
    row = tally.row(name)
    row["imperfect"] = tally.scores.imperfect
    return row


def print_causes(rows: list[dict]) -> None:
    """Which stage the errors come from: the finder (missed, false finds) or the reader (misreads)."""
    print("| variant | tiles | missed (finder) | false finds (finder) | refused as no tile (reader) "
          "| misread (reader) | joker colour right |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        colour = f"{r['joker_colour_right']}/{r['jokers_coloured']}" if r["jokers_coloured"] else "-"
        print(f"| {r['variant']} | {r['tiles']} | {r['missed']} | {r['false_finds']} | {r['refused']} "
              f"| {r['misread']} | {colour} |")


def print_table(rows: list[dict]) -> None:
    print("| variant | photos | precision | recall | F1 | photos perfect | sets rebuilt | rack right "
          "| false finds /100 photos | finds excused | sure wrong /200 tiles | right but flagged uncertain "
          "| told to retake | median scan ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        sets = f"{r['sets_rebuilt']}/{r['sets']}" + (f" ({r['sets_rebuilt'] / r['sets']:.0%})" if r["sets"] else "")
        name = r["variant"] + (" (in the finder's training views)" if r["variant"] in TRAINED_ON else "")
        print(f"| {name} | {r['photos']} | {r['precision']:.4f} | {r['recall']:.4f} | {r['f1']:.4f} "
              f"| {r['perfect']}/{r['photos']} ({r['perfect'] / max(1, r['photos']):.0%}) | {sets} "
              f"| {r['rack_right']}/{r['photos']} ({r['rack_right'] / max(1, r['photos']):.0%}) "
              f"| {r['false_finds_per_100_photos']} | {r.get('excused', 0)} | {r['sure_wrong_per_200_tiles']} "
              f"| {r.get('right_unsure', 0)}/{r['tiles']} "
              f"| {r.get('advised', 0)}/{r['photos']} | {r['median_ms']} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="real photos per variant (spread over sessions)")
    parser.add_argument("--scenes", type=int, default=40, help="generated scenes per print (0: none)")
    parser.add_argument("--variants", default=",".join(VARIANTS),
                        help=f"comma-separated, of: {', '.join(VARIANTS)}".replace("%", "%%"))  # argparse formats %
    parser.add_argument("--real", type=Path, default=default_real_photos(),
                        help="the shared labelled photos (default: $RUMMI_REAL_PHOTOS, else "
                             "../shared/datasets/rummikub-photos beside the checkout)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST, help="held-out split (rummi dataset real)")
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime threads per model (0: its default)")
    parser.add_argument("--causes", action="store_true",
                        help="also print missed / false finds / misreads per variant")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows as JSON")
    parser.add_argument("--single-look", action="store_true",
                        help="the finder's whole-photo look only, never a finer or coarser second look "
                             "(the finder before issue 15's second look, to compare)")
    parser.add_argument("--no-set-mates", action="store_true",
                        help="each tile's way up as the reader alone saw it, not weighed by its set-mates "
                             "(the scanner before issue 15's set-mates step, to compare)")
    parser.add_argument("--no-set-rules", action="store_true",
                        help="an unsure tile that breaks its set left as read, not re-read by the set's rules "
                             "(the scanner before vision/set_rules.py, to compare)")
    args = parser.parse_args()
    chosen = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in chosen if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; choose from {', '.join(VARIANTS)}")
    if not args.manifest.is_file() or not args.real.is_dir():
        parser.error(f"needs {args.manifest} (`rummi dataset real --out data/real`) and the photos at {args.real}")
    load = os.getloadavg()[0]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {load:.1f}, "
          f"Python {platform.python_version()}", file=sys.stderr)
    if args.scenes and (warning := missing_fonts_warning()):
        print(f"{warning}; the generated rows are not comparable with the README's", file=sys.stderr)
    scanner = Scanner.load(threads=args.threads or None)
    if args.single_look:
        scanner.finder.tile_px = None
    scanner.set_mates = not args.no_set_mates
    scanner.set_rules = not args.no_set_rules
    cases = real_cases(args.real, args.manifest, args.limit)
    print(f"{len(cases)} held-out real photos, {sum(int(c.counted.sum()) for c in cases)} tiles; "
          f"{args.scenes} generated scenes per print", file=sys.stderr)
    scanner.scan(cases[0].image)  # onnxruntime allocates on its first run
    rows = [run(scanner, name, cases, len(cases), VARIANTS[name]) for name in chosen]
    if args.scenes:
        for printing in PRINTS:
            rows.append(run(scanner, f"generated {printing}", generated_cases(printing, args.scenes), args.scenes))
    print_table(rows)
    if args.causes:
        print()
        print_causes(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
