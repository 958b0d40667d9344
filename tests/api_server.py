"""A real `rummi serve` on a free localhost port, for the API, schema and browser tests.

tests/conftest.py loads this module as a plugin, so any test may ask for ``api_server`` (or
``api_server_postgres``). They are session-scoped: every test module shares one server. It runs
in its own process exactly as a user starts it, with its database and corrections folder in a
temporary directory, and is stopped at the end of the session.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
#: How long the server may take to answer its first health check (models load lazily).
START_TIMEOUT_S = 60


@dataclass(frozen=True)
class Server:
    url: str
    workdir: Path
    process: subprocess.Popen
    token: str | None = None
    verify: object = True

    @property
    def corrections_dir(self) -> Path:
        return self.workdir / "corrections"

    @property
    def port(self) -> int:
        return int(self.url.rpartition(":")[2])

    @property
    def log(self) -> str:
        return (self.workdir / "server.log").read_text()

    def client(self, timeout: float = 60.0, token: str | None = None) -> httpx.Client:
        """A client that sends the server's token (or ``token``) as the Bearer header."""
        token = token or self.token
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, timeout=timeout, headers=headers, verify=self.verify)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serving(
    workdir: Path,
    database_url: str,
    *args: str,
    token: str | None = None,
    scheme: str = "http",
    verify: object = True,
    port: int | None = None,
    **settings: str,
) -> Iterator[Server]:
    """`rummi serve` in a subprocess, games in ``database_url``, stopped when the block ends.

    ``args`` are more command-line options (``"--host", "0.0.0.0"``); ``token`` is what the
    returned server's clients send; ``settings`` are more ``RUMMI_*`` variables, e.g.
    ``RUMMI_MAX_JSON_BYTES="1000"``. Its data folder (``RUMMI_DATA_DIR``) is ``workdir/data``.
    """
    port = port or free_port()
    env = {
        **os.environ,
        "RUMMI_DATABASE_URL": database_url,
        "RUMMI_CORRECTIONS_DIR": str(workdir / "corrections"),
        "RUMMI_DATA_DIR": str(workdir / "data"),
        "PYTHONUNBUFFERED": "1",
        **settings,
    }
    log_path = workdir / "server.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "rummi.api.cli", "serve", "--port", str(port), "--log-level", "warning", *args],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"{scheme}://127.0.0.1:{port}"
        try:
            _wait_until_up(url, process, log_path)
            yield Server(url=url, workdir=workdir, process=process, token=token, verify=verify)
        finally:
            stop(process)


def serving_with_token(workdir: Path, token: str) -> contextlib.AbstractContextManager[Server]:
    """`serving` as at a venue: on every address (the tests still talk to 127.0.0.1), with the
    organiser's ``token``, which the returned server's clients send; games in SQLite there."""
    return serving(workdir, f"sqlite:///{workdir / 'g.db'}", "--host", "0.0.0.0", "--token", token, token=token)


def stop(process: subprocess.Popen) -> None:
    """Stop a server process: SIGTERM, then SIGKILL if it is still there after 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def api_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The service with its games in a SQLite file (the default set-up)."""
    workdir = tmp_path_factory.mktemp("rummi-serve")
    with serving(workdir, f"sqlite:///{workdir / 'games.db'}") as server:
        yield server


def postgres_admin_url() -> str:
    """The test server's URL (``RUMMI_TEST_POSTGRES_URL``); skips or fails the test without one."""
    admin_url = os.environ.get("RUMMI_TEST_POSTGRES_URL")
    if not admin_url:
        if os.environ.get("RUMMI_SKIP_POSTGRES") == "1":
            pytest.skip("RUMMI_SKIP_POSTGRES=1")
        pytest.fail(
            "RUMMI_TEST_POSTGRES_URL is not set: run scripts/run-tests.sh, or set RUMMI_SKIP_POSTGRES=1"
        )
    return admin_url


@contextlib.contextmanager
def fresh_postgres_database() -> Iterator[str]:
    """The URL of a new, empty database on the test server, dropped afterwards."""
    import psycopg

    admin_url = postgres_admin_url()
    name = f"rummi_api_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{admin_url.rpartition('/')[0]}/{name}"
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def api_server_postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The service with its games in a fresh PostgreSQL database on the test server
    (``RUMMI_TEST_POSTGRES_URL``, started by scripts/run-tests.sh)."""
    with fresh_postgres_database() as url:
        workdir = tmp_path_factory.mktemp("rummi-serve-pg")
        with serving(workdir, url) as server:
            yield server


def _wait_until_up(url: str, process: subprocess.Popen, log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"rummi serve exited with {process.returncode}:\n{log_path.read_text()}")
        try:
            if httpx.get(f"{url}/api/v1/health", timeout=2, verify=False).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"rummi serve did not answer within {START_TIMEOUT_S} s:\n{log_path.read_text()}")
