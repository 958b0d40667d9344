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
    big = io.BytesIO()
    Image.open(PHOTO).resize((4000, 3000), Image.BICUBIC).save(big, format="JPEG", quality=90)
    noise = np.random.default_rng(0).integers(0, 255, (2000, 2500, 3), dtype=np.uint8)
    png = io.BytesIO()
    Image.fromarray(noise).save(png, format="PNG")  # 5 MP: about 45 MB to decode
    # 40 MB: the 12 MP JPEG decoded whole would need about 108 MB, at half size 27 MB.
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", RUMMI_DECODE_BUDGET_MB="40") as server, \
            server.client() as client:
        drafted = post(client, big.getvalue(), "two-runs.jpg", "image/jpeg")
        assert drafted.status_code == 200, drafted.text
        body = drafted.json()
        assert (body["width"], body["height"]) == (4000, 3000)  # corners in the photo's own pixels
        assert body["table"] == [["r5", "r6", "r7"], ["b3", "b4", "b5", "b6", "b7"]]  # read right at half size
        assert max(x for t in body["tiles"] for x, _ in t["corners"]) > 2000
        refused = post(client, png.getvalue(), "noise.png", "image/png")
        assert refused.status_code == 413, refused.text
        assert "memory budget" in refused.json()["detail"]
