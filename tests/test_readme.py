"""Every command the README shows runs as written.

Lines in ``console`` blocks (``$ rummi ...``) are run for real from the repository root, with the
user's folders in a temporary place: each must exit 0 or 1 (1 is a negative verdict, which the
README shows on purpose) with no traceback. Commands in ``sh`` blocks that take long or need
the training extra (datasets, training, the server) are checked by the parser only: every
sub-command and flag they use exists.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from rummi.api.cli import build_parser

from benchmarks.fresh_install import user_env

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
RUMMI = ROOT / ".venv" / "bin" / "rummi"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def _commands(text: str, prompt: str) -> list[str]:
    found = []
    for line in text.splitlines():
        line = line.strip()
        if prompt and not line.startswith(prompt):
            continue
        line = line.removeprefix(prompt).strip()
        line = re.split(r"\s+#\s", line)[0].strip()  # drop a trailing comment
        if re.match(r"^(\.venv(-train)?/bin/)?rummi\b", line):
            found.append(line)
    return found


CONSOLE = [c for block in _blocks("console") for c in _commands(block, "$ ")]
SHELL = [c for block in _blocks("sh") for c in _commands(block, "")]


def test_the_readme_shows_commands() -> None:
    assert len(CONSOLE) >= 6 and SHELL


@pytest.mark.parametrize("command", CONSOLE)
def test_console_command_runs_as_written(command: str, tmp_path: Path) -> None:
    words = shlex.split(command)
    if words[1] == "serve":
        pytest.skip("the server runs until stopped: tests/test_packaging.py starts it")
    result = subprocess.run(
        [str(RUMMI), *words[1:]], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env=user_env(tmp_path, RUMMI_SOLVER_COMPILE="never"),
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        if word.endswith((".png", ".mp4")) and "--draw" in words:
            (ROOT / word).unlink(missing_ok=True)  # an annotated copy the example asked for


@pytest.mark.parametrize("command", SHELL)
def test_shell_command_parses(command: str) -> None:
    words = shlex.split(command)
    if words[1:] in (["--version"], ["--help"]):
        with pytest.raises(SystemExit) as done:
            build_parser().parse_args(words[1:])
        assert done.value.code == 0
    else:
        build_parser().parse_args(words[1:])
