"""The referee: was one turn legal, and if not, exactly why and what happens next.

The camera sees the table before a player's turn and after it. :func:`judge_turn` compares the
two (see :mod:`engine.turn_changes` for how tile moves are inferred), checks every rule the
preset (:mod:`engine.rules`) decides, and returns a :class:`TurnVerdict`: the tiles played,
each violation with its reason and the tiles involved, and the consequence under the preset.

The camera can be unsure of a tile. Such tiles are passed as :class:`Spot` positions; the
referee then tries every other reading of each of them, and a violation that another reading
would clear is reported as depending on that tile instead of being held against the player.

    >>> from engine.notation import parse_sets
    >>> v = judge_turn(parse_sets("r5 r6 r7"), parse_sets("r5 r6 r7 r8"), opened=True)
    >>> v.status.value, [str(t) for t in v.played]
    ('legal', ['r8'])
    >>> v = judge_turn(parse_sets("r5 r6 r7"), parse_sets("r5 r6 | r7 r8 r9"), opened=True)
    >>> v.status.value, v.violations[0].code.value
    ('illegal', 'invalid_set')
"""

from __future__ import annotations

import enum
import itertools
import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.editions import Edition, get_edition, inventory_problems
from engine.errors import NotationError, RummiError
from engine.melds import SetKind, SetVerdict, classify
from engine.notation import format_tiles
from engine.rules import Rules, get_rules
from engine.tiles import Tile, sort_tiles
from engine.turn_changes import RACK, TableChanges, read_changes

Sets = Sequence[Sequence[Tile]]


class Side(enum.Enum):
    """Which picture a tile was seen in."""

    BEFORE = "before"
    AFTER = "after"
    RACK = "rack"


@dataclass(frozen=True, order=True)
class Spot:
    """Where one tile was seen: the picture, the set (0 for the rack) and the place in it."""

    side: Side
    set_index: int
    index: int

    def __str__(self) -> str:
        if self.side is Side.RACK:
            return f"rack tile {self.index + 1}"
        return f"{self.side.value} set {self.set_index + 1} tile {self.index + 1}"


class Penalty(enum.Enum):
    """What kind of consequence a violation carries."""

    DRAW = "draw"  # nothing was played: the player draws one tile, as on any turn without a play
    FAILED_TURN = "failed_turn"  # restore the table, take back own tiles, draw the preset's penalty
    OVERTIME = "overtime"  # the preset's over-time penalty
    CHECK = "check"  # the tiles themselves must be checked; no automatic penalty


class Code(enum.Enum):
    """Every violation the referee detects. The value is the stable code in JSON output."""

    TILE_REMOVED = "tile_removed"
    JOKER_NOT_REUSED = "joker_not_reused"
    INVALID_SET = "invalid_set"
    NO_TILE_PLAYED = "no_tile_played"
    REARRANGED_WITHOUT_PLAYING = "rearranged_without_playing"
    DREW_AND_PLAYED = "drew_and_played"
    TILE_NOT_ON_RACK = "tile_not_on_rack"
    IMPOSSIBLE_TILES = "impossible_tiles"
    OPENING_TOO_LOW = "opening_too_low"
    OPENING_USED_TABLE = "opening_used_table"
    OPENING_ADDED_TO_TABLE = "opening_added_to_table"
    OPENING_WITH_JOKER = "opening_with_joker"
    JOKER_BEFORE_OPENING = "joker_before_opening"
    FREED_JOKER_TOO_FEW_OWN_TILES = "freed_joker_too_few_own_tiles"
    FREED_JOKER_NOT_IN_NEW_SET = "freed_joker_not_in_new_set"
    JOKER_REPLACED_FROM_TABLE = "joker_replaced_from_table"
    JOKER_FREED_BY_REARRANGING = "joker_freed_by_rearranging"
    STRICT_JOKER_GROUP = "strict_joker_group"
    LOCKED_JOKER_SET = "locked_joker_set"
    OVER_TIME = "over_time"

    @property
    def penalty(self) -> Penalty:
        if self is Code.NO_TILE_PLAYED:
            return Penalty.DRAW
        if self is Code.OVER_TIME:
            return Penalty.OVERTIME
        if self in (Code.TILE_NOT_ON_RACK, Code.IMPOSSIBLE_TILES):
            return Penalty.CHECK
        return Penalty.FAILED_TURN


