"""The parts depend one way: api -> vision -> engine. These tests read every import statement
(local imports inside functions too) so a shortcut across the layers fails here, not in review.

* engine/ is pure game logic: it imports nothing of vision, api or datasets;
* vision/ runs on the runtime install: torch and ultralytics only under vision/training/;
* api/ never imports torch (training is reached through vision.training, lazily).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def layer_of(module: str) -> str:
    """The part a module belongs to: ``rummi.vision.finder`` -> ``vision``, ``torch.nn`` -> ``torch``."""
    parts = module.split(".")
    if parts[0] == "rummi" and len(parts) > 1:
        return parts[1]
    return parts[0]


def imported_packages(path: Path) -> set[str]:
    """The layer of every module a file imports (relative imports excluded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(layer_of(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == "rummi":
                found.update(alias.name for alias in node.names)
            else:
                found.add(layer_of(node.module))
    return found


def offenders(folder: str, forbidden: set[str], skip: str | None = None) -> dict[str, set[str]]:
    bad: dict[str, set[str]] = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if skip and relative.startswith(skip):
            continue
        wrong = imported_packages(path) & forbidden
        if wrong:
            bad[relative] = wrong
    return bad


@pytest.mark.parametrize(
    ("folder", "forbidden", "skip"),
    [
        ("engine", {"vision", "api", "datasets", "models"}, None),
        ("vision", {"torch", "torchvision", "ultralytics", "api"}, "vision/training/"),
        ("api", {"torch", "torchvision", "ultralytics"}, None),
    ],
)
def test_imports_point_one_way(folder: str, forbidden: set[str], skip: str | None) -> None:
    assert offenders(folder, forbidden, skip) == {}


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    source = tmp_path / "lazy.py"
    source.write_text(
        "def train():\n    import torch.nn\n    from ultralytics import YOLO\n"
        "    from rummi.api.cli import main\n    from rummi import models\n"
    )
    assert imported_packages(source) == {"torch", "ultralytics", "api", "models"}


def engine_import_graph() -> dict[str, set[str]]:
    """Which engine module imports which (lazy imports inside functions count too)."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / "engine").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(("rummi", *parts[:-1])) if parts[-1] == "__init__" else ".".join(("rummi", *parts))
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rummi.engine"):
                targets.add(node.module)
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.startswith("rummi.engine"))
        graph[name] = targets - {name}
    return graph


def test_engine_modules_import_no_circle() -> None:
    """tiles <- editions <- notation, readings <- melds <- twist: each layer only looks down.

    A package's ``__init__`` re-exporting its modules is not a circle, so imports of a package
    itself are skipped.
    """
    graph = engine_import_graph()
    packages = {n for n in graph if (ROOT / Path(*n.split(".")[1:]) / "__init__.py").exists()}
    edges = {n: {t for t in targets if t not in packages and t in graph} for n, targets in graph.items()}
    done: set[str] = set()

    def visit(node: str, trail: list[str]) -> None:
        if node in trail:
            raise AssertionError("import circle: " + " -> ".join([*trail[trail.index(node):], node]))
        if node in done:
            return
        for target in sorted(edges.get(node, ())):
            visit(target, [*trail, node])
        done.add(node)

    for module in sorted(edges):
        visit(module, [])
