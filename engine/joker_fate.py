"""What happened to each table joker in a turn: the one definition the referee and the solver share.

Two pictures of the table (before and after a turn) do not show which joker went where, nor
which of two equal tiles came from the rack. So the turn is read the way that is kindest to the
player: it is legal when *some* way of telling the jokers and equal tiles apart makes it legal
(a player could have made exactly those moves). Every question is answered with counts, so the
solver's integer program (:mod:`engine.solver.turn`) encodes the same definition constraint for
constraint, and :func:`read_joker_fates` is what the referee (:mod:`engine.referee.jokers`)
judges with. The definition, per joker lying on the table before the turn (rules.md 4.2):

* **kept**: its old set is still on the table with exactly its tiles; or, under
  ``locked_joker_sets``, all of its old set's tiles still lie together in one set; or some joker
  of the new table stands, in a reading of its set, for a tile this joker could stand for before
  *in a set of the same kind* (a run joker at its place in a run, a group joker in a group of its
  number), one new joker per kept joker. Such a joker never had to move: the tiles around it were
  added, split off or taken away (``r5 r6 r7 J r9`` + ``r7`` -> ``r5 r6 r7 | r7 J r9`` keeps it).
  A group joker that turns up in a run jumped sets, so it was freed
  (``k3 r3 J | b4 b5 b6`` + ``o3 b2`` -> ``k3 r3 o3 | b2 J b4 b5 b6`` frees it).
* **freed**: every other joker. Only after the player's opening (or in the opening turn where
  the preset allows table play). Then, by the preset:

  * *replacement* (``joker_free_by_rearranging`` false, and always for the strict 3-tile group
    of ``strict_joker_group``): a tile it could stand for (both missing colours for a strict
    group) played from the rack, or also one already on the table where
    ``joker_replacement_from_table`` allows it; one replacement tile per freed joker;
  * *landing* (``freed_joker_in_new_set``, or ``freed_joker_min_own_tiles`` > 0): it goes into a
    new set made of jokers and rack tiles only, with at least max(1, n) numbered tiles. Tiles
    that replace a freed joker are not the tiles of its new set (one tile does one job).

A joker in an old set that was already invalid has no known meaning; nothing is asked of it.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from rummi.engine.editions import EDITIONS, Edition, get_edition
from rummi.engine.melds import SetKind, SetVerdict, classify
from rummi.engine.notation import format_tiles
from rummi.engine.tiles import Tile, sort_tiles

Sets = Sequence[Sequence[Tile]]

#: Codes of the problems this module finds (the referee's violation codes of the same name).
BEFORE_OPENING = "joker_before_opening"
TOO_FEW_OWN_TILES = "freed_joker_too_few_own_tiles"
NOT_IN_NEW_SET = "freed_joker_not_in_new_set"
REPLACED_FROM_TABLE = "joker_replaced_from_table"
FREED_BY_REARRANGING = "joker_freed_by_rearranging"
STRICT_GROUP = "strict_joker_group"
LOCKED_SET = "locked_joker_set"

RACK = "rack"
TABLE = "table"


@dataclass(frozen=True)
class JokerFate:
    """What happened to one table joker.

    ``after_set``: kept, the set it stays in; freed, its new set (``None`` when it is gone or no
    set qualifies). ``stands_for``: kept, the tile it still stands for (``None`` when its set is
    unchanged). ``replaced_by`` / ``replaced_from``: a freed joker's replacement tiles and
    whether they came from the rack or the table (empty / ``None``: freed by rearranging).
    ``own_tiles``: numbered rack tiles in a freed joker's new set.
    """

    before_set: int
    joker: Tile
    kept: bool
    after_set: int | None = None
    stands_for: Tile | None = None
    replaced_by: tuple[Tile, ...] = ()
    replaced_from: str | None = None
    own_tiles: int = 0


@dataclass(frozen=True)
class JokerProblem:
    """A joker rule the turn breaks: ``code`` is the referee's violation code."""

    code: str
    message: str
    tiles: tuple[Tile, ...] = ()
    sets: tuple[int, ...] = ()


