"""Keep ultralytics offline and inside the project before it is imported.

ultralytics phones home at import (DNS check, version check, telemetry), pip-installs what it
misses, and downloads Arial.ttf for every dataset check. None of that may happen here: the
machines have no internet, and a run must not depend on it. So, before the first import:

* ``YOLO_OFFLINE=1``, ``YOLO_AUTOINSTALL=0``: no network, no installs.
* ``YOLO_CONFIG_DIR`` points into the user's cache folder (``~/.cache/rummi/yolo``), with a
  local TTF copied to the two font names it looks up.
* Runs go to ``runs/`` in the folder the training was started in (:func:`runs_dir`), never
  beside the code, which may be a read-only site-packages.
* torch's thread count is set explicitly (ultralytics would take cores - 1 = 1 here).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

FONT_CANDIDATES = (
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"),
)
FONT_NAMES = ("Arial.ttf", "Arial.Unicode.ttf")


def runs_dir() -> Path:
    """Where ultralytics writes its runs: ``runs/`` in the current folder (git-ignored)."""
    return Path.cwd() / "runs"


def prepare_ultralytics(threads: int = 1) -> Any:
    """Set the environment, import ultralytics and return the module."""
    from rummi.places import cache_dir

    config_dir = cache_dir() / "yolo"
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    font_dir = config_dir / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    source = next((f for f in FONT_CANDIDATES if f.is_file()), None)
    if source is None:
        try:
            import matplotlib

            source = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        except ImportError:
            raise RuntimeError("no TTF font found for ultralytics; install fonts-dejavu-core") from None
    for name in FONT_NAMES:
        if not (font_dir / name).exists():
            shutil.copyfile(source, font_dir / name)

    import torch

    torch.set_num_threads(threads)
    import ultralytics
    from ultralytics.utils import SETTINGS, torch_utils

    torch_utils.NUM_THREADS = threads
    SETTINGS.update({"sync": False})
    return ultralytics