@dataclass(frozen=True)
class Doubt:
    """An uncertain tile that a violation depends on: read as ``alternatives``, it goes away."""

    spot: Spot
    seen: Tile
    alternatives: tuple[Tile, ...]

    def describe(self) -> str:
        options = ", ".join(str(t) for t in self.alternatives[:6])
        more = f" (+{len(self.alternatives) - 6} more)" if len(self.alternatives) > 6 else ""
        return (
            f"{self.spot} was read as {self.seen} with low confidence; "
            f"read as {options}{more}, this problem goes away"
        )


@dataclass(frozen=True)
class Violation:
    """One broken rule: a stable code, a sentence for people, and what it involves.

    ``sets`` are indices into the table after the turn (or before, for removed tiles' sets);
    ``doubts`` is empty when the violation does not depend on any uncertain tile.
    """

    code: Code
    message: str
    tiles: tuple[Tile, ...] = ()
    sets: tuple[int, ...] = ()
    doubts: tuple[Doubt, ...] = ()

    @property
    def certain(self) -> bool:
        return not self.doubts

    @property
    def key(self) -> tuple[Code, tuple[int, ...]]:
        """What identifies this violation across readings of uncertain tiles."""
        return (self.code, self.sets if self.code is Code.INVALID_SET else ())

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code.value,
            "message": self.message,
            "tiles": [str(t) for t in self.tiles],
            "sets": list(self.sets),
            "penalty": self.code.penalty.value,
            "certain": self.certain,
            "depends_on": [
                {
                    "side": d.spot.side.value,
                    "set": d.spot.set_index,
                    "index": d.spot.index,
                    "seen": str(d.seen),
                    "alternatives": [str(t) for t in d.alternatives],
                }
                for d in self.doubts
            ],
        }


@dataclass(frozen=True)
class Consequence:
    """What happens next under the preset. Penalties do not add up: the heaviest applies."""

    restore_table: bool = False
    take_back: tuple[Tile, ...] = ()
    draw: int = 0
    check_tiles: bool = False

    @property
    def text(self) -> str:
        sentences = []
        if self.restore_table:
            sentences.append("Put the table back as it was before the turn.")
        player = []
        if self.take_back:
            player.append(f"takes back {format_tiles(self.take_back)}")
        if self.draw:
            player.append(f"draws {self.draw} tile{'s' if self.draw != 1 else ''}")
        if player:
            sentences.append("The player " + " and ".join(player) + ".")
        if self.check_tiles:
            sentences.append("Check the tiles named above before play goes on.")
        return " ".join(sentences) or "No penalty: the turn stands."

    def to_dict(self) -> dict[str, Any]:
        return {
            "restore_table": self.restore_table,
            "take_back": [str(t) for t in self.take_back],
            "draw": self.draw,
            "check_tiles": self.check_tiles,
            "text": self.text,
        }


class Status(enum.Enum):
    LEGAL = "legal"
    ILLEGAL = "illegal"
    UNCERTAIN = "uncertain"  # every violation goes away under another reading of an unsure tile


@dataclass(frozen=True)
class TurnVerdict:
    """The referee's answer for one turn."""

    status: Status
    played: tuple[Tile, ...]
    violations: tuple[Violation, ...]
    consequence: Consequence
    opens: bool = False
    opening_value: int | None = None
    rules: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def legal(self) -> bool:
        return self.status is Status.LEGAL

    @property
    def depends_on(self) -> tuple[Spot, ...]:
        """The uncertain tiles the verdict hangs on (empty when it is certain)."""
        return tuple(sorted({d.spot for v in self.violations for d in v.doubts}))

    def codes(self) -> list[str]:
        return [v.code.value for v in self.violations]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "legal": self.legal,
            "played": [str(t) for t in self.played],
            "opens": self.opens,
            "opening_value": self.opening_value,
            "violations": [v.to_dict() for v in self.violations],
            "consequence": self.consequence.to_dict(),
            "depends_on": [str(s) for s in self.depends_on],
            "rules": self.rules,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class _Turn:
    """Everything judge_turn was given, so a reading of an unsure tile can be swapped in."""

    before: tuple[tuple[Tile, ...], ...]
    after: tuple[tuple[Tile, ...], ...]
    rack: tuple[Tile, ...] | None
    opened: bool
    drew: bool
    seconds: float | None

    def tile_at(self, spot: Spot) -> Tile:
        if spot.side is Side.RACK:
            return self.rack[spot.index]  # type: ignore[index]
        sets = self.before if spot.side is Side.BEFORE else self.after
        return sets[spot.set_index][spot.index]

    def with_tile(self, spot: Spot, tile: Tile) -> _Turn:
        if spot.side is Side.RACK:
            rack = list(self.rack or ())
            rack[spot.index] = tile
            return replace(self, rack=tuple(rack))
        sets = [list(s) for s in (self.before if spot.side is Side.BEFORE else self.after)]
        sets[spot.set_index][spot.index] = tile
        frozen = tuple(tuple(s) for s in sets)
        return replace(self, before=frozen) if spot.side is Side.BEFORE else replace(self, after=frozen)