@dataclass(frozen=True)
class JokerReading:
    """The kindest reading of a turn's table jokers, and what it still breaks."""

    fates: tuple[JokerFate, ...]
    problems: tuple[JokerProblem, ...]
    #: no rule broken (a joker that left the table is the referee's own check, not this one's)
    legal: bool


@dataclass(frozen=True)
class JokerRules:
    """The preset fields this definition reads (any object with the attribute names works)."""

    title: str = "these rules"
    replacement_from_table: bool = False
    free_by_rearranging: bool = True
    min_own_tiles: int = 2
    in_new_set: bool = True
    strict_group: bool = False
    locked_sets: bool = False

    @classmethod
    def of(cls, rules: object) -> JokerRules:
        return cls(
            title=str(getattr(rules, "title", cls.title)),
            replacement_from_table=bool(rules.joker_replacement_from_table),
            free_by_rearranging=bool(rules.joker_free_by_rearranging),
            min_own_tiles=int(rules.freed_joker_min_own_tiles),
            in_new_set=bool(rules.freed_joker_in_new_set),
            strict_group=bool(rules.strict_joker_group),
            locked_sets=bool(rules.locked_joker_sets),
        )

    @property
    def landing(self) -> bool:
        """Whether a freed joker must go into a new set of own tiles."""
        return self.in_new_set or self.min_own_tiles > 0

    @property
    def landing_reals(self) -> int:
        return max(1, self.min_own_tiles)


def meanings_by_kind(verdict: SetVerdict, joker: int) -> dict[SetKind, frozenset[Tile]]:
    """Every tile joker number ``joker`` of a valid set may stand for, per kind of reading."""
    out: dict[SetKind, set[Tile]] = {}
    for reading in verdict.readings:
        if joker < len(reading.jokers):
            out.setdefault(reading.kind, set()).add(reading.jokers[joker])
    return {kind: frozenset(tiles) for kind, tiles in out.items()}


def is_strict_group(verdict: SetVerdict) -> bool:
    """A 3-tile group with one joker: under ``strict_joker_group`` it needs both missing colours."""
    tiles = verdict.tiles
    return (
        verdict.valid
        and len(tiles) == 3
        and sum(1 for t in tiles if t.is_joker) == 1
        and all(r.kind is SetKind.GROUP for r in verdict.readings)
    )


@dataclass(frozen=True)
class _Loose:
    """A table joker whose old set did not survive: kept by its meaning, or freed."""

    before_set: int
    joker: Tile
    meanings: dict[SetKind, frozenset[Tile]]
    needs_all: bool  # strict 3-tile group: every meaning must replace it


def read_joker_fates(
    before: Sets,
    after: Sets,
    *,
    rules: object,
    may_take: bool,
    edition: Edition | str | None = None,
    verdict_of: Callable[[tuple[Tile, ...]], SetVerdict] | None = None,
) -> JokerReading:
    """The kindest reading of what happened to each table joker in the turn ``before`` -> ``after``.

    ``may_take``: the player may take table jokers this turn (they had opened, or the preset lets
    them play on the table in the opening turn once the opening stands).

    ``verdict_of``: how a set is classified, where it is not ``classify`` in ``edition``. Without
    it, in a built-in edition, the reading is remembered for the last few turns asked: the hint
    solver asks it of the play it settles on, and the referee's whole judgement of that play
    asks it again (the same turn, the same answer: a reading is immutable, so sharing it is safe).
    """
    rule = rules if isinstance(rules, JokerRules) else JokerRules.of(rules)
    old = tuple(tuple(s) for s in before)
    new = tuple(tuple(s) for s in after)
    if verdict_of is None:
        box = get_edition(edition)
        if EDITIONS.get(box.name) is box:
            return _read_remembered(old, new, rule, may_take, box.name)
        verdict_of = functools.lru_cache(maxsize=None)(lambda tiles: classify(tiles, box))
    return _read(old, new, rule, may_take, verdict_of)


