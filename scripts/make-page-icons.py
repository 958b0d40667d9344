"""Draw the page's home-screen icons (api/static/icons/icon-*.png) with Pillow.

The icon is a tile, as on the table: a cream tile with a red 7 and a green border, on the page's
green. Run it again after changing the design; the PNGs are committed, so nothing runs at start-up.

    .venv/bin/python scripts/make-page-icons.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

OUT = Path(__file__).resolve().parent.parent / "api" / "static" / "icons"
GREEN = (20, 83, 45)
CREAM = (250, 246, 232)
RED = (208, 24, 24)
FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", "DejaVuSans-Bold.ttf")


def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in FONTS:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


def icon(size: int, maskable: bool = False) -> Image.Image:
    """A square icon; `maskable` keeps the tile inside the central 80 % a launcher may crop to."""
    image = Image.new("RGB", (size, size), GREEN)
    draw = ImageDraw.Draw(image)
    scale = 0.62 if maskable else 0.78
    w, h = size * scale * 0.72, size * scale
    left, top = (size - w) / 2, (size - h) / 2
    draw.rounded_rectangle((left, top, left + w, top + h), radius=size * 0.06, fill=CREAM)
    text = font(int(h * 0.62))
    draw.text((size / 2, size / 2 - h * 0.04), "7", font=text, fill=RED, anchor="mm")
    dot = size * 0.035
    draw.ellipse((size / 2 - dot, top + h * 0.82 - dot, size / 2 + dot, top + h * 0.82 + dot), fill=RED)
    return image


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        icon(size).save(OUT / f"icon-{size}.png", optimize=True)
    icon(512, maskable=True).save(OUT / "icon-maskable-512.png", optimize=True)
    print(f"icons written to {OUT}")


if __name__ == "__main__":
    main()
