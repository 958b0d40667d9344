"""Scanning real photos through a real `rummi serve` with the shipped models."""

from __future__ import annotations

import io
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from PIL import Image

from tests.api_server import DATA, Server

PHOTOS = DATA / "photos"
#: What each bundled photo shows (from the source's labels; see tests/data/photos/README.md).
TRUTH = {
    "two-runs.jpg": {"sets": [["r5", "r6", "r7"], ["b3", "b4", "b5", "b6", "b7"]]},
    "table-wood.jpg": {
        "sets": [
            ["k6", "k7", "k8", "k9"],
            ["b8", "r8", "o8"],
            ["o7", "r7"],
            ["o2", "o3", "J"],
            ["r1", "o1", "b1"],
        ]
    },
    "rack.jpg": {"rack": ["b5", "b9", "o3", "r1", "r2", "r4"]},
}


@pytest.fixture(scope="module")
def client(api_server: Server) -> httpx.Client:
    with api_server.client(timeout=120) as client:
        yield client


def scan(client: httpx.Client, name: str, data: bytes | None = None, **params: str) -> dict:
    data = data if data is not None else (PHOTOS / name).read_bytes()
    response = client.post("/api/v1/scan", files={"photo": (name, data, "image/jpeg")}, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def read_sets(result: dict) -> list[list[str]]:
    return [[result["tiles"][i]["tile"] for i in s] for s in result["sets"]]


def same_sets(found: list[list[str]], truth: list[list[str]]) -> bool:
    """Sets compared as multisets of multisets: the order of sets and of tiles may differ."""
    return Counter(tuple(sorted(s)) for s in found) == Counter(tuple(sorted(s)) for s in truth)


def test_a_table_photo_is_read_tile_by_tile(client: httpx.Client) -> None:
    result = scan(client, "table-wood.jpg")
    assert (result["width"], result["height"]) == (1000, 751)
    truth = TRUTH["table-wood.jpg"]["sets"]
    # Chains of touching tiles are sets; the lone pair o7 r7 stands on no rack's ledge, so it is
    # an unfinished set on the table (a rack is seen by its ledge, not guessed from leftovers).
    assert same_sets(read_sets(result), truth)
    assert result["rack_found"] is False
    for tile in result["tiles"]:
        assert len(tile["corners"]) == 4
        assert all(-50 <= x <= 1050 and -50 <= y <= 800 for x, y in tile["corners"])
        assert 0 <= tile["confidence"] <= 1
    # The notation of the table agrees with the indexed sets.
    assert sorted(result["table"]) == sorted(read_sets(result))


def test_every_set_counts_when_the_photo_is_a_table(client: httpx.Client) -> None:
    result = scan(client, "table-wood.jpg", layout="table")
    assert same_sets(read_sets(result), TRUTH["table-wood.jpg"]["sets"])
    assert result["rack_found"] is False


def test_a_misread_tile_is_flagged_as_unsure(client: httpx.Client) -> None:
    """Whatever the reader gets wrong on this photo, it must not be sure of it."""
    result = scan(client, "two-runs.jpg")
    assert len(result["tiles"]) == 8
    left = Counter(t for s in TRUTH["two-runs.jpg"]["sets"] for t in s)
    wrong = []
    for i, tile in enumerate(result["tiles"]):
        if left[tile["tile"]] > 0:
            left[tile["tile"]] -= 1
        else:
            wrong.append(i)
    assert set(wrong) <= set(result["uncertain"]), f"read wrong and sure of it: {wrong}"


def test_a_rack_photo(client: httpx.Client) -> None:
    result = scan(client, "rack.jpg", layout="rack")
    assert result["sets"] == [] and result["rack_found"] is True
    assert sorted(result["rack_tiles"]) == sorted(TRUTH["rack.jpg"]["rack"])


def test_a_phone_photo_stored_sideways_is_read_upright(client: httpx.Client) -> None:
    """Phones store the sensor's pixels and an EXIF turn; the service turns the photo first."""
    upright = Image.open(PHOTOS / "table-wood.jpg")
    sideways = upright.transpose(Image.Transpose.ROTATE_90)
    exif = Image.Exif()
    exif[0x0112] = 6  # "turn 90 degrees clockwise to show"
    buffer = io.BytesIO()
    sideways.save(buffer, format="JPEG", quality=92, exif=exif)
    result = scan(client, "sideways.jpg", buffer.getvalue(), layout="table")
    assert (result["width"], result["height"]) == upright.size
    assert same_sets(read_sets(result), TRUTH["table-wood.jpg"]["sets"])


def test_slow_scans_do_not_hold_up_other_requests(api_server: Server) -> None:
    """Four large photos scanned at once keep the workers busy for a while; meanwhile a table
    check from someone else must still be answered at once (inference runs off the event loop)."""
    big = Image.open(PHOTOS / "table-wood.jpg").resize((4000, 3004))
    buffer = io.BytesIO()
    big.save(buffer, format="JPEG", quality=95)
    photo = buffer.getvalue()
    done = threading.Event()
    latencies: list[float] = []

    def scan_big(_: int) -> int:
        with api_server.client(timeout=300) as client:
            return client.post("/api/v1/scan", files={"photo": ("big.jpg", photo, "image/jpeg")}).status_code

    def check_meanwhile() -> None:
        with api_server.client(timeout=30) as client:
            while not done.is_set():
                start = time.perf_counter()
                assert client.post("/api/v1/table/check", json={"table": "r5 r6 r7"}).status_code == 200
                latencies.append(time.perf_counter() - start)
                time.sleep(0.05)

    watcher = threading.Thread(target=check_meanwhile)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=4) as pool:
        scans = [pool.submit(scan_big, i) for i in range(4)]
        time.sleep(0.2)
        watcher.start()
        statuses = [s.result() for s in scans]
    scan_time = time.perf_counter() - started
    done.set()
    watcher.join()
    assert statuses == [200] * 4
    assert len(latencies) >= 3, f"only {len(latencies)} checks answered during {scan_time:.1f} s of scans"
    assert max(latencies) < max(1.0, scan_time / 4), f"slowest check {max(latencies):.2f} s while scanning"


def test_the_box_names_the_joker_by_its_colour(client: httpx.Client) -> None:
    """Expert's jokers are told apart by colour, so a scan for Expert names the table's joker by
    its colour; the standard box's is plain J; an unknown box is a 422 naming the field."""
    def jokers(result: dict) -> list[str]:
        return [t["tile"] for t in result["tiles"] if t["tile"].startswith("J")]

    assert jokers(scan(client, "table-wood.jpg")) == ["J"]
    expert = jokers(scan(client, "table-wood.jpg", edition="expert"))
    assert len(expert) == 1 and expert[0] in {"Jk", "Jb", "Jo", "Jr"}
    assert any(expert[0] in s for s in scan(client, "table-wood.jpg", edition="expert")["table"])
    data = (PHOTOS / "table-wood.jpg").read_bytes()
    refused = client.post("/api/v1/scan", files={"photo": ("t.jpg", data, "image/jpeg")}, params={"edition": "chess"})
    assert refused.status_code == 422 and "edition" in refused.text and "known editions" in refused.text
