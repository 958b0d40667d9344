"""Bad input gets a 4xx with a clear message, and the service keeps working afterwards.

Every request goes to a real `rummi serve` over HTTP. The photos are real files (a bundled
table photo, cut short for the truncated case) or real images made here with Pillow.
"""

from __future__ import annotations

import io
import struct
import zlib

import httpx
import pytest
from PIL import Image

from tests.api_server import DATA, Server

TABLE_PHOTO = DATA / "photos" / "table-wood.jpg"


@pytest.fixture(scope="module")
def client(api_server: Server) -> httpx.Client:
    with api_server.client() as client:
        yield client


def scan(
    client: httpx.Client, data: bytes, content_type: str = "image/jpeg", name: str = "photo.jpg"
) -> httpx.Response:
    return client.post("/api/v1/scan", files={"photo": (name, data, content_type)})


def png_header_only(width: int, height: int) -> bytes:
    """A valid PNG that declares ``width`` x ``height`` but holds one tiny compressed row:
    the shape of a decompression bomb, a few hundred bytes that would decode to gigabytes."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0" * 64))
        + chunk(b"IEND", b"")
    )


def assert_clear_error(response: httpx.Response, status: int, *words: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    detail = response.json()["detail"]
    assert isinstance(detail, str) and "Traceback" not in detail
    for word in words:
        assert word in detail, detail


def test_a_text_file_sent_as_a_jpeg_is_not_an_image(client: httpx.Client) -> None:
    assert_clear_error(scan(client, b"this is a shopping list, not a photo\n"), 415, "not an image")


def test_a_truncated_jpeg_is_damaged(client: httpx.Client) -> None:
    data = TABLE_PHOTO.read_bytes()
    assert_clear_error(scan(client, data[: len(data) // 2]), 400, "damaged")


def test_a_zero_byte_file_is_empty(client: httpx.Client) -> None:
    assert_clear_error(scan(client, b""), 400, "empty")


def test_a_60_megapixel_photo_is_refused_before_decoding(client: httpx.Client) -> None:
    buffer = io.BytesIO()
    Image.new("L", (10_000, 6_000), 200).save(buffer, format="PNG")  # 60 MP, compresses to ~60 kB
    assert_clear_error(scan(client, buffer.getvalue(), "image/png", "huge.png"), 413, "megapixels")


def test_a_decompression_bomb_is_refused(client: httpx.Client) -> None:
    bomb = png_header_only(40_000, 40_000)  # 1.6 gigapixels in < 200 bytes
    assert len(bomb) < 200
    response = scan(client, bomb, "image/png", "bomb.png")
    assert_clear_error(response, 413)


def test_a_file_of_the_wrong_content_type_is_refused(client: httpx.Client) -> None:
    response = scan(client, TABLE_PHOTO.read_bytes(), "text/plain", "notes.txt")
    assert_clear_error(response, 415, "text/plain", "not a photo")


def test_json_sent_to_the_scan_route_asks_for_the_photo(client: httpx.Client) -> None:
    response = client.post("/api/v1/scan", json={"photo": "table.jpg"})
    assert_clear_error(response, 422, "photo")


def test_an_upload_over_the_limit_is_refused_while_it_streams(client: httpx.Client) -> None:
    limit = 15 * 1024 * 1024  # the default RUMMI_MAX_UPLOAD_BYTES

    def chunks():  # a well-formed multipart upload with no Content-Length: counted as it arrives
        yield (
            b'--xyz\r\nContent-Disposition: form-data; name="photo"; filename="big.jpg"\r\n'
            b"Content-Type: image/jpeg\r\n\r\n"
        )
        yield TABLE_PHOTO.read_bytes()
        for _ in range(limit // (1 << 20) + 2):
            yield b"\0" * (1 << 20)
        yield b"\r\n--xyz--\r\n"

    response = client.post(
        "/api/v1/scan",
        content=chunks(),
        headers={"content-type": "multipart/form-data; boundary=xyz"},
    )
    assert_clear_error(response, 413, str(limit))


def test_malformed_notation_names_the_field_and_the_place(client: httpx.Client) -> None:
    response = client.post("/api/v1/table/check", json={"table": "r5 r6 r7 | k9 b9 x9"})
    assert_clear_error(response, 422, "table", '"x9"', "unknown colour")
    assert response.json()["field"] == "table"
    assert response.json()["position"] == 17


def test_a_tile_the_edition_does_not_have_is_refused(client: httpx.Client) -> None:
    response = client.post("/api/v1/hint", json={"table": "", "rack": "r14 r12 r13"})
    assert_clear_error(response, 422, "rack", "no number 14")


def test_an_unknown_field_is_refused_not_ignored(client: httpx.Client) -> None:
    response = client.post("/api/v1/table/check", json={"tabel": "r5 r6 r7"})
    assert_clear_error(response, 422, "tabel", "table: Field required")


def test_invalid_json_is_refused(client: httpx.Client) -> None:
    response = client.post(
        "/api/v1/table/check", content=b'{"table": "r5', headers={"content-type": "application/json"}
    )
    assert_clear_error(response, 422, "JSON")


def test_an_oversized_json_body_is_refused(client: httpx.Client) -> None:
    body = b'{"table": "' + b"r5 " * 40_000 + b'"}'
    response = client.post("/api/v1/table/check", content=body, headers={"content-type": "application/json"})
    assert_clear_error(response, 413, "65536")


def test_an_oversized_json_body_without_a_length_is_refused(client: httpx.Client) -> None:
    def chunks():
        yield b'{"table": "'
        for _ in range(100):
            yield b"r5 " * 1000
        yield b'"}'

    response = client.post(
        "/api/v1/table/check", content=chunks(), headers={"content-type": "application/json"}
    )
    assert_clear_error(response, 413, "65536")


def test_an_unknown_preset_lists_the_known_ones(client: httpx.Client) -> None:
    response = client.post("/api/v1/table/check", json={"table": "r5 r6 r7", "rules": {"preset": "house"}})
    assert_clear_error(response, 422, "unknown preset", "pressman_us_2009")


def test_an_unknown_game_is_404(client: httpx.Client) -> None:
    assert_clear_error(client.get("/api/v1/games/999999"), 404, "999999")
    response = client.post("/api/v1/games/999999/end", json={"racks": {"A": "", "B": "r5"}, "winner": "A"})
    assert_clear_error(response, 404, "999999")


def test_the_service_still_answers_after_all_that(client: httpx.Client) -> None:
    assert client.get("/api/v1/health").json()["status"] == "ok"
    assert client.post("/api/v1/table/check", json={"table": "r5 r6 r7"}).json()["valid"] is True
