"""The text notation for tiles, racks and tables, parsed and printed round-trip.

* A tile is a colour letter and a number: ``k`` black, ``b`` blue, ``o`` orange (``y`` is read
  as orange), ``r`` red: ``r7``, ``k13``, ``o1``. A joker is ``J``; Twist's special jokers are
  ``Jd`` (double), ``Jm`` (mirror), ``Jc`` (colour change), ``Js`` (standard); Expert's coloured
  jokers are ``Jk``, ``Jb``, ``Jo``, ``Jr``.
* Tiles are separated by spaces (commas are accepted too); sets by ``|``.
* Input is case-insensitive and forgiving about spaces; output is canonical.

    >>> from rummi.engine.notation import parse_sets, format_sets
    >>> format_sets(parse_sets(" R5 r6  r7|k9 b9 O9 "))
    'r5 r6 r7 | k9 b9 o9'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from rummi.engine.editions import Edition, get_edition
from rummi.engine.errors import NotationError
from rummi.engine.tiles import COLOUR_LETTERS, JokerKind, Tile

_TOKEN = re.compile(r"[^\s,|]+")
# ASCII digits only: str.isdigit() and \d also accept digits of other scripts ("r٧").
_NUMBERED = re.compile(r"^([a-z])([0-9]+)$", re.ASCII)
_MAX_DIGITS = 4
_MAX_SHOWN = 24
_JOKER_SUFFIX = {k.value: k for k in JokerKind if k is not JokerKind.COLOURED}


def _read_token(token: str, edition: Edition, text: str, position: int) -> Tile:
    low = token.lower()
    shown = shorten_token(token)
    tile: Tile
    if low.startswith("j") and low[1:].isascii() and low[1:].isdigit():
        raise NotationError(f'"{shown}": a joker has no number; write J alone', text, position)
    if low.startswith("j"):
        suffix = low[1:]
        if suffix in _JOKER_SUFFIX:
            tile = Tile(joker=_JOKER_SUFFIX[suffix])
        elif suffix in COLOUR_LETTERS:
            tile = Tile(joker=JokerKind.COLOURED, colour=COLOUR_LETTERS[suffix])
        else:
            raise NotationError(
                f'"{shown}": unknown joker (J, Jd, Jm, Jc, Js, or Jk/Jb/Jo/Jr)', text, position
            )
        if not edition.holds(tile):
            tile = _fallback_joker(tile, edition, shown, text, position)
        return tile
    match = _NUMBERED.match(low)
    if not match:
        raise NotationError(
            f'"{shown}": not a tile (write a colour letter k/b/o/r and a number, e.g. r7, or J)',
            text,
            position,
        )
    letter, digits = match.groups()
    digits = digits.lstrip("0") or "0"
    if letter not in COLOUR_LETTERS:
        raise NotationError(
            f'"{shown}": unknown colour "{letter}" (k black, b blue, o or y orange, r red)',
            text,
            position,
        )
    if len(digits) > _MAX_DIGITS:  # int() refuses over 4,300 digits; no box goes near 4 digits
        missing = edition.explain_missing_number(shorten_token(digits))
        raise NotationError(f'"{shown}": {missing}', text, position)
    tile = Tile(number=int(digits), colour=COLOUR_LETTERS[letter])
    if not edition.holds(tile):
        raise NotationError(f'"{shown}": {edition.explain_missing(tile)}', text, position)
    return tile


def _fallback_joker(tile: Tile, edition: Edition, shown: str, text: str, position: int) -> Tile:
    """A plain ``J`` in a box without plain jokers means that box's ordinary joker.

    Twist calls its ordinary joker ``Js``; users (and the camera) write ``J`` for it.
    """
    standard = Tile(joker=JokerKind.STANDARD)
    if tile.joker is JokerKind.PLAIN and edition.holds(standard):
        return standard
    raise NotationError(f'"{shown}": {edition.explain_missing(tile)}', text, position)


def shorten_token(token: str) -> str:
    """A token as an error message quotes it: a pasted megabyte must not become the message."""
    return token if len(token) <= _MAX_SHOWN else token[: _MAX_SHOWN - 3] + "..."


def parse_tile(text: str, edition: Edition | str | None = None) -> Tile:
    """Read exactly one tile."""
    tiles = parse_tiles(text, edition)
    if len(tiles) != 1:
        raise NotationError(f"expected one tile, got {len(tiles)}", text)
    return tiles[0]


def parse_tiles(text: str, edition: Edition | str | None = None) -> list[Tile]:
    """Read a list of tiles (a rack, or one set). ``|`` is not allowed here."""
    if not isinstance(text, str):
        raise NotationError("tiles must be given as text, e.g. 'r5 r6 r7'")
    if "|" in text:
        raise NotationError("'|' separates sets; a rack is one list of tiles", text, text.index("|"))
    ed = get_edition(edition)
    return [_read_token(m.group(), ed, text, m.start()) for m in _TOKEN.finditer(text)]


def parse_sets(text: str, edition: Edition | str | None = None) -> list[list[Tile]]:
    """Read a table: sets separated by ``|``. Empty text is an empty table."""
    if not isinstance(text, str):
        raise NotationError("a table must be given as text, e.g. 'r5 r6 r7 | k9 b9 o9'")
    ed = get_edition(edition)
    sets: list[list[Tile]] = []
    offset = 0
    parts = text.split("|")
    if len(parts) == 1 and not text.strip():
        return []
    for part in parts:
        tiles = [_read_token(m.group(), ed, text, offset + m.start()) for m in _TOKEN.finditer(part)]
        if not tiles:
            raise NotationError("empty set between '|' separators", text, min(offset, len(text) - 1))
        sets.append(tiles)
        offset += len(part) + 1
    return sets


def format_tiles(tiles: Iterable[Tile]) -> str:
    return " ".join(str(t) for t in tiles)


def format_sets(sets: Iterable[Sequence[Tile]]) -> str:
    return " | ".join(format_tiles(s) for s in sets)


# --- JSON form -----------------------------------------------------------------------------------
# One form everywhere (every command's --json, every endpoint): a tile is its notation string
# ("r7", "J", "Jd", "Jr"), a set is a list of tiles, a table a list of sets. On input a tile may
# also be an object with "text" or with its parts ({"colour": "red", "number": 7}), so programs
# that spell tiles out are still understood. See docs/notation.md.

_JOKER_NAMES = {
    JokerKind.PLAIN: "plain",
    JokerKind.STANDARD: "standard",
    JokerKind.DOUBLE: "double",
    JokerKind.MIRROR: "mirror",
    JokerKind.COLOUR_CHANGE: "colour_change",
    JokerKind.COLOURED: "coloured",
}
_JOKER_BY_NAME = {name: kind for kind, name in _JOKER_NAMES.items()}
_COLOUR_BY_NAME = {c.label: c for c in COLOUR_LETTERS.values()} | {"yellow": COLOUR_LETTERS["y"]}


def tile_to_json(tile: Tile) -> str:
    """The JSON form of one tile: its notation string (``"r7"``, ``"J"``)."""
    return str(tile)


def tile_from_json(value: object, edition: Edition | str | None = None) -> Tile:
    """Read a tile from its JSON form (an object or the bare notation text), checked against ``edition``."""
    if isinstance(value, str):
        return parse_tile(value, edition)
    if not isinstance(value, dict):
        raise NotationError(f"a tile is text like 'r7' or an object, got {type(value).__name__}")
    if "text" in value:
        return parse_tile(str(value["text"]), edition)
    return parse_tile(_text_from_parts(value), edition)


def _text_from_parts(value: dict) -> str:
    colour_name = value.get("colour")
    colour = None
    if colour_name is not None:
        colour = _COLOUR_BY_NAME.get(str(colour_name).lower()) or COLOUR_LETTERS.get(str(colour_name).lower())
        if colour is None:
            raise NotationError(f"unknown colour {colour_name!r} (black, blue, orange, red)")
    if "joker" in value:
        kind = _JOKER_BY_NAME.get(str(value["joker"]).lower())
        if kind is None:
            raise NotationError(f"unknown joker {value['joker']!r}; known: {', '.join(_JOKER_BY_NAME)}")
        if kind is JokerKind.COLOURED:
            if colour is None:
                raise NotationError("a coloured joker needs a colour")
            return f"J{colour.letter}"
        return f"J{kind.value}"
    number = value.get("number")
    if colour is None or not isinstance(number, int) or isinstance(number, bool):
        raise NotationError(
            "a numbered tile needs a colour and a whole number, e.g. {'colour': 'red', 'number': 7}"
        )
    return f"{colour.letter}{number}"


def sets_to_json(sets: Iterable[Sequence[Tile]]) -> list[list[str]]:
    """A table (list of sets) in JSON form."""
    return [[tile_to_json(t) for t in s] for s in sets]


def sets_from_json(value: object, edition: Edition | str | None = None) -> list[list[Tile]]:
    """Read a table from its JSON form: a list of sets, each a list of tiles."""
    if not isinstance(value, list) or not all(isinstance(s, list) for s in value):
        raise NotationError("a table is a list of sets, each a list of tiles")
    return [[tile_from_json(t, edition) for t in s] for s in value]