@functools.lru_cache(maxsize=64)
def _read_remembered(
    old: tuple[tuple[Tile, ...], ...], new: tuple[tuple[Tile, ...], ...], rule: JokerRules, may_take: bool,
    edition_name: str,
) -> JokerReading:
    box = EDITIONS[edition_name]
    return _read(old, new, rule, may_take, lambda tiles: classify(tiles, box))


def _read(
    old: tuple[tuple[Tile, ...], ...],
    new: tuple[tuple[Tile, ...], ...],
    rule: JokerRules,
    may_take: bool,
    verdict_of: Callable[[tuple[Tile, ...]], SetVerdict],
) -> JokerReading:
    """:func:`read_joker_fates` proper."""
    played = Counter(t for s in new for t in s) - Counter(t for s in old for t in s)
    played_num = Counter({t: n for t, n in played.items() if not t.is_joker})
    after_num = Counter(t for s in new for t in s if not t.is_joker)

    fates: list[JokerFate] = []
    problems: list[JokerProblem] = []
    hosts = intact_pairs(old, new)  # before index -> after index
    used_after = set(hosts.values())
    loose: list[_Loose] = []
    for b, tiles in enumerate(old):
        jokers = [t for t in tiles if t.is_joker]
        if not jokers:
            continue
        if b in hosts:
            fates += [JokerFate(b, j, kept=True, after_set=hosts[b]) for j in jokers]
            continue
        verdict = verdict_of(tiles)
        if rule.locked_sets:
            host = _grown_host(tiles, new, used_after, verdict_of)
            if host is not None:
                used_after.add(host)
                fates += [JokerFate(b, j, kept=True, after_set=host) for j in jokers]
                continue
            problems.append(
                JokerProblem(
                    LOCKED_SET,
                    f"a set holding a joker ({format_tiles(tiles)}) may only be added to under {rule.title}",
                    tiles=tiles,
                )
            )
        if not verdict.valid:
            continue  # what its jokers stood for is unknown: the set was broken already
        strict = rule.strict_group and is_strict_group(verdict)
        for i, joker in enumerate(jokers):
            loose.append(_Loose(b, joker, meanings_by_kind(verdict, i), strict))

    if not loose:
        return JokerReading(tuple(fates), tuple(problems), legal=not problems)
    jokers_gone = sum(1 for s in new for t in s if t.is_joker) < sum(1 for s in old for t in s if t.is_joker)
    best = _kindest(loose, new, used_after, rule, may_take, played_num, after_num, verdict_of, jokers_gone)
    fates += best.fates
    problems += best.problems
    return JokerReading(tuple(fates), tuple(problems), legal=not problems and best.ok)


def intact_pairs(old: Sequence[Sequence[Tile]], new: Sequence[Sequence[Tile]]) -> dict[int, int]:
    """Old sets still on the table with exactly their tiles (any order): before index -> after
    index, each after-set paired once, the first free one in table order."""
    free: dict[tuple[str, ...], list[int]] = {}
    for a, s in enumerate(new):
        free.setdefault(tuple(sorted(map(str, s))), []).append(a)
    pairs: dict[int, int] = {}
    for b, tiles in enumerate(old):
        left = free.get(tuple(sorted(map(str, tiles))))
        if left:
            pairs[b] = left.pop(0)
    return pairs


def _grown_host(
    tiles: tuple[Tile, ...],
    new: tuple[tuple[Tile, ...], ...],
    used: set[int],
    verdict_of: Callable[[tuple[Tile, ...]], SetVerdict],
) -> int | None:
    """An after-set in which a locked old set only grew, or ``None``.

    It holds every tile of the old set, and in one of its readings the old set's jokers still
    stand for what they could stand for before (a run grew at its ends, a group by missing
    colours; a tile taking a joker's place while the joker moves on is a rearrangement).
    """
    wanted = Counter(tiles)
    old = verdict_of(tiles)
    jokers = sum(1 for t in tiles if t.is_joker)
    own = [t for t in tiles if t.is_joker]
    olds = [_Loose(-1, t, meanings_by_kind(old, i), False) for i, t in enumerate(own)] if old.valid else []
    for a, s in enumerate(new):
        if a in used or wanted - Counter(s):
            continue
        if not old.valid or not jokers:
            return a
        for option in _slot_options(s, verdict_of(s)):
            slots = [(kind, tile, a, joker) for kind, tile, joker in option]
            if _match(olds, slots) is not None:
                return a
    return None


