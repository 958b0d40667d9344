"""The game of Rummikub as pure logic: tiles, editions, sets, rule presets, solver, referee, scoring.

No I/O and no image code lives here; the vision pipeline and the service build on this package.

The names below are imported on first use (PEP 562), so that ``import rummi.engine.errors``
(which every command does) does not load every module of the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rummi.engine.lazy import lazy_exports

if TYPE_CHECKING:
    from rummi.engine.editions import EDITIONS, STANDARD, Edition, get_edition, inventory_problems
    from rummi.engine.errors import ImpossibleStateError, NotationError, RummiError
    from rummi.engine.melds import Reading, SetKind, SetVerdict, classify, is_valid_set, set_value
    from rummi.engine.notation import format_sets, format_tiles, parse_sets, parse_tile, parse_tiles
    from rummi.engine.rules import DEFAULT_PRESET, PRESETS, BankEmptyScoring, MatchEnd, Rules, get_rules
    from rummi.engine.scoring import GameResult, NotOpened, ScoreSheet, rack_points, score_game
    from rummi.engine.table import TableVerdict, validate_table
    from rummi.engine.tiles import JOKER, Colour, JokerKind, Tile, sort_tiles

#: public name -> the module that defines it
_HOME = {
    "EDITIONS": "rummi.engine.editions",
    "STANDARD": "rummi.engine.editions",
    "Edition": "rummi.engine.editions",
    "get_edition": "rummi.engine.editions",
    "inventory_problems": "rummi.engine.editions",
    "ImpossibleStateError": "rummi.engine.errors",
    "NotationError": "rummi.engine.errors",
    "RummiError": "rummi.engine.errors",
    "Reading": "rummi.engine.melds",
    "SetKind": "rummi.engine.melds",
    "SetVerdict": "rummi.engine.melds",
    "classify": "rummi.engine.melds",
    "is_valid_set": "rummi.engine.melds",
    "set_value": "rummi.engine.melds",
    "format_sets": "rummi.engine.notation",
    "format_tiles": "rummi.engine.notation",
    "parse_sets": "rummi.engine.notation",
    "parse_tile": "rummi.engine.notation",
    "parse_tiles": "rummi.engine.notation",
    "DEFAULT_PRESET": "rummi.engine.rules",
    "PRESETS": "rummi.engine.rules",
    "BankEmptyScoring": "rummi.engine.rules",
    "MatchEnd": "rummi.engine.rules",
    "Rules": "rummi.engine.rules",
    "get_rules": "rummi.engine.rules",
    "GameResult": "rummi.engine.scoring",
    "NotOpened": "rummi.engine.scoring",
    "ScoreSheet": "rummi.engine.scoring",
    "rack_points": "rummi.engine.scoring",
    "score_game": "rummi.engine.scoring",
    "TableVerdict": "rummi.engine.table",
    "validate_table": "rummi.engine.table",
    "JOKER": "rummi.engine.tiles",
    "Colour": "rummi.engine.tiles",
    "JokerKind": "rummi.engine.tiles",
    "Tile": "rummi.engine.tiles",
    "sort_tiles": "rummi.engine.tiles",
}

__all__ = [
    "BankEmptyScoring",
    "Colour",
    "DEFAULT_PRESET",
    "EDITIONS",
    "Edition",
    "GameResult",
    "ImpossibleStateError",
    "JOKER",
    "JokerKind",
    "MatchEnd",
    "NotOpened",
    "NotationError",
    "PRESETS",
    "Reading",
    "Rules",
    "RummiError",
    "STANDARD",
    "ScoreSheet",
    "SetKind",
    "SetVerdict",
    "TableVerdict",
    "Tile",
    "classify",
    "format_sets",
    "format_tiles",
    "get_edition",
    "get_rules",
    "inventory_problems",
    "is_valid_set",
    "parse_sets",
    "parse_tile",
    "parse_tiles",
    "rack_points",
    "score_game",
    "set_value",
    "sort_tiles",
    "validate_table",
]
__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOME)