def parse_seen(
    text: str, side: Side, edition: Edition | str | None = None
) -> tuple[list[list[Tile]], list[Spot]]:
    """Read a table (or, for ``Side.RACK``, a rack) where ``?`` after a tile marks a low-confidence read.

    ``"r5 r6? r7"`` is the run r5 r6 r7 with the r6 uncertain. A rack comes back as one set.

        >>> sets, spots = parse_seen("r5 r6? r7 | k9 b9 o9", Side.AFTER)
        >>> [str(s) for s in spots]
        ['after set 1 tile 2']
    """
    from engine.notation import parse_sets, parse_tiles

    spots: list[Spot] = []
    for set_index, part in enumerate(text.split("|")):
        for index, token in enumerate(_TOKEN.findall(part)):
            if token.strip("?") == "":
                raise NotationError(
                    "'?' marks the tile just before it as uncertain: write r6?, not r6 ?", text
                )
            if token.endswith("?"):
                spots.append(Spot(side, 0 if side is Side.RACK else set_index, index))
    clean = text.replace("?", " ")  # a space keeps error positions where the user typed them
    if side is Side.RACK:
        return [parse_tiles(clean, edition)], spots
    return parse_sets(clean, edition), spots


_TOKEN = re.compile(r"[^\s,|]+")


def judge_turn(
    before: Sets,
    after: Sets,
    *,
    opened: bool,
    rack: Sequence[Tile] | None = None,
    rules: Rules | str | None = None,
    edition: Edition | str | None = None,
    seconds: float | None = None,
    drew: bool = False,
    uncertain: Collection[Spot] = (),
) -> TurnVerdict:
    """Judge one turn from the table ``before`` and ``after`` it.

    ``opened``: whether the player had made the initial meld before this turn. ``rack``: the
    player's rack before the turn, or ``None`` when unknown (then the checks that need it are
    skipped). ``drew``: the player drew a tile this turn. ``seconds``: how long the turn took.
    ``uncertain``: positions of tiles the camera read with low confidence.
    The edition defaults to the preset's box.
    """
    preset = get_rules(rules)
    box = get_edition(edition) if edition is not None else preset.box
    turn = _Turn(
        before=tuple(tuple(s) for s in before),
        after=tuple(tuple(s) for s in after),
        rack=tuple(rack) if rack is not None else None,
        opened=opened,
        drew=drew,
        seconds=seconds,
    )
    _check_spots(turn, uncertain)
    cache: dict[tuple[Tile, ...], SetVerdict] = {}
    found, played, opening_value, notes = _judge(turn, preset, box, cache)
    status = Status.LEGAL if not found else Status.ILLEGAL
    if found and uncertain:
        found, useful = _attach_doubts(turn, found, uncertain, preset, box, cache)
        rereading = _legal_rereading(turn, useful, preset, box, cache)
        if rereading:
            status = Status.UNCERTAIN
            shown = ", ".join(f"{spot} as {tile}" for spot, tile in rereading)
            notes.append(f"read {shown}, the turn would be legal: check those tiles before any penalty")
    return TurnVerdict(
        status=status,
        played=played,
        violations=tuple(found),
        consequence=_consequence(found, played, preset),
        opens=(not opened) and status is Status.LEGAL and bool(played),
        opening_value=opening_value,
        rules=preset.name,
        notes=tuple(notes),
    )


def _check_spots(turn: _Turn, spots: Collection[Spot]) -> None:
    for spot in spots:
        try:
            if spot.side is Side.RACK and turn.rack is None:
                raise IndexError
            turn.tile_at(spot)
        except (IndexError, TypeError):
            raise RummiError(f"uncertain tile {spot}: there is no tile there") from None