@dataclass(frozen=True)
class _Pools:
    """Per family of landing sets: the tiles that may replace a freed joker (what the landing
    sets do not use), and the played and table tiles left for the record of a replacement."""

    spare: Counter[Tile]
    rack_left: Counter[Tile]
    table_left: Counter[Tile]


@dataclass
class _Attempt:
    ok: bool
    fates: list[JokerFate]
    problems: list[JokerProblem]
    kept: int


def _kindest(
    loose: list[_Loose],
    new: tuple[tuple[Tile, ...], ...],
    used_after: set[int],
    rule: JokerRules,
    may_take: bool,
    played_num: Counter[Tile],
    after_num: Counter[Tile],
    verdict_of: Callable[[tuple[Tile, ...]], SetVerdict],
    jokers_gone: bool,
) -> _Attempt:
    """Try every way to tell the jokers apart; the first legal one, else the one breaking least."""
    joker_sets = [a for a, s in enumerate(new) if a not in used_after and any(t.is_joker for t in s)]
    reals = rule.landing_reals
    candidates = [
        a
        for a in joker_sets
        if verdict_of(new[a]).valid
        and sum(1 for t in new[a] if not t.is_joker) >= reals
        and not Counter(t for t in new[a] if not t.is_joker) - played_num
    ]
    families: Iterator[tuple[int, ...]] = (
        (f for r in range(len(candidates), -1, -1) for f in itertools.combinations(candidates, r))
        if rule.landing
        else iter([()])
    )
    best: _Attempt | None = None
    table_left = after_num - played_num  # once per turn, not per attempt: the judge's hot loop
    for family in families:
        landed = Counter(t for a in family for t in new[a] if not t.is_joker)
        if landed - played_num:
            continue
        landing_jokers = Counter(t for a in family for t in new[a] if t.is_joker)
        pools = _Pools(
            spare=(after_num if rule.replacement_from_table else played_num) - landed,
            rack_left=played_num - landed,
            table_left=table_left,
        )
        slot_sets = [a for a in joker_sets if a not in family]
        options = [_slot_options(new[a], verdict_of(new[a])) for a in slot_sets]
        for choice in itertools.product(*options):
            slots = [(kind, tile, a, joker) for a, picked in zip(slot_sets, choice) for kind, tile, joker in picked]
            for kept_count in range(len(loose), -1, -1):
                for kept_ids in itertools.combinations(range(len(loose)), kept_count):
                    attempt = _try(
                        loose, kept_ids, slots, family, landing_jokers, pools, rule, may_take,
                        played_num, after_num, new, joker_sets, jokers_gone,
                    )
                    if attempt is None:
                        continue
                    if attempt.ok:
                        return attempt
                    if best is None or (len(attempt.problems), -attempt.kept) < (
                        len(best.problems), -best.kept
                    ):
                        best = attempt
    assert best is not None  # keeping no joker always matches
    return best


def _slot_options(
    tiles: tuple[Tile, ...], verdict: SetVerdict
) -> list[tuple[tuple[SetKind, Tile, Tile], ...]]:
    """Per reading of an after-set, the (kind, tile, joker) of each of its jokers: what it stands
    for and which joker it is (Twist's and Expert's jokers are not interchangeable)."""
    if not verdict.valid:
        return [()]
    seen: list[tuple[tuple[SetKind, Tile], ...]] = []
    for reading in verdict.readings:
        jokers = [t for t in tiles if t.is_joker]  # reading.jokers follows their order
        option = tuple((reading.kind, t, j) for t, j in zip(reading.jokers, jokers))
        if option not in seen:
            seen.append(option)
    return seen or [()]


