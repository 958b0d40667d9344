"""`rummi dataset check DIR`: is a dataset folder fit to train on?

Counts (images per split, labels per class, crops per class) and problems that would silently
spoil training: a label line that does not parse, a class id out of range, a box outside the
image (ultralytics drops the whole image's labels for one), an image without its label file or
the reverse, the same image in train and val (by content hash), a real photo session whose
train and val numbers interleave.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rummi.datasets.errors import DatasetError
from rummi.datasets.writer import DETECT_VARIANTS, SPLITS

#: Normalised coordinates may overshoot by rounding; beyond this a box is outside the image.
_EPS = 1e-4
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass
class CheckReport:
    root: Path
    images: dict[str, dict[str, int]] = field(default_factory=dict)  # variant -> split -> n
    boxes: dict[str, dict[str, int]] = field(default_factory=dict)  # variant -> split -> n
    class_counts: dict[str, dict[str, int]] = field(default_factory=dict)  # split -> class -> n
    crop_counts: dict[str, dict[str, int]] = field(default_factory=dict)  # split -> class -> n
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"root": str(self.root), "images": self.images, "boxes": self.boxes,
                "class_counts": self.class_counts, "crop_counts": self.crop_counts,
                "problems": self.problems}

    def text(self) -> str:
        lines = [f"dataset {self.root}"]
        for variant, per_split in self.images.items():
            parts = ", ".join(f"{s} {n} images / {self.boxes[variant].get(s, 0)} boxes"
                              for s, n in per_split.items())
            lines.append(f"  {variant:<9} {parts}")
        for title, counts in (("labels per class", self.class_counts), ("crops per class", self.crop_counts)):
            for split, per_class in counts.items():
                if per_class:
                    low = min(per_class.values())
                    listing = " ".join(f"{c}:{n}" for c, n in per_class.items())
                    lines.append(f"  {title} ({split}, fewest {low}): {listing}")
        lines.append(f"  problems: {len(self.problems)}")
        lines.extend(f"    - {p}" for p in self.problems[:50])
        if len(self.problems) > 50:
            lines.append(f"    ... and {len(self.problems) - 50} more")
        return "\n".join(lines)


def check_dataset(root: Path) -> CheckReport:
    """Check a folder written by ``rummi dataset real|synth``; raises DatasetError if it is none."""
    root = Path(root)
    if not root.is_dir():
        raise DatasetError(f"{root}: no such folder")
    present = [v for v in DETECT_VARIANTS if (root / v / "images").is_dir()]
    if not present:
        raise DatasetError(f"{root}: not a dataset folder (no detect/, obb/ ... with images/ inside)")
    report = CheckReport(root)
    for variant in present:
        _check_variant(root / variant, variant, report)
    _check_duplicates(root / present[0], report)
    _check_crops(root / "crops", report)
    _check_sessions(root, report)
    return report


def _check_variant(folder: Path, variant: str, report: CheckReport) -> None:
    kind, classes = DETECT_VARIANTS[variant]
    values_per_line = 5 if kind == "axis" else 9
    report.images[variant], report.boxes[variant] = {}, {}
    for split in SPLITS:
        images = {p.stem: p for p in (folder / "images" / split).glob("*") if p.suffix.lower() in IMAGE_SUFFIXES}
        labels = {p.stem: p for p in (folder / "labels" / split).glob("*.txt")}
        report.images[variant][split] = len(images)
        for stem in sorted(set(images) - set(labels)):
            report.problems.append(f"{variant}/images/{split}/{images[stem].name}: no label file")
        for stem in sorted(set(labels) - set(images)):
            report.problems.append(f"{variant}/labels/{split}/{stem}.txt: no image")
        counts: Counter[str] = Counter()
        for _stem, label in sorted(labels.items()):
            counts.update(_check_label_file(label, f"{variant}/labels/{split}/{label.name}", values_per_line,
                                            classes, report))
        report.boxes[variant][split] = sum(counts.values())
        if len(classes) > 1 and kind == "axis":
            report.class_counts[split] = {c: counts.get(c, 0) for c in classes}


def _check_label_file(path: Path, where: str, values_per_line: int, classes: tuple[str, ...],
                      report: CheckReport) -> Counter[str]:
    counts: Counter[str] = Counter()
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        place = f"{where} line {number}"
        parts = line.split()
        if len(parts) != values_per_line:
            report.problems.append(f"{place}: {len(parts)} values, expected {values_per_line}")
            continue
        try:
            class_id = int(parts[0])
            values = [float(v) for v in parts[1:]]
        except ValueError:
            report.problems.append(f"{place}: not numbers: {line.strip()!r}")
            continue
        if not all(math.isfinite(v) for v in values):  # float() reads nan and inf
            report.problems.append(f"{place}: not finite: {line.strip()!r}")
            continue
        if not 0 <= class_id < len(classes):
            report.problems.append(f"{place}: class {class_id} outside 0..{len(classes) - 1}")
            continue
        if values_per_line == 5:
            cx, cy, w, h = values
            x0, y0, x1, y1 = cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2
            if w <= 0 or h <= 0:
                report.problems.append(f"{place}: empty box (w={w}, h={h})")
        else:
            xs, ys = values[0::2], values[1::2]
            x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
            if x1 - x0 <= 0 or y1 - y0 <= 0:
                report.problems.append(f"{place}: degenerate oriented box")
        if x0 < -_EPS or y0 < -_EPS or x1 > 1 + _EPS or y1 > 1 + _EPS:
            report.problems.append(f"{place}: box outside the image ({x0:.3f},{y0:.3f})-({x1:.3f},{y1:.3f})")
        counts[classes[class_id]] += 1
    return counts


def _check_duplicates(folder: Path, report: CheckReport) -> None:
    seen: dict[str, tuple[str, str]] = {}
    for split in SPLITS:
        for image in sorted((folder / "images" / split).glob("*")):
            digest = hashlib.sha1(image.read_bytes()).hexdigest()
            if digest in seen and seen[digest][0] != split:
                report.problems.append(
                    f"same image in {seen[digest][0]} and {split}: {seen[digest][1]} = {image.name}")
            seen.setdefault(digest, (split, image.name))


def _check_crops(folder: Path, report: CheckReport) -> None:
    if not folder.is_dir():
        return
    for split in SPLITS:
        per_class = {d.name: sum(1 for _ in d.glob("*.jpg")) for d in sorted((folder / split).glob("*"))
                     if d.is_dir()}
        report.crop_counts[split] = per_class


def _check_sessions(root: Path, report: CheckReport) -> None:
    """Real photos: no session may have a train number at or beyond its val block's start."""
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        report.problems.append("manifest.json missing")
        return
    try:
        manifest = json.loads(manifest_path.read_text())
    except json.JSONDecodeError as error:
        report.problems.append(f"manifest.json unreadable: {error}")
        return
    numbers: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for scene in manifest.get("scenes", []):
        if "session" in scene and "number" in scene:
            numbers[scene["session"]][scene["split"]].append(int(scene["number"]))
    for session, sides in sorted(numbers.items()):
        if sides.get("train") and sides.get("val") and max(sides["train"]) >= min(sides["val"]):
            report.problems.append(
                f"session {session!r}: train numbers reach {max(sides['train'])}, val starts at "
                f"{min(sides['val'])}: near-identical photos on both sides")