def _judge(
    turn: _Turn, rules: Rules, box: Edition, cache: dict[tuple[Tile, ...], SetVerdict]
) -> tuple[list[Violation], tuple[Tile, ...], int | None, list[str]]:
    """The rule checks proper, on one reading of the tiles."""

    def verdict_of(tiles: tuple[Tile, ...]) -> SetVerdict:
        if tiles not in cache:
            cache[tiles] = classify(tiles, box)
        return cache[tiles]

    changes = read_changes(turn.before, turn.after)
    found: list[Violation] = []
    notes: list[str] = []
    found += _removed_tiles(changes)
    found += _invalid_sets(changes, verdict_of, notes)
    found += _nothing_played(changes, turn)
    found += _rack_and_inventory(changes, turn, box)
    opening_value = None
    opening_ok = turn.opened
    if not turn.opened and changes.played:
        opening, opening_value, opening_ok = _opening(changes, rules, verdict_of)
        found += opening
    elif not turn.opened and changes.table_changed:
        found.append(
            Violation(
                Code.OPENING_USED_TABLE,
                "before their opening a player may not touch the sets on the table",
                tiles=_moved_table_tiles(changes),
            )
        )
    found += _jokers(
        changes, rules, turn.opened or (opening_ok and rules.table_play_in_opening_turn), verdict_of
    )
    found += _time(turn, rules)
    return found, changes.played, opening_value, notes


# --- the checks, one rule each --------------------------------------------------------------


def _removed_tiles(changes: TableChanges) -> list[Violation]:
    out = []
    numbered = [t for t in changes.removed if not t.is_joker]
    jokers = [t for t in changes.removed if t.is_joker]
    if numbered:
        out.append(
            Violation(
                Code.TILE_REMOVED,
                f"{format_tiles(numbered)} left the table; tiles on the table never go back to a rack",
                tiles=tuple(numbered),
            )
        )
    if jokers:
        out.append(
            Violation(
                Code.JOKER_NOT_REUSED,
                f"{format_tiles(jokers)} left the table; a freed joker must be played again in the same turn",
                tiles=tuple(jokers),
            )
        )
    return out


def _invalid_sets(changes: TableChanges, verdict_of: Any, notes: list[str]) -> list[Violation]:
    out = []
    for a, tiles in enumerate(changes.after):
        verdict = verdict_of(tiles)
        if verdict.valid:
            continue
        if a in changes.intact_after:
            notes.append(
                f"set {a + 1} ({format_tiles(tiles)}) was already invalid before this turn: {verdict.reason}"
            )
            continue
        out.append(
            Violation(
                Code.INVALID_SET,
                f"set {a + 1} ({format_tiles(tiles)}) is not a valid set: {verdict.reason}",
                tiles=tiles,
                sets=(a,),
            )
        )
    return out


def _nothing_played(changes: TableChanges, turn: _Turn) -> list[Violation]:
    if changes.played:
        if turn.drew:
            return [
                Violation(
                    Code.DREW_AND_PLAYED,
                    "drawing a tile ends the turn; the player both drew and played "
                    + format_tiles(changes.played),
                    tiles=changes.played,
                )
            ]
        return []
    if changes.table_changed:
        return [
            Violation(
                Code.REARRANGED_WITHOUT_PLAYING,
                "the table was rearranged but no tile came from the rack; every play must add at least one",
                tiles=_moved_table_tiles(changes),
            )
        ]
    if turn.drew:
        return []
    return [Violation(Code.NO_TILE_PLAYED, "no tile was played from the rack, so the player must draw")]


def _rack_and_inventory(changes: TableChanges, turn: _Turn, box: Edition) -> list[Violation]:
    out = []
    if turn.rack is not None:
        missing = Counter(changes.played) - Counter(turn.rack)
        if missing:
            tiles = tuple(sort_tiles(missing.elements()))
            out.append(
                Violation(
                    Code.TILE_NOT_ON_RACK,
                    f"{format_tiles(tiles)} appeared on the table but {'was' if len(tiles) == 1 else 'were'} "
                    "not on the player's rack",
                    tiles=tiles,
                )
            )
    before = [t for s in changes.before for t in s]
    after = [t for s in changes.after for t in s]
    if turn.rack is not None:
        left = list((Counter(turn.rack) - Counter(changes.played)).elements())
        views = [before + list(turn.rack), after + left]
    else:
        views = [before, after]
    problems: list[str] = []
    for tiles in views:
        for problem in inventory_problems(box, tiles):
            if problem not in problems:
                problems.append(problem)
    if problems:
        out.append(
            Violation(
                Code.IMPOSSIBLE_TILES,
                "these tiles cannot all exist (table and rack together): " + "; ".join(problems),
                tiles=tuple(_over_inventory(box, views)),
            )
        )
    return out


