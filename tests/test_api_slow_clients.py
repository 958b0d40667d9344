"""Slow and stalled clients over real sockets: headers that never finish, a body that stops,
a crowd of idle connections; and scans that never hold up a hint."""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.api_server import DATA, Server, serving


@pytest.fixture(scope="module")
def impatient(tmp_path_factory: pytest.TempPathFactory) -> Server:
    workdir = tmp_path_factory.mktemp("rummi-impatient")
    with serving(workdir, f"sqlite:///{workdir / 'g.db'}", RUMMI_HEADER_TIMEOUT_S="1", RUMMI_BODY_IDLE_TIMEOUT_S="1",
                 RUMMI_BODY_TIMEOUT_S="3", RUMMI_MAX_CONNECTIONS="20", RUMMI_KEEP_ALIVE_S="1") as server:
        yield server


def connect(server: Server) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    return sock


def closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """Whether the server closes the connection within ``seconds`` (and what it said first)."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except TimeoutError:
        return False, received
    except ConnectionResetError:
        pass
    return True, received


def test_headers_that_stall_are_cut_off(impatient: Server) -> None:
    with connect(impatient) as sock:
        sock.sendall(b"POST /api/v1/table/check HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty")
        start = time.monotonic()
        closed, _ = closed_within(sock, 5)
        assert closed and time.monotonic() - start < 3


def test_a_connection_that_sends_nothing_is_cut_off(impatient: Server) -> None:
    with connect(impatient) as sock:
        closed, _ = closed_within(sock, 5)
        assert closed


def test_an_idle_keep_alive_connection_is_closed(impatient: Server) -> None:
    with connect(impatient) as sock:
        sock.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        closed, answer = closed_within(sock, 4)
        assert closed and answer.startswith(b"HTTP/1.1 200")


def test_a_body_that_stalls_is_a_408(impatient: Server) -> None:
    with connect(impatient) as sock:
        sock.sendall(b"POST /api/v1/table/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"table\": ")
        closed, answer = closed_within(sock, 6)
        assert closed and answer.startswith(b"HTTP/1.1 408"), answer[:200]


def test_a_body_sent_a_byte_a_second_is_cut_off_at_the_total_limit(impatient: Server) -> None:
    with connect(impatient) as sock:
        sock.sendall(b"POST /api/v1/table/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 200\r\n\r\n")
        start, answer = time.monotonic(), b""
        sock.settimeout(0.6)
        while time.monotonic() - start < 8:
            try:
                sock.sendall(b" ")
                answer += sock.recv(65536)
                if answer:
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
        assert answer.startswith(b"HTTP/1.1 408") and time.monotonic() - start < 6, answer[:200]


def test_a_crowd_of_stalled_connections_cannot_take_it_offline(impatient: Server) -> None:
    """Sixty connections that say nothing: past the cap of 20 each is closed at once, the rest
    after the header timeout, and the service answers again."""
    crowd = [connect(impatient) for _ in range(60)]
    try:
        time.sleep(0.3)
        refused = sum(closed_within(sock, 0.05)[0] for sock in crowd)
        assert refused >= 35
        time.sleep(1.5)
        with impatient.client(timeout=5) as client:
            assert client.get("/api/v1/health").status_code == 200
        assert all(closed_within(sock, 2)[0] for sock in crowd)
    finally:
        for sock in crowd:
            sock.close()


def test_hints_never_wait_behind_scans(tmp_path: Path) -> None:
    """One scan worker, a queue of two: with eight photos sent at once some are told to come
    back (503 + Retry-After), and a hint asked meanwhile is answered before the scans are done."""
    photo = (DATA / "photos" / "table-wood.jpg").read_bytes()
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", RUMMI_SCAN_WORKERS="1",
                 RUMMI_MAX_QUEUED_SCANS="2") as server, server.client() as client:
        client.post("/api/v1/scan", files={"photo": ("p.jpg", photo, "image/jpeg")})  # load the models
        finished: list[float] = []

        def scan() -> httpx.Response:
            with server.client() as own:
                response = own.post("/api/v1/scan", files={"photo": ("p.jpg", photo, "image/jpeg")})
            finished.append(time.monotonic())
            return response

        with ThreadPoolExecutor(8) as pool:
            scans = [pool.submit(scan) for _ in range(8)]
            time.sleep(0.3)
            hint = client.post("/api/v1/hint", json={"table": "r5 r6 r7 | k9 b9 o9", "rack": "r8 J o9 k1",
                                                     "opened": True})
            hinted = time.monotonic()
            results = [s.result() for s in scans]
        assert hint.status_code == 200
        busy = [r for r in results if r.status_code == 503]
        assert busy and all(r.headers["retry-after"] for r in busy)
        assert {r.status_code for r in results} == {200, 503}
        assert hinted < max(finished)
