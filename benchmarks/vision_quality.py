"""Where the blur and darkness checks (vision/photo_quality.py) should draw their lines.

    .venv/bin/python benchmarks/vision_quality.py --limit 40

On the real photos of the *training* sessions (never the held-out ones the robustness
benchmark scores), each also blurred and darkened as in ``benchmarks/vision_robustness.py``,
this prints per variant the spread of the two face measures (sharpness, plastic brightness;
medians over each photo's tiles) next to how well the photo reads: the lines go where reading
breaks down, with the sharp, well-lit originals clear of them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import vision_robustness as robustness  # noqa: E402
from rummi.vision.photo_quality import MIN_BRIGHTNESS, MIN_SHARPNESS  # noqa: E402
from rummi.vision.scanner import Scanner  # noqa: E402

VARIANTS = {
    "original": robustness.VARIANTS["original"],
    "motion-blur-5px": robustness.motion_blur(5),
    "motion-blur-9px": robustness.motion_blur(9),
    "motion-blur-15px": robustness.motion_blur(15),
    "gamma-2.2": robustness.gamma(2.2),
    "gamma-3.0": robustness.gamma(3.0),
    "brightness-40%": robustness.gains(0.4, 0.4, 0.4),
    "brightness-20%": robustness.gains(0.2, 0.2, 0.2),
    "640px": robustness.VARIANTS["640px"],
    "jpeg-25": robustness.VARIANTS["jpeg-25"],
    "warm-cast": robustness.VARIANTS["warm-cast"],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=40, help="training photos (spread over sessions)")
    parser.add_argument("--real", type=Path, default=robustness.default_real_photos())
    parser.add_argument("--manifest", type=Path, default=robustness.MANIFEST)
    args = parser.parse_args()
    scanner = Scanner.load()
    cases = [c for c in robustness.real_cases(args.real, args.manifest, None, split="train") if c.labels]
    cases = robustness._spread(cases, args.limit)
    print(f"{len(cases)} training photos with tiles; lines now: sharpness {MIN_SHARPNESS}, brightness {MIN_BRIGHTNESS}")
    print("| variant | sharpness p5 / p50 / p95 | brightness p5 / p50 / p95 | tiles read right | flagged |")
    print("|---|---|---|---|---|")
    for name, variant in VARIANTS.items():
        sharp, bright, right, total, flagged = [], [], 0, 0, 0
        for case in cases:
            changed = variant(case)
            result = scanner.scan(changed.image)
            quality = result.quality
            if not np.isnan(quality.sharpness):
                sharp.append(quality.sharpness)
                bright.append(quality.brightness)
            flagged += bool(quality.advice)
            partner = robustness.match_indices(result.found.centers, changed.outlines)
            right += sum(result.found.labels[f] == changed.labels[t] for t, f in partner.items())
            total += len(changed.labels)
        s5, s50, s95 = np.nanpercentile(sharp, [5, 50, 95])
        b5, b50, b95 = np.percentile(bright, [5, 50, 95])
        print(f"| {name} | {s5:.2f} / {s50:.2f} / {s95:.2f} | {b5:.0f} / {b50:.0f} / {b95:.0f} "
              f"| {right / total:.3f} | {flagged}/{len(cases)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
