"""Judging one turn: was it legal, and if not, exactly why and what happens next.

The camera sees the table before a player's turn and after it. :func:`judge_turn` compares the
two (see :mod:`rummi.engine.referee.changes` for how tile moves are inferred), checks every rule the
preset (:mod:`rummi.engine.rules`) decides, and returns a :class:`TurnVerdict`: the tiles played,
each violation with its reason and the tiles involved, and the consequence under the preset.

The camera can be unsure of a tile. Such tiles are passed as :class:`Spot` positions; the
referee then tries every other reading of each of them, and a violation that another reading
would clear is reported as depending on that tile instead of being held against the player.

    >>> from rummi.engine.notation import parse_sets
    >>> v = judge_turn(parse_sets("r5 r6 r7"), parse_sets("r5 r6 r7 r8"), opened=True)
    >>> v.status.value, [str(t) for t in v.played]
    ('legal', ['r8'])
    >>> v = judge_turn(parse_sets("r5 r6 r7"), parse_sets("r5 r6 | r7 r8 r9"), opened=True)
    >>> v.status.value, v.violations[0].code.value
    ('illegal', 'invalid_set')
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from rummi.engine.editions import Edition, get_edition, inventory_problems
from rummi.engine.errors import ImpossibleStateError, RummiError
from rummi.engine.melds import SetVerdict, classify
from rummi.engine.notation import format_tiles
from rummi.engine.referee.changes import RACK, TableChanges, read_changes
from rummi.engine.referee.jokers import joker_violations
from rummi.engine.referee.seen import Side, Spot
from rummi.engine.referee.verdicts import (
    Code,
    Doubt,
    Status,
    TurnVerdict,
    Violation,
    consequence_of,
)
from rummi.engine.rules import Rules, get_rules
from rummi.engine.tiles import Tile, sort_tiles

#: How the judge classifies a set (one ``classify`` per set of a turn, cached).
VerdictOf = Callable[[tuple[Tile, ...]], SetVerdict]

Sets = Sequence[Sequence[Tile]]


@dataclass(frozen=True)
class _Turn:
    """Everything judge_turn was given, so a reading of an unsure tile can be swapped in."""

    before: tuple[tuple[Tile, ...], ...]
    after: tuple[tuple[Tile, ...], ...]
    rack: tuple[Tile, ...] | None
    opened: bool
    drew: bool
    seconds: float | None

    def has(self, spot: Spot) -> bool:
        """True when ``spot`` names a tile of this turn's pictures."""
        if spot.side is Side.RACK:
            return self.rack is not None and spot.set_index == 0 and 0 <= spot.index < len(self.rack)
        sets = self.before if spot.side is Side.BEFORE else self.after
        return 0 <= spot.set_index < len(sets) and 0 <= spot.index < len(sets[spot.set_index])

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
    _check_size(turn, box)
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
        consequence=consequence_of(found, played, preset),
        opens=(not opened) and status is not Status.ILLEGAL and bool(played),
        opening_value=opening_value,
        rules=preset.name,
        notes=tuple(notes),
    )


def _check_size(turn: _Turn, box: Edition) -> None:
    """Refuse pictures holding more tiles than the whole box, before any costly matching.

    Smaller excesses (three r7) are a verdict, :data:`Code.IMPOSSIBLE_TILES`; this bound keeps
    the work of matching sets (quadratic, times 53 readings per unsure tile) small.
    """
    for where, tiles in (
        ("the table before the turn", [t for s in turn.before for t in s]),
        ("the table after the turn", [t for s in turn.after for t in s]),
        ("the rack", list(turn.rack or ())),
    ):
        if len(tiles) > box.tile_count:
            raise ImpossibleStateError(
                f"{where} holds {len(tiles)} tiles; the {box.title} box has {box.tile_count}"
            )


def _check_spots(turn: _Turn, spots: Collection[Spot]) -> None:
    for spot in spots:
        if not turn.has(spot):
            raise RummiError(f"uncertain tile {spot}: there is no tile there")


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
                tiles=changes.moved_table_tiles(),
            )
        )
    found += joker_violations(changes, rules, turn.opened or (opening_ok and rules.table_play_in_opening_turn), box)
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


def _invalid_sets(changes: TableChanges, verdict_of: VerdictOf, notes: list[str]) -> list[Violation]:
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
                tiles=changes.moved_table_tiles(),
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


def _opening(changes: TableChanges, rules: Rules, verdict_of: VerdictOf) -> tuple[list[Violation], int, bool]:
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
                tiles=changes.moved_table_tiles(),
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
            used += changes.moved_from(b)
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


def _time(turn: _Turn, rules: Rules) -> list[Violation]:
    if turn.seconds is None or rules.turn_seconds is None or turn.seconds <= rules.turn_seconds:
        return []
    return [
        Violation(
            Code.OVER_TIME,
            f"the turn took {turn.seconds:g} s; {rules.title} allows {rules.turn_seconds} s",
        )
    ]


# --- unsure tiles ------------------------------------------------------------------------


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