def _over_inventory(box: Edition, views: list[list[Tile]]) -> list[Tile]:
    over: set[Tile] = set()
    for tiles in views:
        for tile, count in Counter(tiles).items():
            if count > box.copies_of(tile):
                over.add(tile)
    return sort_tiles(over)


def _opening(changes: TableChanges, rules: Rules, verdict_of: Any) -> tuple[list[Violation], int, bool]:
    """The initial meld: new sets of own tiles worth the threshold, and hands off the table."""
    out: list[Violation] = []
    new_sets = [
        a for a in range(len(changes.after)) if a not in changes.intact_after and changes.is_own_set(a)
    ]
    value = sum(verdict_of(changes.after[a]).value for a in new_sets)
    if value < rules.opening_threshold:
        shown = (
            f"{' | '.join(format_tiles(changes.after[a]) for a in new_sets)} is worth {value}"
            if new_sets
            else "the player laid no new set of their own tiles"
        )
        out.append(
            Violation(
                Code.OPENING_TOO_LOW,
                f"an opening needs {rules.opening_threshold} points from the player's own new sets; {shown}",
                tiles=tuple(t for a in new_sets for t in changes.after[a]),
                sets=tuple(new_sets),
            )
        )
    if not rules.joker_in_opening:
        jokers = [t for a in new_sets for t in changes.after[a] if t.is_joker]
        if jokers:
            out.append(
                Violation(
                    Code.OPENING_WITH_JOKER,
                    f"under {rules.title} a joker cannot be used in the opening",
                    tiles=tuple(jokers),
                )
            )
    if changes.table_changed and not rules.table_play_in_opening_turn:
        out += _opening_touched_table(changes, rules)
    elif changes.table_changed and value < rules.opening_threshold:
        out.append(
            Violation(
                Code.OPENING_USED_TABLE,
                "the table may only be used after the opening's own sets reach the threshold",
                tiles=_moved_table_tiles(changes),
            )
        )
    ok = not out
    return out, value, ok


def _opening_touched_table(changes: TableChanges, rules: Rules) -> list[Violation]:
    added: list[Tile] = []
    used: list[Tile] = []
    for b in range(len(changes.before)):
        if b in changes.intact_before:
            continue
        heir = changes.heir[b]
        if changes.extended(b) and heir is not None:
            added += changes.tiles_from(heir, RACK)
        else:
            used += _moved_from(changes, b)
    out = []
    if added:
        out.append(
            Violation(
                Code.OPENING_ADDED_TO_TABLE,
                f"in the opening turn a player may only lay new sets; {format_tiles(added)} "
                f"{'was' if len(added) == 1 else 'were'} added to sets on the table ({rules.title})",
                tiles=tuple(added),
            )
        )
    if used:
        out.append(
            Violation(
                Code.OPENING_USED_TABLE,
                f"an opening must use only the player's own tiles and leave the table alone; "
                f"{format_tiles(used)} moved from sets on the table",
                tiles=tuple(used),
            )
        )
    return out


def _moved_from(changes: TableChanges, before_index: int) -> list[Tile]:
    """Tiles of a before-set that are no longer in its heir (moved elsewhere or gone)."""
    heir = changes.heir[before_index]
    kept = Counter(changes.tiles_from(heir, before_index)) if heir is not None else Counter()
    return sort_tiles((Counter(changes.before[before_index]) - kept).elements())


def _moved_table_tiles(changes: TableChanges) -> tuple[Tile, ...]:
    moved: list[Tile] = []
    for b in range(len(changes.before)):
        if b not in changes.intact_before:
            moved += _moved_from(changes, b)
    return tuple(sort_tiles(moved))


