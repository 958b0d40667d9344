"""Write a model folder's MODEL_CARD.md from the facts the run recorded.

``training.json`` (written by the training code) gives data, command, seed, epochs, time and
machine; ``--eval`` takes the JSON of ``rummi eval ... --json`` on the held-out real photos.
The prose (what the model is for, its limits) comes from ``--notes``, a Markdown file.

    python -m vision.training.model_card models/tile-reader --eval eval.json --notes notes.md
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

CREDIT = (
    "The real photos are from Roboflow Universe `rummikue/rummikub-nvypk-8cwem` v1, a copy of "
    "`jonasbuehler/rummikub-nvypk` by Jonas Bühler, licensed CC BY 4.0 "
    "(https://creativecommons.org/licenses/by/4.0/). These weights were trained on them."
)
#: The licence of each model's weights, by how it was trained (``training.json``'s ``model``).
LICENCES = {
    "tile-finder": (
        "**AGPL-3.0.** These weights were trained with ultralytics, which is AGPL-3.0 and says that "
        "models trained with it fall under the AGPL-3.0 too (an Ultralytics Enterprise licence "
        "aside; none covers these). So this `model.onnx` is AGPL-3.0, not MIT like the project's "
        "code, and shipping it, or serving it over a network, brings the AGPL-3.0's duties with it."
    ),
    "tile-reader": (
        "**MIT**, like the project's code. These weights were trained by the project's own torch "
        "code (`vision/training/reader.py`, a network defined there); no ultralytics code, "
        "architecture or weights went into them, so the AGPL-3.0 of ultralytics (which covers "
        "the tile-finder) does not reach this model."
    ),
}


def _start(data: str) -> str:
    """Where the weights started: a reader run given ``--init`` writes "started from ..." into
    its data (vision/training/reader.py), and its card must not say "from scratch"."""
    if "started from" in data:
        return "fine-tuned from this project's own earlier weights named under Data (no downloaded weights)"
    return "from scratch (no pretrained weights)"


def render(folder: Path, evaluation: dict | None, notes: str) -> str:
    record = json.loads((folder / "training.json").read_text())
    meta = json.loads((folder / "model.json").read_text())
    size_mb = (folder / "model.onnx").stat().st_size / 1e6
    metrics = {k: v for k, v in record["metrics"].items() if k != "history"}
    lines = [
        f"# {record['model']}",
        "",
        notes.strip(),
        "",
        "## Files",
        "",
        f"- `model.onnx` ({size_mb:.1f} MB), run with onnxruntime; `model.json`: {', '.join(sorted(meta))}.",
        "- `training.json`: the record the training run wrote (command, seed, time, metrics per epoch).",
        "",
        "## How it was made",
        "",
        f"- Data: `{record['data']}`",
        f"- Command: `{record['command']}`",
        f"- Architecture: {record['architecture']}, input {record['imgsz']}, {_start(record['data'])}",
        f"- Seed {record['seed']}, {record['epochs']} epochs, {record['train_seconds'] / 60:.0f} minutes of training",
        f"- Machine: {record['machine']}",
        "",
        "## Metrics",
        "",
        "Recorded by the training run on the val split of its data (the real photos held out by shooting "
        "session: per file-name prefix the highest-numbered 20%, see `data/real/manifest.json`; for a "
        "model trained on several folders, their val splits together):",
        "",
    ]
    lines += [f"- {key}: {value}" for key, value in metrics.items()]
    if evaluation:
        lines += [
            "",
            "Whole pipeline (`rummi eval` on the same held-out real photos, this model with the other shipped one):",
            "",
            f"- photos: {evaluation['photos']}, tiles: {evaluation['tiles_labelled']}",
            f"- tile read precision {evaluation['precision']}, recall {evaluation['recall']}",
            f"- photos read perfectly: {evaluation['perfect_photos']}/{evaluation['photos']} "
            f"({evaluation['perfect_share']:.1%})",
            f"- median latency per photo: {evaluation['median_latency_ms']} ms (measured on the shared 2-core "
            "machine while other jobs ran; `benchmarks/vision.py` gives the latency figure)",
        ]
    lines += ["", "## Licence", "", LICENCES[record["model"]], "", "## Credit", "", CREDIT, ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--eval", type=Path)
    parser.add_argument("--notes", type=Path, required=True)
    args = parser.parse_args()
    evaluation = json.loads(args.eval.read_text()) if args.eval else None
    text = render(args.folder, evaluation, args.notes.read_text())
    (args.folder / "MODEL_CARD.md").write_text(text)
    print(f"wrote {args.folder / 'MODEL_CARD.md'}")


if __name__ == "__main__":
    main()
