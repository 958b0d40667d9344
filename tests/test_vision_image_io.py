"""Decoding photos: good ones come out upright BGR, bad ones as a clear ImageError."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from rummi.engine.errors import RummiError
from rummi.vision.image_io import ImageError, load_image, save_image

SAMPLES = Path(__file__).resolve().parents[1] / "vision" / "samples" / "images"


def jpeg_bytes(width: int, height: int, orientation: int | None = None) -> bytes:
    picture = Image.new("RGB", (width, height), (200, 30, 30))
    picture.paste((30, 30, 200), (0, 0, width // 2, height // 2))  # a blue top-left quarter
    buffer = io.BytesIO()
    exif = Image.Exif()
    if orientation:
        exif[0x0112] = orientation
    picture.save(buffer, "JPEG", exif=exif.tobytes())
    return buffer.getvalue()


def test_a_real_photo_loads_as_bgr() -> None:
    photo = next(SAMPLES.glob("*.jpg"))
    image = load_image(photo)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert load_image(photo.read_bytes()).shape == image.shape


def test_colours_come_out_in_opencv_order() -> None:
    image = load_image(jpeg_bytes(40, 30))
    blue, green, red = image[25, 35].astype(int)  # the red part
    assert red > 150 and blue < 80


def test_exif_orientation_turns_the_pixels() -> None:
    # Orientation 6: the camera was turned; the stored 40x30 picture is shown 30 wide, 40 high.
    image = load_image(jpeg_bytes(40, 30, orientation=6))
    assert image.shape[:2] == (40, 30)


@pytest.mark.parametrize(
    "data, message",
    [
        (b"", "empty"),
        (b"this is not a photo at all", "not an image"),
    ],
)
def test_bad_bytes_are_a_clear_error(data: bytes, message: str) -> None:
    with pytest.raises(ImageError, match=message):
        load_image(data)


def test_a_truncated_jpeg_is_reported_as_damaged() -> None:
    whole = next(SAMPLES.glob("*.jpg")).read_bytes()
    with pytest.raises(ImageError, match="damaged"):
        load_image(whole[: len(whole) // 3])


def test_a_decompression_bomb_is_refused_before_decoding() -> None:
    buffer = io.BytesIO()
    Image.new("1", (12000, 12000)).save(buffer, "PNG")  # a few kB on disk, 144 MP decoded
    assert len(buffer.getvalue()) < 100_000
    with pytest.raises(ImageError, match="megapixels"):
        load_image(buffer.getvalue())


def test_a_missing_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(RummiError, match="no such file"):
        load_image(tmp_path / "nothing.jpg")


def test_a_picture_is_saved_and_reads_back(tmp_path: Path) -> None:
    picture = np.zeros((10, 12, 3), np.uint8)
    picture[:, :, 2] = 255  # red in BGR
    save_image(tmp_path / "red.png", picture)
    assert np.array_equal(load_image(tmp_path / "red.png"), picture)


@pytest.mark.parametrize("name", ["picture.xyz", "no-such-folder/picture.png"])
def test_a_picture_that_cannot_be_written_is_a_user_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(ImageError, match="could not write"):
        save_image(tmp_path / name, np.zeros((10, 12, 3), np.uint8))