def _try(
    loose: list[_Loose],
    kept_ids: tuple[int, ...],
    slots: list[tuple[SetKind, Tile, int, Tile]],
    family: tuple[int, ...],
    landing_jokers: Counter[Tile],
    pools: _Pools,
    rule: JokerRules,
    may_take: bool,
    played_num: Counter[Tile],
    after_num: Counter[Tile],
    new: tuple[tuple[Tile, ...], ...],
    joker_sets: list[int],
    jokers_gone: bool,
) -> _Attempt | None:
    kept = [loose[i] for i in kept_ids]
    freed = [j for i, j in enumerate(loose) if i not in kept_ids]
    match = _match(kept, slots)
    if match is None:
        return None
    fates = [
        JokerFate(j.before_set, j.joker, kept=True, after_set=slots[s][2], stands_for=slots[s][1])
        for j, s in zip(kept, match)
    ]
    problems: list[JokerProblem] = []
    ok = True
    if freed and not may_take:
        ok = False
        problems.append(
            JokerProblem(
                BEFORE_OPENING,
                "a joker on the table may only be taken after the player's own opening",
                tiles=tuple(j.joker for j in freed),
            )
        )
    # replacements: from what the new sets of freed jokers do not use
    spare = pools.spare
    needy = [j for j in freed if j.needs_all or not rule.free_by_rearranging]
    picks = _replacements(needy, spare)
    if picks is None:
        ok = False
        problems += _replacement_problems(needy, spare, played_num, after_num, rule)
        picks = {}
    # landing: the freed jokers themselves in new sets of own tiles (Expert's and Twist's
    # jokers are not interchangeable: a black joker there does not house a freed red one)
    homes = list(family)
    if rule.landing and Counter(j.joker for j in freed) - landing_jokers:
        ok = False
        taken = Counter(slots[s][2] for s in match)
        for a in joker_sets:
            if a in family:
                continue
            loose_here = sum(1 for t in new[a] if t.is_joker) - taken[a]
            if loose_here > 0:
                problems += _landing_problems(a, new[a], played_num, rule)
        if not problems and not jokers_gone:
            # the only new sets of own tiles use the tiles that replaced the jokers
            problems.append(
                JokerProblem(
                    TOO_FEW_OWN_TILES,
                    "a freed joker needs a new set of its own rack tiles besides the tiles that "
                    f"replaced it ({format_tiles(sort_tiles(t for v in picks.values() for t in v))})",
                    tiles=tuple(t for v in picks.values() for t in v),
                )
            )
    room = {a: Counter(t for t in new[a] if t.is_joker) for a in homes}
    for j in freed:
        home = next((a for a in homes if room[a][j.joker] > 0), None)
        if home is not None:
            room[home][j.joker] -= 1
        own = sum(1 for t in new[home] if not t.is_joker) if home is not None else 0
        by = picks.get(id(j), ()) or _seen_replacement(j, pools.rack_left, pools.table_left)
        fates.append(
            JokerFate(
                j.before_set, j.joker, kept=False, after_set=home, replaced_by=by,
                replaced_from=(_source(by, played_num) if by else None), own_tiles=own,
            )
        )
    return _Attempt(ok, fates, problems, len(kept))


def _match(kept: list[_Loose], slots: list[tuple[SetKind, Tile, int, Tile]]) -> list[int] | None:
    """One slot per kept joker, held by the same kind of joker (plain jokers are all alike; a
    Twist colour-change joker whose place a standard joker took was moved, not kept), of its
    old kind, standing for one of its meanings."""
    used = [False] * len(slots)
    out: list[int] = []

    def go(i: int) -> bool:
        if i == len(kept):
            return True
        for s, (kind, tile, _, joker) in enumerate(slots):
            if not used[s] and joker == kept[i].joker and tile in kept[i].meanings.get(kind, ()):
                used[s] = True
                out.append(s)
                if go(i + 1):
                    return True
                out.pop()
                used[s] = False
        return False

    return out if go(0) else None


