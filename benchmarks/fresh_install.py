"""A fresh install of the built wheel, as a user gets it: shared by tests/test_packaging.py and
benchmarks/startup.py.

The fresh environment gets the wheel and nothing else of the checkout. Its third-party
dependencies come from the running environment's site-packages through a ``.pth`` line, which
adds that folder to ``sys.path`` without running its ``.pth`` files: the checkout's editable
install stays out, so ``import rummi`` can only find the wheel's copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_wheel(out: Path) -> Path:
    """Build rummi's wheel into ``out`` (from a copy of the tree, so no build/ lands in it)."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "src"
        shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
            ".git", ".venv*", "data", "runs", "trained", "build", "*.egg-info", "__pycache__", "node_modules"))
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(source)],
            check=True, capture_output=True,
        )
    (built,) = out.glob("rummi-*.whl")
    return built


def install_fresh(wheel: Path, env_dir: Path) -> Path:
    """A new venv at ``env_dir`` holding only ``wheel`` (dependencies borrowed, see above)."""
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True, capture_output=True,
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    (Path(purelib) / "_borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return env_dir


def user_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user whose data and cache folders are under ``home`` (both empty)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "RUMMI_", "PYTHON"))}
    return env | {"RUMMI_DATA_DIR": str(home / "data"), "RUMMI_CACHE_DIR": str(home / "cache")} | extra
