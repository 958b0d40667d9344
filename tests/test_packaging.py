"""The package as a user installs it: the built wheel in a fresh virtual environment
(benchmarks/fresh_install.py), every command run from a folder outside the checkout."""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import signal
import site
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from benchmarks.fresh_install import build_wheel, install_fresh, user_env

ROOT = Path(__file__).resolve().parents[1]
PHOTO = ROOT / "tests" / "data" / "photos" / "table-wood.jpg"
SHIPPED = ("engine", "vision", "api", "datasets", "models")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv holding the wheel; returns its folder."""
    return install_fresh(wheel, tmp_path_factory.mktemp("fresh") / "venv")


@pytest.fixture()
def elsewhere(tmp_path: Path) -> Path:
    folder = tmp_path / "somewhere-else"
    folder.mkdir()
    return folder


def run(installed: Path, cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(installed / "bin" / "rummi"), *args],
        cwd=cwd, capture_output=True, text=True, timeout=120, env=user_env(cwd.parent, **(env or {})),
    )


def test_the_wheel_installs_exactly_one_top_level_package(wheel: Path, installed: Path) -> None:
    record = next(installed.glob("lib/python*/site-packages/rummi-*.dist-info/RECORD")).read_text()
    tops = {line.split("/")[0] for line in record.splitlines() if line and not line.startswith("../")}
    assert tops == {"rummi", f"rummi-{importlib.metadata.version('rummi')}.dist-info"}
    assert not {"api", "engine", "vision", "datasets", "models"} & {
        p.name for p in installed.glob("lib/python*/site-packages/*")
    }


def test_every_command_runs_from_another_folder(installed: Path, elsewhere: Path) -> None:
    import rummi

    version = run(installed, elsewhere, "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"rummi {rummi.__version__}"
    assert run(installed, elsewhere, "--help").returncode == 0

    valid = run(installed, elsewhere, "validate", "r5 r6 r7 | k9 b9 o9", "--json")
    assert valid.returncode == 0 and json.loads(valid.stdout)["sets"][0]["tiles"] == ["r5", "r6", "r7"]

    hint = run(installed, elsewhere, "hint", "--table", "r5 r6 r7", "--rack", "r8 k1", "--opened", "--json",
               env={"RUMMI_SOLVER_COMPILE": "never"})
    assert hint.returncode == 0 and json.loads(hint.stdout)["play"] == ["r8"]

    referee = run(installed, elsewhere, "referee", "--before", "r5 r6 r7", "--after", "r5 r6 r7 r8", "--opened")
    assert referee.returncode == 0 and "legal" in referee.stdout
    score = run(installed, elsewhere, "score", "--winner", "A", "--rack", "B=r4 b8")
    assert score.returncode == 0 and "-12" in score.stdout

    scan = run(installed, elsewhere, "scan", str(PHOTO), "--json")
    assert scan.returncode == 0, scan.stderr
    assert len(json.loads(scan.stdout)["tiles"]) > 10

    game = run(installed, elsewhere, "game", "new", "--players", "Ann", "Bob")
    assert game.returncode == 0, game.stderr
    game_id = game.stdout.strip()
    turn = run(installed, elsewhere, "game", "turn", game_id, "--after", "k10 b10 r10")
    assert turn.returncode == 0, turn.stderr
    assert (elsewhere.parent / "data").is_dir()  # the database went to the user's data folder

    train = run(installed, elsewhere, "train", "reader", "--data", str(elsewhere))
    assert train.returncode == 2
    for result in (version, valid, hint, referee, score, scan, game, turn, train):
        assert "Traceback" not in result.stderr
    assert list(elsewhere.iterdir()) == []  # nothing written where the commands ran


def test_the_first_hint_says_once_that_it_prepares_the_solver(installed: Path, elsewhere: Path) -> None:
    first = run(installed, elsewhere, "hint", "--table", "r5 r6 r7", "--rack", "r8", "--opened")
    marker = next((elsewhere.parent / "cache" / "numba").glob("*.compiling"))
    try:
        assert first.returncode == 0 and "play r8" in first.stdout
        assert "preparing the fast hint solver" in first.stderr
        second = run(installed, elsewhere, "hint", "--table", "r5 r6 r7", "--rack", "r8", "--opened")
        assert second.returncode == 0 and "preparing" not in second.stderr  # one compile, said once
    finally:
        try:
            os.killpg(int(marker.read_text()), signal.SIGTERM)  # the background compile
        except (ProcessLookupError, ValueError, FileNotFoundError):
            pass


def test_the_service_starts_from_another_folder(installed: Path, elsewhere: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = user_env(elsewhere.parent)
    server = subprocess.Popen(
        [str(installed / "bin" / "rummi"), "serve", "--port", str(port), "--log-level", "warning"],
        cwd=elsewhere, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "the service did not start"
                time.sleep(0.3)
        assert health.status_code == 200
        page = httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
        assert page.status_code == 200 and "<html" in page.text.lower()
        assert list(elsewhere.iterdir()) == []
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)


def _third_party_imports(folder: Path) -> dict[str, set[str]]:
    """Top-level modules imported by the shipped code (lazy imports too), by file."""
    found: dict[str, set[str]] = {}
    local = {"rummi", "__future__"} | set(sys.stdlib_module_names)
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top not in local:
                    found.setdefault(top, set()).add(path.relative_to(ROOT).as_posix())
    return found


def _declared(extra: str | None = None) -> set[str]:
    """Distribution names that ``pip install rummi`` (or ``rummi[extra]``) brings."""
    names = set()
    for requirement in importlib.metadata.requires("rummi") or []:
        spec, _, marker = requirement.partition(";")
        if ("extra" in marker) != (extra is not None) or (extra and f'"{extra}"' not in marker):
            continue
        name = spec.split("[")[0]
        for stop in "<>=!~ ":
            name = name.split(stop)[0]
        names.add(name.strip().lower().replace("_", "-"))
    return names


def test_every_import_of_the_shipped_code_is_a_declared_dependency() -> None:
    """Training code may import the ``train`` extra; everything else only the runtime set."""
    providers = importlib.metadata.packages_distributions()
    runtime, train = _declared(), _declared("train")
    missing: dict[str, set[str]] = {}
    for folder in SHIPPED:
        for module, files in _third_party_imports(ROOT / folder).items():
            dists = {d.lower().replace("_", "-") for d in providers.get(module, [module])}
            allowed = runtime | train if all(f.startswith("vision/training/") for f in files) else runtime
            if files == {"api/storage/database.py"}:  # PostgreSQL: an extra, named in its error
                allowed = runtime | _declared("postgres")
            if not dists & allowed:
                missing[module] = files
    assert missing == {}


def test_site_packages_of_this_environment_is_not_where_data_goes() -> None:
    from rummi import places

    assert not str(places.data_dir()).startswith(tuple(site.getsitepackages()))
