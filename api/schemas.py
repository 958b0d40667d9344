"""Request and response bodies of the JSON API, with the examples the OpenAPI page shows.

Tiles, racks and tables travel as text in the project's notation (``"r5 r6 r7 | k9 b9 o9"``,
see :mod:`engine.notation`): the same strings a player types on the command line. Requests
carry strings; ``parse_field_tiles``/``parse_field_sets`` turn them into engine values and
name the field when the notation is wrong, so the error says *which* input to fix.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from rummi.api.errors import FieldError
from rummi.api.rule_bounds import check_overrides
from rummi.engine.editions import Edition, get_edition
from rummi.engine.errors import RummiError
from rummi.engine.notation import parse_sets, parse_tiles
from rummi.engine.referee import Side, Spot
from rummi.engine.rules import Rules, get_rules
from rummi.engine.tiles import Tile

#: Longest notation string accepted in one field (a full XP box is < 700 characters).
MAX_NOTATION = 2000
#: A rule override's value as a user may type it (``50``, ``"true"``, ``"pl_wiki"``) or ``null``.
OverrideValue = int | bool | str | list[int] | None


class Model(BaseModel):
    """Unknown fields are refused: a typo in a field name must not be silently ignored."""

    model_config = ConfigDict(extra="forbid")


def parse_field_tiles(field: str, text: str, edition: Edition) -> list[Tile]:
    try:
        return parse_tiles(text, edition)
    except RummiError as error:
        raise FieldError(field, error) from None


def parse_field_sets(field: str, text: str, edition: Edition) -> list[list[Tile]]:
    try:
        return parse_sets(text, edition)
    except RummiError as error:
        raise FieldError(field, error) from None


def parse_field_racks(racks: dict[str, str], edition: Edition) -> dict[str, list[Tile]]:
    """Each player's rack; an error names the player (``racks.Bob``)."""
    return {name: parse_field_tiles(f"racks.{name}", text, edition) for name, text in racks.items()}


class RulesChoice(Model):
    """A rule preset by name, with any single rule overridden (``GET /api/v1/presets`` lists them)."""

    preset: str | None = Field(
        default=None, max_length=64, description="Preset name; the default is the primary rulebook."
    )
    overrides: dict[str, OverrideValue] = Field(
        default_factory=dict,
        max_length=40,
        description='Rule name -> value, e.g. {"joker_penalty": 50}.',
        json_schema_extra={"examples": [{"joker_penalty": 50}]},
    )

    def resolve(self) -> Rules:
        try:
            rules = get_rules(self.preset, **self.overrides)
            check_overrides(self.overrides, {name: getattr(rules, name, None) for name in self.overrides})
        except RummiError as error:
            raise FieldError("rules", error) from None
        return rules


class WithRules(Model):
    edition: str | None = Field(
        default=None,
        max_length=32,
        description="Tile box (standard, xp, twist, expert...); default standard.",
    )
    rules: RulesChoice = Field(default_factory=RulesChoice)

    def resolved(self) -> tuple[Edition, Rules]:
        """The edition and rules this request is about (an explicit edition wins over the preset's)."""
        rules = self.rules.resolve()
        try:
            edition = get_edition(self.edition) if self.edition else rules.box
        except RummiError as error:
            raise FieldError("edition", error) from None
        return edition, rules


# --- meta -----------------------------------------------------------------------------------


class Health(Model):
    status: Literal["ok", "unavailable"] = "ok"
    version: str = Field(description="The rummi package's version.")
    api_version: str = Field(description="The JSON API's version (its prefix is /api/v<major>).")
    database: Literal["ok", "unavailable"] = "ok"
    detail: str | None = Field(default=None, description="Why the service is unavailable.")
    scanner_loaded: bool = Field(description="False until the first scan loads the models.")
    hints_compiled: bool = Field(
        description="The hint solver's compiled kernel is ready (until then hints take its other routes)."
    )
    access: Literal["open", "token"] = Field(
        description="open: no token needed (loopback); token: calls need Authorization: Bearer."
    )


class JoinOut(Model):
    url: str = Field(description="The page's address with the organiser's token, for a phone to open.")
    qr_svg: str = Field(description="That address as a QR code, an SVG document.")


class EditionInfo(Model):
    name: str
    title: str
    tile_count: int
    numbers: list[int] = Field(description="Smallest and largest number.")
    colours: list[str] = Field(description="Colour letters of the notation.")
    jokers: dict[str, int] = Field(description="Joker notation -> copies in the box.")


class PresetInfo(Model):
    name: str
    title: str
    source: str
    rules: dict[str, Any]


class ErrorBody(BaseModel):
    detail: str = Field(examples=['table: "r14": no number 14 in this edition (Standard: 1-13)'])
    error: str | None = Field(default=None, examples=["NotationError"])
    field: str | None = Field(default=None, examples=["table"])


#: Error answers every route may give, for the OpenAPI schema.
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The request cannot be used (see detail)."},
    422: {"model": ErrorBody, "description": "A field is malformed: notation, rules or shape."},
}


# --- photos ---------------------------------------------------------------------------------