def _jokers(changes: TableChanges, rules: Rules, may_take: bool, verdict_of: Any) -> list[Violation]:
    """Jokers that left their set: who may take them, how, and where they must go."""
    out: list[Violation] = []
    freed_anywhere = False
    for b, tiles in enumerate(changes.before):
        jokers = [t for t in tiles if t.is_joker]
        if not jokers or b in changes.intact_before:
            continue
        heir = changes.heir[b]
        stayed = sum(1 for t in changes.tiles_from(heir, b) if t.is_joker) if heir is not None else 0
        if rules.locked_joker_sets and not changes.extended(b):
            out.append(
                Violation(
                    Code.LOCKED_JOKER_SET,
                    f"a set holding a joker ({format_tiles(tiles)}) may only be added to under {rules.title}",
                    tiles=tiles,
                )
            )
        if stayed == len(jokers):
            continue
        freed_anywhere = True
        out += _how_freed(changes, b, rules, verdict_of)
    if freed_anywhere and not may_take:
        out.append(
            Violation(
                Code.JOKER_BEFORE_OPENING,
                "a joker on the table may only be taken after the player's own opening",
                tiles=tuple(t for t in changes.removed if t.is_joker) or _freed_jokers(changes),
            )
        )
    out += _where_freed_jokers_went(changes, rules)
    return out


def _freed_jokers(changes: TableChanges) -> tuple[Tile, ...]:
    placed = []
    for a, tiles in enumerate(changes.after):
        for tile, source in zip(tiles, changes.sources[a]):
            if tile.is_joker and source not in (RACK,) and changes.heir.get(source) != a:
                placed.append(tile)
    return tuple(placed)


def _how_freed(changes: TableChanges, b: int, rules: Rules, verdict_of: Any) -> list[Violation]:
    """Was the freed joker replaced by a rack tile, a table tile, or freed by rearranging?"""
    old = changes.before[b]
    verdict = verdict_of(old)
    if not verdict.valid:
        return []  # what the joker stood for is unknown; the set was already broken
    meanings = {t for options in verdict.joker_meanings() for t in options}
    heir = changes.heir[b]
    replacements = (
        []
        if heir is None
        else [
            (tile, source)
            for tile, source in zip(changes.after[heir], changes.sources[heir])
            if source != b and tile in meanings
        ]
    )
    out: list[Violation] = []
    from_rack = [t for t, s in replacements if s == RACK]
    from_table = [t for t, s in replacements if s != RACK]
    if not from_rack and from_table and not rules.joker_replacement_from_table:
        out.append(
            Violation(
                Code.JOKER_REPLACED_FROM_TABLE,
                f"the joker in {format_tiles(old)} was replaced by {format_tiles(from_table)} taken from "
                f"another set; under {rules.title} the replacement must come from the rack",
                tiles=tuple(from_table),
            )
        )
    if not replacements and not rules.joker_free_by_rearranging:
        out.append(
            Violation(
                Code.JOKER_FREED_BY_REARRANGING,
                f"the joker in {format_tiles(old)} was freed by rearranging, without a tile that "
                f"replaces it; {rules.title} does not allow that",
                tiles=old,
            )
        )
    if rules.strict_joker_group and _three_tile_group(verdict):
        present = Counter(changes.after[heir]) if heir is not None else Counter()
        missing = [t for t in sorted(meanings, key=Tile.sort_key) if present[t] == 0]
        if missing:
            out.append(
                Violation(
                    Code.STRICT_JOKER_GROUP,
                    f"the joker of the 3-tile group {format_tiles(old)} may only be taken when both "
                    f"missing colours are added; {format_tiles(missing)} missing",
                    tiles=tuple(missing),
                )
            )
    return out


def _three_tile_group(verdict: SetVerdict) -> bool:
    jokers = sum(1 for t in verdict.tiles if t.is_joker)
    return len(verdict.tiles) == 3 and jokers == 1 and verdict.kind is SetKind.GROUP


def _where_freed_jokers_went(changes: TableChanges, rules: Rules) -> list[Violation]:
    out = []
    heirs = {h for h in changes.heir.values() if h is not None}
    for a, tiles in enumerate(changes.after):
        freed_here = [
            t
            for t, s in zip(tiles, changes.sources[a])
            if t.is_joker and s != RACK and changes.heir.get(s) != a
        ]
        if not freed_here:
            continue
        own = changes.own_count(a)
        if own < rules.freed_joker_min_own_tiles:
            out.append(
                Violation(
                    Code.FREED_JOKER_TOO_FEW_OWN_TILES,
                    f"a freed joker went into {format_tiles(tiles)} with {own} tile{'s' if own != 1 else ''} "
                    f"from the rack; {rules.title} asks for at least {rules.freed_joker_min_own_tiles}",
                    tiles=tiles,
                    sets=(a,),
                )
            )
        if rules.freed_joker_in_new_set and a in heirs:
            out.append(
                Violation(
                    Code.FREED_JOKER_NOT_IN_NEW_SET,
                    f"a freed joker must start a new set; it was added to {format_tiles(tiles)}, "
                    "a set already on the table",
                    tiles=tiles,
                    sets=(a,),
                )
            )
    return out