def _replacements(needy: list[_Loose], spare: Counter[Tile]) -> dict[int, tuple[Tile, ...]] | None:
    """Replacement tiles for the freed jokers that need one, each tile used once; or ``None``."""
    choices = []
    for j in needy:
        meanings = sort_tiles({t for tiles in j.meanings.values() for t in tiles})
        choices.append([tuple(meanings)] if j.needs_all else [(t,) for t in meanings])
    for pick in itertools.product(*choices):
        if not Counter(t for tiles in pick for t in tiles) - spare:
            return {id(j): tiles for j, tiles in zip(needy, pick)}
    return None


def _seen_replacement(j: _Loose, rack_left: Counter[Tile], table_left: Counter[Tile]) -> tuple[Tile, ...]:
    """For a joker the preset lets go without one: a tile it stood for that came in from the
    rack, else one on the table, as the turn's record of what took its place (or nothing)."""
    meanings = sort_tiles({t for tiles in j.meanings.values() for t in tiles})
    for pool in (rack_left, table_left):
        for t in meanings:
            if pool[t] > 0:
                return (t,)
    return ()


def _source(tiles: tuple[Tile, ...], played_num: Counter[Tile]) -> str:
    return RACK if not Counter(tiles) - played_num else TABLE


def _replacement_problems(
    needy: list[_Loose], spare: Counter[Tile], played_num: Counter[Tile], after_num: Counter[Tile],
    rule: JokerRules,
) -> list[JokerProblem]:
    out = []
    for j in needy:
        meanings = sort_tiles({t for tiles in j.meanings.values() for t in tiles})
        shown = "(" + " ".join(map(str, meanings)) + ")"
        if j.needs_all:
            missing = [t for t in meanings if spare[t] == 0]
            out.append(
                JokerProblem(
                    STRICT_GROUP,
                    f"the joker of a 3-tile group may only be taken when both missing colours "
                    f"{shown} are added; {format_tiles(missing or meanings)} missing",
                    tiles=tuple(missing or meanings),
                )
            )
            continue
        on_table = [t for t in meanings if after_num[t] > played_num[t]]
        if on_table and not rule.replacement_from_table and not any(played_num[t] for t in meanings):
            out.append(
                JokerProblem(
                    REPLACED_FROM_TABLE,
                    f"the joker {shown} was replaced by {format_tiles(on_table)} taken from another "
                    f"set; under {rule.title} the replacement must come from the rack",
                    tiles=tuple(on_table),
                )
            )
        else:
            out.append(
                JokerProblem(
                    FREED_BY_REARRANGING,
                    f"the joker {shown} was freed without a tile that replaces it; {rule.title} asks "
                    f"for one {'from the rack' if not rule.replacement_from_table else ''}".rstrip(),
                    tiles=(j.joker,),
                )
            )
    return out


def _landing_problems(a: int, tiles: tuple[Tile, ...], played_num: Counter[Tile], rule: JokerRules) -> list[JokerProblem]:
    numbered = Counter(t for t in tiles if not t.is_joker)
    own = sum((numbered & played_num).values())
    out = []
    from_table = sort_tiles((numbered - played_num).elements())
    if from_table and rule.in_new_set:
        out.append(
            JokerProblem(
                NOT_IN_NEW_SET,
                f"a freed joker must start a new set of the player's own tiles; it went into "
                f"{format_tiles(tiles)}, which holds {format_tiles(from_table)} from the table",
                tiles=tiles,
                sets=(a,),
            )
        )
    if own < rule.landing_reals and (rule.min_own_tiles > 0 or not from_table):
        out.append(
            JokerProblem(
                TOO_FEW_OWN_TILES,
                f"a freed joker went into {format_tiles(tiles)} with {own} tile{'s' if own != 1 else ''} "
                f"from the rack; {rule.title} asks for at least {rule.landing_reals}",
                tiles=tiles,
                sets=(a,),
            )
        )
    return out
