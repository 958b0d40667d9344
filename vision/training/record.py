"""What a training run leaves next to its ONNX file: ``training.json``, the facts a model card cites.

Written by the code that trained, never by hand, so the card's command, seed, epochs, time and
machine are the ones that produced the weights. Paths inside the checkout are written relative
to it (``data/real/crops``, not the training machine's ``/home/...``), so the record reads the
same in every clone.
"""

from __future__ import annotations

import json
import os
import platform
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class TrainingRecord:
    model: str
    command: str
    data: str
    seed: int
    epochs: int
    imgsz: int | list[int]
    architecture: str
    train_seconds: int
    machine: str
    metrics: dict[str, Any] = field(default_factory=dict)

    def save(self, folder: Path) -> None:
        record = asdict(self)
        record["command"], record["data"] = project_relative(self.command), project_relative(self.data)
        (Path(folder) / "training.json").write_text(json.dumps(record, indent=1) + "\n")


def project_relative(text: str, root: Path | None = None) -> str:
    """``text`` with every absolute path inside the checkout (``root``) made relative to it."""
    root = Path(root) if root is not None else Path(__file__).resolve().parents[2]
    prefix = str(root.resolve()).rstrip("/") + "/"
    return text.replace(prefix, "")


def machine_description(threads: int) -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores (shared), {threads} torch thread(s), no GPU, {platform.system()}"
