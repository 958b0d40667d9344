"""Turn a user's photo (a path or uploaded bytes) into a BGR array, or a clear ImageError.

Photos come from phones and from the network, so anything may arrive: an empty upload, a text
file named .jpg, a JPEG cut off half-way, or a tiny file that decodes to a gigapixel image (a
"decompression bomb"). Each of these becomes an :class:`ImageError` with a message a person
can act on, never a traceback. Phones also store the picture sideways and record the turn in
EXIF; the pixels are turned here so that "up" is what the person saw.

    >>> load_image(b"")
    Traceback (most recent call last):
    ...
    vision.image_io.ImageError: the image is empty (0 bytes)
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from rummi.engine.errors import RummiError

#: Largest photo accepted, in pixels. A 12 MP phone photo is 12e6; 50 MP phones exist.
MAX_PIXELS = 64_000_000
#: Largest file accepted, in bytes (a 50 MP JPEG is about 25 MB).
MAX_BYTES = 60 * 1024 * 1024


class ImageError(RummiError):
    """The photo could not be used: empty, not an image, damaged, or too large."""


def load_image(
    source: str | Path | bytes,
    *,
    max_pixels: int = MAX_PIXELS,
    draft_pixels: int | None = None,
    max_decode_bytes: int | None = None,
) -> np.ndarray:
    """Decode a photo into an ``H x W x 3`` uint8 BGR array (OpenCV's order), upright per EXIF.

    ``draft_pixels``: a JPEG larger than this is decoded at 1/2, 1/4 or 1/8 of its size (the
    JPEG decoder's draft mode, which skips the detail instead of decoding it): the first of
    these that is no larger than ``draft_pixels`` (else 1/8). ``max_decode_bytes``: the memory the decode may take, estimated before it
    from the (drafted) size and the copies made on the way to BGR; a photo over it is refused.
    """
    data, name = _read_bytes(source)
    if not data:
        raise ImageError(f"{name}is empty (0 bytes)")
    if len(data) > MAX_BYTES:
        raise ImageError(f"{name}is too large ({len(data) / 1e6:.0f} MB; the limit is {MAX_BYTES / 1e6:.0f} MB)")
    try:
        with warnings.catch_warnings():
            # Pillow warns before it refuses; the size check below gives the clearer message.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            picture = Image.open(io.BytesIO(data))
            width, height = picture.size
            if width * height > max_pixels:
                raise ImageError(
                    f"{name}is {width}x{height} = {width * height / 1e6:.0f} megapixels; "
                    f"the limit is {max_pixels / 1e6:.0f}"
                )
            if draft_pixels is not None and picture.format == "JPEG" and width * height > draft_pixels:
                scale = 1
                while scale < 8 and width * height / scale**2 > draft_pixels:
                    scale *= 2
                picture.draft("RGB", (width // scale, height // scale))
            if max_decode_bytes is not None:
                needed = _decode_bytes(picture)
                if needed > max_decode_bytes:
                    drawn = f"{picture.size[0]}x{picture.size[1]}"
                    raise ImageError(
                        f"{name}is too large to decode within the memory budget ({drawn} needs about "
                        f"{needed / 1e6:.0f} MB; the budget is {max_decode_bytes / 1e6:.0f} MB)"
                    )
            picture.load()
            picture = ImageOps.exif_transpose(picture)
            rgb = picture.convert("RGB")
    except ImageError:
        raise
    except UnidentifiedImageError:
        raise ImageError(f"{name}is not an image this program can read (JPEG, PNG, WebP, BMP...)") from None
    except Image.DecompressionBombError as error:
        raise ImageError(f"{name}is too large to decode safely: {error}") from None
    except (OSError, SyntaxError, ValueError) as error:
        # Pillow reports truncated or corrupt data as OSError ("image file is truncated").
        raise ImageError(f"{name}is damaged and cannot be decoded ({error})") from None
    array = np.asarray(rgb)
    if array.ndim != 3 or array.shape[0] < 8 or array.shape[1] < 8:
        raise ImageError(f"{name}is too small ({array.shape[1]}x{array.shape[0]} pixels)")
    return np.ascontiguousarray(array[:, :, ::-1])


def _decode_bytes(picture: Image.Image) -> int:
    """Bytes a decode of ``picture`` holds at its peak: the decoded bands, the RGB copy, the
    array made of it and the BGR array made from that (benchmarks/decode_memory.py measures a
    40 MP decode at 534 MB, about 13 bytes a pixel)."""
    width, height = picture.size
    bands = max(len(picture.getbands()), 1)
    return width * height * (bands + 3 + 3 + 3)


def save_image(path: str | Path, image_bgr: np.ndarray) -> None:
    """Write a BGR picture in the format its name ends with (.png, .jpg...), or an ImageError.

    OpenCV answers a bad folder with False and an unknown ending with an exception; both
    become one message a person can act on.
    """
    try:
        written = cv2.imwrite(str(path), image_bgr)
    except cv2.error:
        written = False
    if not written:
        raise ImageError(_cannot_write(path))


def check_image_target(path: str | Path) -> None:
    """Refuse a name :func:`save_image` could not write (unknown ending, missing folder) before
    the long work whose result it will hold, rather than after it."""
    if not Path(path).parent.is_dir() or not cv2.haveImageWriter(str(path)):
        raise ImageError(_cannot_write(path))


def _cannot_write(path: str | Path) -> str:
    return f"could not write {path} (use a .png or .jpg name in an existing folder)"


def _read_bytes(source: str | Path | bytes) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "the image "
    path = Path(source)
    if not path.is_file():
        raise ImageError(f"{path}: no such file")
    if path.stat().st_size > MAX_BYTES:
        raise ImageError(f"{path} is too large ({path.stat().st_size / 1e6:.0f} MB)")
    return path.read_bytes(), f"{path} "