def _time(turn: _Turn, rules: Rules) -> list[Violation]:
    if turn.seconds is None or rules.turn_seconds is None or turn.seconds <= rules.turn_seconds:
        return []
    return [
        Violation(
            Code.OVER_TIME,
            f"the turn took {turn.seconds:g} s; {rules.title} allows {rules.turn_seconds} s",
        )
    ]


# --- consequence and doubts ---------------------------------------------------------------


def _consequence(found: Sequence[Violation], played: tuple[Tile, ...], rules: Rules) -> Consequence:
    penalties = {v.code.penalty for v in found}
    restore = Penalty.FAILED_TURN in penalties or (
        Penalty.OVERTIME in penalties and rules.overtime_restores_table
    )
    draws = [0]
    if Penalty.FAILED_TURN in penalties:
        draws.append(rules.failed_manipulation_draw)
    if Penalty.OVERTIME in penalties:
        draws.append(rules.overtime_draw)
    if Penalty.DRAW in penalties:
        draws.append(1)
    return Consequence(
        restore_table=restore,
        take_back=played if restore else (),
        draw=max(draws),
        check_tiles=Penalty.CHECK in penalties,
    )


def _attach_doubts(
    turn: _Turn,
    found: list[Violation],
    uncertain: Collection[Spot],
    rules: Rules,
    box: Edition,
    cache: dict[tuple[Tile, ...], SetVerdict],
) -> tuple[list[Violation], dict[Spot, list[Tile]]]:
    """For each violation, the unsure tiles whose other readings would clear it.

    Also returns, per unsure tile, the readings that clear at least one violation: the only
    readings worth combining when looking for a legal reading of the whole turn.
    """
    readings = sort_tiles(box.inventory())
    doubts: dict[tuple[Code, tuple[int, ...]], list[Doubt]] = {v.key: [] for v in found}
    useful: dict[Spot, list[Tile]] = {}
    for spot in sorted(set(uncertain)):
        seen = turn.tile_at(spot)
        clears: dict[tuple[Code, tuple[int, ...]], list[Tile]] = {key: [] for key in doubts}
        for tile in readings:
            if tile == seen:
                continue
            other, *_ = _judge(turn.with_tile(spot, tile), rules, box, cache)
            still = {v.key for v in other}
            for key in clears:
                if key not in still:
                    clears[key].append(tile)
        for key, tiles in clears.items():
            if tiles:
                doubts[key].append(Doubt(spot, seen, tuple(tiles)))
        useful[spot] = sort_tiles({t for tiles in clears.values() for t in tiles})
    return [replace(v, doubts=tuple(doubts[v.key])) for v in found], useful


#: How many combined re-readings of unsure tiles the referee tries before giving up.
MAX_REREADINGS = 2000


def _legal_rereading(
    turn: _Turn,
    useful: dict[Spot, list[Tile]],
    rules: Rules,
    box: Edition,
    cache: dict[tuple[Tile, ...], SetVerdict],
) -> list[tuple[Spot, Tile]]:
    """One reading of the unsure tiles under which the turn is legal, or ``[]``.

    Each unsure tile keeps its reading or takes one that cleared a violation on its own;
    combinations are tried fewest changes first, up to :data:`MAX_REREADINGS`.
    """
    spots = [spot for spot, tiles in useful.items() if tiles]
    tried = 0
    for count in range(1, len(spots) + 1):
        for chosen in itertools.combinations(spots, count):
            for tiles in itertools.product(*(useful[spot] for spot in chosen)):
                tried += 1
                if tried > MAX_REREADINGS:
                    return []
                changed = turn
                for spot, tile in zip(chosen, tiles):
                    changed = changed.with_tile(spot, tile)
                if not _judge(changed, rules, box, cache)[0]:
                    return list(zip(chosen, tiles))
    return []