Point = Annotated[list[float], Field(min_length=2, max_length=2)]
Corners = Annotated[list[Point], Field(min_length=4, max_length=4)]


class ScannedTile(Model):
    tile: str | None = Field(description="The tile in notation, or null when it could not be read.")
    confidence: float = Field(ge=0, le=1, description="Found and read right, 0..1.")
    corners: Corners = Field(
        description="Top-left, top-right, bottom-right, bottom-left of the tile as it is read, in pixels."
    )


class ScanResponse(Model):
    """What one photo shows. ``sets``, ``rack`` and ``uncertain`` hold indices into ``tiles``."""

    width: int = Field(description="Width of the (upright) photo in pixels; corners use these coordinates.")
    height: int
    tiles: list[ScannedTile]
    sets: list[list[int]] = Field(description="Sets on the table, each in reading order.")
    rack: list[int] = Field(description="Tiles on a rack (empty when the photo shows none).")
    rack_found: bool
    uncertain: list[int] = Field(description="Tiles read with low confidence: worth a look.")
    advice: list[str] = Field(
        default_factory=list,
        description='What would make a better photo ("hold steady", "more light", "come closer"); empty when it was good.',
    )
    table: list[list[str]] = Field(
        description="The sets as tiles (unread tiles left out).", examples=[[["r5", "r6", "r7"], ["b3", "b4", "b5"]]]
    )
    rack_tiles: list[str] = Field(description="The rack as tiles (unread tiles left out).", examples=[["k12", "J"]])
    timings_ms: dict[str, float] = Field(description="Time spent finding, reading and laying out.")

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "width": 1000,
                    "height": 750,
                    "tiles": [
                        {
                            "tile": "r5",
                            "confidence": 0.97,
                            "corners": [[140, 255], [205, 280], [180, 385], [115, 360]],
                        }
                    ],
                    "sets": [[0]],
                    "rack": [],
                    "rack_found": False,
                    "uncertain": [],
                    "table": "r5",
                    "rack_text": "",
                    "timings_ms": {"find": 80.0, "read": 40.0, "layout": 1.0, "total": 121.0},
                }
            ]
        },
    )


class LabelledTileIn(Model):
    tile: str | None = Field(max_length=8, description="Notation, or null for 'this is not a tile'.")
    corners: Corners
    corrected: bool = Field(default=False, description="The user changed this reading.")


class CorrectionLabels(Model):
    """The labels a user checked on the page, saved with the photo as training data."""

    tiles: list[LabelledTileIn] = Field(max_length=400)
    sets: list[list[int]] = Field(default_factory=list, max_length=200)
    rack: list[int] | None = Field(default=None, max_length=200)
    width: int | None = Field(default=None, ge=1, description="Size of the photo the corners refer to.")
    height: int | None = Field(default=None, ge=1)


class CorrectionSaved(Model):
    name: str = Field(description="Name of the saved scene in the corrections dataset.")
    tiles: int
    corrected: int
    folder: str = Field(
        description="The dataset folder's name (same layout as `rummi dataset`); never a server path."
    )


# --- play: table, hint, referee, score --------------------------------------------------------

Notation = Annotated[str, Field(max_length=MAX_NOTATION)]
PlayerName = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[^\x00-\x1f]+$")]


class Passthrough(BaseModel):
    """A response the engine shapes (``to_dict``): the listed fields are documented, any new
    field the engine adds passes through rather than being dropped."""

    model_config = ConfigDict(extra="allow")


class TableRequest(WithRules):
    table: Notation = Field(
        description="The sets on the table.", examples=["r5 r6 r7 | k9 b9 o9 | k12 k13 k1"]
    )
    racks: dict[PlayerName, Notation] = Field(
        default_factory=dict,
        max_length=8,
        description="Racks counted with the table for the tile-count check.",
    )


class SetVerdictOut(Passthrough):
    text: str
    kind: str = Field(description="group, run or invalid")
    valid: bool
    reason: str = Field(description="Why the set is invalid (empty when valid).")
    value: int


class TableVerdictOut(Passthrough):
    valid: bool
    summary: str
    sets: list[SetVerdictOut]
    inventory_problems: list[str]


class HintRequest(WithRules):
    table: Notation = Field(default="", examples=["r5 r6 r7 | k9 b9 o9"])
    rack: Notation = Field(examples=["r8 J o9 k1"])
    opened: bool = Field(default=False, description="The player has already made the opening meld.")
    objective: Literal["tiles", "value"] = Field(
        default="tiles", description="Play as many tiles as possible, or as many points."
    )


class HintOut(Passthrough):
    draw: bool = Field(description="No legal play: draw a tile (reason says why).")
    reason: str
    play: list[str] = Field(description="The rack tiles to play.", examples=[["r8", "J", "o9"]])
    table: list[list[str]] = Field(
        description="The whole table after the move, set by set.", examples=[[["r5", "r6", "r7", "r8", "J"], ["k9", "b9", "o9"]]]
    )
    tiles_played: int
    value_played: int
    explanation: list[str] = Field(description="The move step by step, for a person.")


