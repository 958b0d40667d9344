"""Photos cost memory to decode: a large JPEG is decoded at reduced size (JPEG draft), and a
photo whose decode would pass the memory budget is refused before it is decoded."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image

from tests.api_server import DATA, serving

PHOTO = DATA / "photos" / "two-runs.jpg"  # 1000x750


def post(client, data: bytes, name: str, kind: str):
    return client.post("/api/v1/scan", files={"photo": (name, data, kind)})


def test_a_large_jpeg_is_read_at_reduced_size_and_a_costly_png_refused(tmp_path: Path) -> None:
    noise = np.random.default_rng(0).integers(0, 255, (1500, 2000, 3), dtype=np.uint8)
    png = io.BytesIO()
    Image.fromarray(noise).save(png, format="PNG")  # 3 MP: about 27 MB to decode
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", RUMMI_DRAFT_MEGAPIXELS="0.5",
                 RUMMI_DECODE_BUDGET_MB="16") as server, server.client() as client:
        drafted = post(client, PHOTO.read_bytes(), "two-runs.jpg", "image/jpeg")
        assert drafted.status_code == 200, drafted.text
        body = drafted.json()
        assert (body["width"], body["height"]) == (500, 375)  # 0.75 MP over 0.5: decoded at 1/2
        assert body["table"] == [["r5", "r6", "r7"], ["b3", "b4", "b5", "b6", "b7"]]  # still read right at half size
        refused = post(client, png.getvalue(), "noise.png", "image/png")
        assert refused.status_code == 413, refused.text
        assert "memory budget" in refused.json()["detail"]
