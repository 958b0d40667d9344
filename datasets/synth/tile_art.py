"""Drawing one tile face, upright, as an RGBA sprite (BGR order, for OpenCV compositing).

Two printings, after the tiles we have seen:

* ``classic``: cream plastic, a lighter disc behind a big number in the upper middle, the
  brand name faint at the bottom (the "Original Rummikub" of the real photos);
* ``modern``: flat white print, a bigger number, an embossed logo at the bottom edge and, in
  some boxes, a bar under 6 and 9 so they cannot be confused;
* ``pressman``: after the US boxes (issue 15's kept-back print): ivory plastic, no disc and no
  brand mark, a teal blue instead of the others' mid blue, a dot under 6 and 9, and a butterfly
  or a sun for the joker. Each of its styles mixes its own inks a little, so no one shade of
  any colour is the only one a reader sees.

Jokers get a face (several designs) in the colour of their kind: black or red for the plain
joker; Expert's four in their colour; Twist's four told apart by colour as the rules say
(rules.md 1.3: red standard, black colour change, blue double, yellow mirror), with the
pictures only as a second hint, so a reader that learns the colour learns the kind.
Faces are drawn at twice the size and shrunk, for smooth edges at any paste size.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

SPRITE_SIZE: tuple[int, int] = (120, 160)  # w, h: the 3:4 of a real tile
_SCALE = 2

#: Ink colours (RGB) per colour letter; the generator jitters them per tile.
INK_RGB: dict[str, tuple[int, int, int]] = {
    "k": (28, 28, 34),
    "b": (22, 110, 200),
    "o": (238, 128, 40),
    "y": (236, 178, 20),  # yellow printings of the orange slot
    "r": (214, 36, 58),
}
JOKER_RGB: dict[str, tuple[int, int, int]] = {
    "J": (28, 28, 34),
    "Jred": (214, 36, 58),
    "Js": (214, 36, 58),
    "Jd": (22, 110, 200),
    "Jm": (236, 178, 20),
    "Jc": (28, 28, 34),
    "Jk": (28, 28, 34),
    "Jb": (22, 110, 200),
    "Jo": (238, 128, 40),
    "Jr": (214, 36, 58),
}
JOKER_DESIGNS = ("smiley", "filled", "jester", "letter")
#: The joker pictures of the pressman print (drawn by `_draw_emblem`).
EMBLEM_DESIGNS = ("butterfly", "sun")


@dataclass(frozen=True)
class TileStyle:
    """How a box prints its tiles. Hashable, so rendered faces can be cached per style."""

    printing: str  # "classic" or "modern"
    font: Path
    body_rgb: tuple[int, int, int]
    mark_6_9: bool
    yellow: bool  # orange slot printed yellow
    joker_design: str
    number_scale: float = 1.0
    #: "bar" or "dot": how 6 and 9 are marked when ``mark_6_9``.
    mark_shape: str = "bar"
    #: (colour letter, RGB) pairs that replace :data:`INK_RGB` for this box; a tuple, so the
    #: style stays hashable.
    inks: tuple[tuple[str, tuple[int, int, int]], ...] = ()

    def ink(self, letter: str) -> tuple[int, int, int]:
        """The RGB this box prints colour ``letter`` in."""
        return dict(self.inks).get(letter, INK_RGB[letter])


def render_face(notation: str, style: TileStyle) -> np.ndarray:
    """The upright face of ``notation`` (``k7``, ``J``, ``Jd``...) as HxWx4 uint8, BGRA."""
    w, h = SPRITE_SIZE[0] * _SCALE, SPRITE_SIZE[1] * _SCALE
    image = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    _draw_body(draw, w, h, style)
    if notation.startswith("J"):
        _draw_joker(image, draw, notation, w, h, style)
    else:
        letter = notation[0]
        if letter == "o" and style.yellow:
            letter = "y"
        _draw_number(draw, notation[1:], style.ink(letter), w, h, style)
    _draw_brand(draw, w, h, style)
    image = image.resize(SPRITE_SIZE, Image.LANCZOS)
    rgba = np.asarray(image, dtype=np.uint8)
    return _moulded(rgba[..., [2, 1, 0, 3]])


def _moulded(bgra: np.ndarray) -> np.ndarray:
    """Shade the flat drawing like a moulded block: rounded edges darker, light from the top.

    Real tiles are thick plastic with soft bevels; a flat print looks like paper to a model.
    """
    alpha = bgra[..., 3]
    inside = (alpha > 127).astype(np.uint8)
    distance = cv2.distanceTransform(inside, cv2.DIST_L2, 3)
    width = bgra.shape[1]
    bevel = 1.0 - 0.22 * np.exp(-distance / (0.045 * width))
    rows = np.linspace(1.04, 0.96, bgra.shape[0], dtype=np.float32)[:, None]
    shade = (bevel * rows).astype(np.float32)[..., None]
    out = bgra.copy()
    out[..., :3] = np.clip(bgra[..., :3].astype(np.float32) * shade, 0, 255).astype(np.uint8)
    return out


def _shade(rgb: tuple[int, int, int], delta: int) -> tuple[int, int, int]:
    return tuple(int(np.clip(c + delta, 0, 255)) for c in rgb)  # type: ignore[return-value]


def _draw_body(draw: ImageDraw.ImageDraw, w: int, h: int, style: TileStyle) -> None:
    radius = int(0.14 * w)
    draw.rounded_rectangle((0, 0, w - 1, h - 1), radius, fill=_shade(style.body_rgb, -28) + (255,))
    inset = max(2, int(0.025 * w))
    draw.rounded_rectangle((inset, inset, w - 1 - inset, h - 1 - inset), radius - inset,
                           fill=style.body_rgb + (255,))
    if style.printing == "classic":
        cx, cy, r = w * 0.5, h * 0.37, w * 0.36
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=_shade(style.body_rgb, 12) + (255,))


def _fit_font(text: str, font_path: Path, max_w: float, max_h: float) -> ImageFont.FreeTypeFont:
    size = int(max_h * 1.3)
    font = ImageFont.truetype(str(font_path), size)
    x0, y0, x1, y1 = font.getbbox(text)
    factor = min(max_w / max(1, x1 - x0), max_h / max(1, y1 - y0))
    return ImageFont.truetype(str(font_path), max(8, int(size * factor)))


def _draw_number(draw: ImageDraw.ImageDraw, digits: str, ink: tuple[int, int, int], w: int, h: int,
                 style: TileStyle) -> None:
    centre_y = h * {"classic": 0.37, "pressman": 0.40}.get(style.printing, 0.42)
    height = h * {"classic": 0.29, "pressman": 0.32}.get(style.printing, 0.38) * style.number_scale
    width = w * (0.48 if len(digits) == 1 else 0.74)
    font = _fit_font(digits, style.font, width, height)
    x0, y0, x1, y1 = draw.textbbox((0, 0), digits, font=font)
    x, y = w / 2 - (x0 + x1) / 2, centre_y - (y0 + y1) / 2
    draw.text((x, y), digits, font=font, fill=ink + (255,))
    if style.mark_6_9 and digits in ("6", "9") and style.mark_shape == "dot":
        r, dot_y = h * 0.022, y + y1 + h * 0.05
        draw.ellipse((w / 2 - r, dot_y - r, w / 2 + r, dot_y + r), fill=ink + (255,))
    elif style.mark_6_9 and digits in ("6", "9"):
        bar_y = y + y1 + h * 0.03
        bar_w = (x1 - x0) * 0.7
        draw.rounded_rectangle((w / 2 - bar_w / 2, bar_y, w / 2 + bar_w / 2, bar_y + h * 0.025),
                               int(h * 0.01), fill=ink + (255,))


def _draw_brand(draw: ImageDraw.ImageDraw, w: int, h: int, style: TileStyle) -> None:
    """A faint mark at the bottom: printed name (classic) or an embossed logo (modern); the
    pressman print has none."""
    if style.printing == "pressman":
        return
    if style.printing == "classic":
        font = _fit_font("Rummikub", style.font, w * 0.6, h * 0.07)
        x0, y0, x1, y1 = draw.textbbox((0, 0), "Rummikub", font=font)
        draw.text((w / 2 - (x0 + x1) / 2, h * 0.83 - (y0 + y1) / 2), "Rummikub", font=font,
                  fill=_shade(style.body_rgb, -30) + (255,))
        small = _fit_font("Original", style.font, w * 0.2, h * 0.025)
        draw.text((w * 0.40, h * 0.755), "Original", font=small, fill=_shade(style.body_rgb, -22) + (255,))
    else:
        bx0, bx1, by0, by1 = w * 0.3, w * 0.7, h * 0.80, h * 0.88
        draw.rounded_rectangle((bx0, by0 + 2, bx1, by1 + 2), int(h * 0.02),
                               outline=_shade(style.body_rgb, 18) + (255,), width=3)
        draw.rounded_rectangle((bx0, by0, bx1, by1), int(h * 0.02),
                               outline=_shade(style.body_rgb, -22) + (255,), width=3)


def _draw_joker(image: Image.Image, draw: ImageDraw.ImageDraw, notation: str, w: int, h: int,
                style: TileStyle) -> None:
    ink = JOKER_RGB.get(notation, JOKER_RGB["J"])
    if notation == "J" and style.body_rgb[0] % 2:  # a stable half of the boxes print a red joker
        ink = JOKER_RGB["Jred"]
    cx, cy, r = w * 0.5, h * 0.41, w * 0.33
    design = style.joker_design
    if notation == "Jd":
        for dy in (-0.17, 0.17):
            _face(draw, cx, cy + dy * h, r * 0.55, ink, style, "smiley")
        return
    if notation == "Jc":  # colour change: a black ring round the face
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=ink + (255,))
        _face(draw, cx, cy, r * 0.8, style.body_rgb, style, "filled")
        return
    if design == "letter":
        font = _fit_font("J", style.font, w * 0.5, h * 0.36)
        x0, y0, x1, y1 = draw.textbbox((0, 0), "J", font=font)
        draw.text((cx - (x0 + x1) / 2, cy - (y0 + y1) / 2), "J", font=font, fill=ink + (255,))
        star = [(cx + r * 0.35 * np.cos(a) * (1 if k % 2 == 0 else 0.45),
                 cy + r * 1.2 + r * 0.35 * np.sin(a) * (1 if k % 2 == 0 else 0.45))
                for k, a in enumerate(np.linspace(-np.pi / 2, 1.5 * np.pi, 11)[:-1])]
        draw.polygon(star, fill=ink + (255,))
        return
    if design in EMBLEM_DESIGNS:
        _draw_emblem(draw, cx, cy, r, ink, style.body_rgb, design)
    else:
        _face(draw, cx, cy, r, ink, style, design)
    if notation == "Jm":  # mirror: a line down the middle of the picture
        draw.line((cx, cy - r * 1.1, cx, cy + r * 1.1), fill=ink + (255,), width=max(2, int(w * 0.02)))


def _draw_emblem(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, ink: tuple[int, int, int],
                 body: tuple[int, int, int], design: str) -> None:
    """A butterfly (four wings round a body) or a sun (a disc in a ring of rays), in ``ink``."""
    fill = ink + (255,)
    if design == "butterfly":
        for side in (-1, 1):
            upper = (cx + side * r * 0.55, cy - r * 0.35)
            lower = (cx + side * r * 0.42, cy + r * 0.45)
            draw.ellipse((upper[0] - r * 0.48, upper[1] - r * 0.42, upper[0] + r * 0.48, upper[1] + r * 0.42), fill=fill)
            draw.ellipse((lower[0] - r * 0.33, lower[1] - r * 0.3, lower[0] + r * 0.33, lower[1] + r * 0.3), fill=fill)
        draw.rounded_rectangle((cx - r * 0.09, cy - r * 0.75, cx + r * 0.09, cy + r * 0.8), int(r * 0.08),
                               fill=fill, outline=body + (255,), width=max(1, int(r * 0.04)))
        for side in (-1, 1):
            draw.line((cx, cy - r * 0.7, cx + side * r * 0.3, cy - r * 1.1), fill=fill, width=max(2, int(r * 0.05)))
        return
    rays = [(cx + r * (1.0 if k % 2 == 0 else 0.62) * np.cos(a), cy + r * (1.0 if k % 2 == 0 else 0.62) * np.sin(a))
            for k, a in enumerate(np.linspace(0, 2 * np.pi, 25)[:-1])]
    draw.polygon(rays, fill=fill)
    draw.ellipse((cx - r * 0.5, cy - r * 0.5, cx + r * 0.5, cy + r * 0.5), fill=body + (255,))
    draw.ellipse((cx - r * 0.4, cy - r * 0.4, cx + r * 0.4, cy + r * 0.4), fill=fill)


def _face(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, ink: tuple[int, int, int],
          style: TileStyle, design: str) -> None:
    line = max(2, int(r * 0.12))
    body = style.body_rgb + (255,)
    if design == "jester":
        hat = [(cx - r, cy - r * 0.5), (cx - r * 0.7, cy - r * 1.6), (cx - r * 0.2, cy - r * 0.9),
               (cx, cy - r * 1.75), (cx + r * 0.2, cy - r * 0.9), (cx + r * 0.7, cy - r * 1.6),
               (cx + r, cy - r * 0.5)]
        draw.polygon(hat, fill=ink + (255,))
        r *= 0.85
        cy += r * 0.15
    if design == "filled":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=ink + (255,))
        feature = body
    else:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=ink + (255,), width=line, fill=body)
        feature = ink + (255,)
    for side in (-1, 1):
        ex, ey = cx + side * r * 0.38, cy - r * 0.22
        draw.ellipse((ex - r * 0.13, ey - r * 0.09, ex + r * 0.13, ey + r * 0.09), fill=feature)
        draw.arc((ex - r * 0.2, ey - r * 0.3, ex + r * 0.2, ey - r * 0.05), 200, 340, fill=feature, width=line // 2 + 1)
    draw.polygon([(cx, cy - r * 0.05), (cx - r * 0.08, cy + r * 0.18), (cx + r * 0.08, cy + r * 0.18)], fill=feature)
    draw.arc((cx - r * 0.55, cy - r * 0.2, cx + r * 0.55, cy + r * 0.65), 20, 160, fill=feature, width=line)