class SpotIn(Model):
    """Where the camera saw a tile it was unsure of: which picture, which set, which place."""

    side: Literal["before", "after", "rack"]
    set: int = Field(default=0, ge=0, le=200, description="0-based set index (0 for the rack).")
    index: int = Field(ge=0, le=200, description="0-based place in the set or rack.")

    def spot(self) -> Spot:
        return Spot(Side(self.side), self.set, self.index)


UNCERTAIN_FIELD = Field(
    default_factory=list,
    max_length=50,
    description="Tiles the camera was unsure of: a violation that another reading of them would "
    "clear makes the verdict 'uncertain' instead of 'illegal'.",
)


class TurnRequest(WithRules):
    before: Notation = Field(description="The table before the turn.", examples=["r5 r6 r7"])
    after: Notation = Field(description="The table after the turn.", examples=["r5 r6 r7 r8"])
    opened: bool = Field(description="The player had opened before this turn.")
    rack: Notation | None = Field(default=None, description="The player's rack before the turn, when known.")
    seconds: float | None = Field(default=None, ge=0, le=86_400, description="How long the turn took.")
    drew: bool = Field(default=False, description="The player drew a tile this turn.")
    uncertain: list[SpotIn] = UNCERTAIN_FIELD


class TurnVerdictOut(Passthrough):
    status: str = Field(description="legal, illegal or uncertain")
    legal: bool
    played: list[str]
    violations: list[dict[str, Any]]
    consequence: dict[str, Any]


class ScoreRequest(WithRules):
    racks: dict[PlayerName, Notation] = Field(
        min_length=2,
        max_length=8,
        description="Every player, in seating order, with the tiles left on their rack (the winner's is empty).",
        examples=[{"Ann": "", "Bob": "r4 b8", "Cy": "r1 J"}],
    )
    winner: PlayerName | None = Field(default=None, description="Who went out.", examples=["Ann"])
    bank_empty: bool = Field(default=False, description="The pool ran dry and nobody went out.")
    not_opened: dict[PlayerName, Literal["could_not", "could_have", "announced"]] = Field(
        default_factory=dict,
        max_length=8,
        description="Players who never opened, and why (tournament presets).",
    )


class GameResultOut(Passthrough):
    winner: str
    scores: dict[str, int]
    rack_totals: dict[str, int]
    explanations: dict[str, str]


# --- games: players, turns, the end of each game, the running score sheet ---------------------


class GameCreate(Model):
    players: list[PlayerName] = Field(min_length=2, max_length=8, examples=[["Ann", "Bob", "Cy"]])
    rules: RulesChoice = Field(default_factory=RulesChoice)
    enforce_order: bool = Field(
        default=True,
        description="Refuse (422, nothing recorded) a turn by anyone but the next player in seating "
        "order, as a tournament table plays. False: any player's turn is recorded when it is posted "
        "(a family game where someone's turn was skipped).",
    )


class TurnIn(Model):
    """One turn to judge and record. The player defaults to whoever is next, ``before`` to the
    table the previous turn left."""

    after: Notation = Field(examples=["r10 r11 r12"])
    player: PlayerName | None = None
    before: Notation | None = None
    rack: Notation | None = Field(default=None, description="The player's rack before the turn, when known.")
    drew: int = Field(default=0, ge=0, le=40, description="Tiles drawn this turn (penalties included).")
    seconds: float | None = Field(default=None, ge=0, le=86_400)
    uncertain: list[SpotIn] = UNCERTAIN_FIELD


class GameEndIn(Model):
    racks: dict[PlayerName, Notation] = Field(
        min_length=2, max_length=8, description="Every player with the tiles left (the winner's empty)."
    )
    winner: PlayerName | None = None
    bank_empty: bool = False
    not_opened: dict[PlayerName, Literal["could_not", "could_have", "announced"]] | None = Field(
        default=None,
        max_length=8,
        description="Players who never opened, and why; left out, the referee decides it from their "
        "racks under a preset with a never-opened penalty (as the engine does).",
    )


class GameOut(Passthrough):
    id: int
    players: list[str]
    rules: dict[str, Any]
    turns: list[dict[str, Any]]
    ending: dict[str, Any] | None
    finished: bool
    next_player: str
    table: list[list[str]] = Field(description="The table the last turn left, set by set.")
    enforce_order: bool = Field(description="Whether a turn by anyone but the next player is refused.")
    join_code: str | None = Field(
        default=None,
        description="Lets a phone post turns to this game only (Authorization: Bearer CODE); "
        "given to the organiser when the service needs a token.",
    )
    player_codes: dict[str, str] | None = Field(
        default=None,
        description="Each player's own join code: it posts that player's turns only (403 for "
        "another player's), so a phone cannot play for someone else.",
    )


class TurnOut(Passthrough):
    game: GameOut
    turn: dict[str, Any] = Field(description="The recorded turn, with the referee's verdict.")


class GameSummaryOut(Model):
    id: int
    started_at: str
    players: list[str]
    preset: str
    turns: int
    finished: bool


class ScoreSheetOut(Passthrough):
    players: list[str]
    games: list[dict[str, Any]]
    totals: dict[str, int]
    match_winner: str | None
