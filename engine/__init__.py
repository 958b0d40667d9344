"""The game of Rummikub as pure logic: tiles, editions, sets, rule presets, solver, referee, scoring.

No I/O and no image code lives here; the vision pipeline and the service build on this package.
"""

from rummi.engine.editions import EDITIONS, STANDARD, Edition, get_edition, inventory_problems
from rummi.engine.errors import ImpossibleStateError, NotationError, RummiError
from rummi.engine.melds import Reading, SetKind, SetVerdict, classify, is_valid_set, set_value
from rummi.engine.notation import format_sets, format_tiles, parse_sets, parse_tile, parse_tiles
from rummi.engine.rules import DEFAULT_PRESET, PRESETS, BankEmptyScoring, MatchEnd, Rules, get_rules
from rummi.engine.scoring import GameResult, NotOpened, ScoreSheet, rack_points, score_game
from rummi.engine.table import TableVerdict, validate_table
from rummi.engine.tiles import JOKER, Colour, JokerKind, Tile, sort_tiles

__all__ = [
    "DEFAULT_PRESET",
    "PRESETS",
    "BankEmptyScoring",
    "MatchEnd",
    "Rules",
    "get_rules",
    "GameResult",
    "NotOpened",
    "ScoreSheet",
    "TableVerdict",
    "rack_points",
    "score_game",
    "validate_table",
    "EDITIONS",
    "JOKER",
    "STANDARD",
    "Colour",
    "Edition",
    "ImpossibleStateError",
    "JokerKind",
    "NotationError",
    "Reading",
    "RummiError",
    "SetKind",
    "SetVerdict",
    "Tile",
    "classify",
    "format_sets",
    "format_tiles",
    "get_edition",
    "inventory_problems",
    "is_valid_set",
    "parse_sets",
    "parse_tile",
    "parse_tiles",
    "set_value",
    "sort_tiles",
]
