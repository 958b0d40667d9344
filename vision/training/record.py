"""What a training run leaves next to its ONNX file: ``training.json``, the facts a model card cites.

Written by the code that trained, never by hand, so the card's command, seed, epochs, time and
machine are the ones that produced the weights.
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
        (Path(folder) / "training.json").write_text(json.dumps(asdict(self), indent=1) + "\n")


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
