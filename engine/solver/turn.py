"""The whole turn as one integer program, and its answer as sets.

Layers of sets (see :mod:`engine.solver.layer`):

* before the opening, ``opening``: sets of rack tiles only, worth at least the threshold; the
  table stays as it is (or, where the preset allows table play in the opening turn, a second
  ``table`` layer rearranges the table with the rest of the rack, no joker taken);
* after the opening, ``table``: every table tile and any rack tiles, freely rearranged;
  ``freed``: new sets of rack tiles for jokers taken from the table, when the rules demand that
  a freed joker go into a new set with own tiles.

Table jokers: a joker *stays* when some joker of the new table stands for a tile it could stand
for before (its meaning is kept), or when its whole set is left untouched. Otherwise it is
*freed*, which the rules may allow only with a replacement tile (from the rack, or also from the
table) and only if it lands in a ``freed`` set.

The objective packs the criteria in order: primary, then secondary, then the number of table
sets left untouched (fewest changes), with weights large enough that a lower criterion can never
outweigh one unit of a higher one.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from rummi.engine.melds import classify
from rummi.engine.solver.ilp import Expr, Model, add_into
from rummi.engine.solver.layer import Layer
from rummi.engine.solver.position import JokerUse, Position, TableJoker, TableSet
from rummi.engine.tiles import Tile


class Objective(enum.Enum):
    """What "best" means: most tiles (then most value), or most value (then most tiles)."""

    TILES = "tiles"
    VALUE = "value"


@dataclass
class TurnAnswer:
    """A proven-optimal play: played tiles and the whole new table."""

    played: list[Tile]
    table: list[list[Tile]]
    untouched: list[bool]  # per new set: an original table set left as it was
    tiles: int
    value: int
    opening_value: int
    proven: bool = True


def played_value(pos: Position, played: list[Tile]) -> int:
    """The points of the tiles a play lays from the rack: a number its face, a joker the rules'
    joker penalty (what it would cost left on the rack), the value the objectives weigh."""
    penalty = pos.rules.joker_penalty
    return sum(penalty if t.is_joker else t.number for t in played)  # type: ignore[misc]


def score(answer: TurnAnswer, objective: Objective) -> tuple[int, int, int]:
    """(primary, secondary, old sets left whole): what "best" compares."""
    first, second = (answer.tiles, answer.value) if objective is Objective.TILES else (answer.value, answer.tiles)
    return first, second, sum(answer.untouched)


def part_score(pos: Position, tiles: list[Tile], objective: Objective, kept: int = 0) -> tuple[int, int, int]:
    """The score, as :func:`score` counts it, of a part of a play fixed beforehand: ``tiles``
    laid from the rack and ``kept`` old sets left whole."""
    laid, value = len(tiles), played_value(pos, tiles)
    first, second = (laid, value) if objective is Objective.TILES else (value, laid)
    return first, second, kept


def less(whole: tuple[int, int, int], part: tuple[int, int, int]) -> tuple[int, int, int]:
    """A score of a whole play less that of a part fixed beforehand: what the rest of the play
    must reach (a floor) or cannot pass (a ceiling)."""
    return whole[0] - part[0], whole[1] - part[1], whole[2] - part[2]


def criterion_weights(pos: Position, objective: Objective) -> tuple[int, int]:
    """Weights of the primary and the secondary criterion in the packed objective.

    The sets left untouched count one each, below both; the weights are large enough that a
    lower criterion can never outweigh one unit of a higher one (the dynamic programme of
    :mod:`engine.solver.dp` packs its scores the same way).
    """
    jokers = sum(pos.rack_jokers.values())
    max_tiles = sum(pos.rack_count) + jokers
    rack_value = sum(pos.number_of(i) * c for i, c in enumerate(pos.rack_count) if c)
    max_value = rack_value + pos.rules.joker_penalty * jokers
    second_max = max_value if objective is Objective.TILES else max_tiles
    w2 = len(pos.sets) + 1
    return w2 * (second_max + 1), w2


def solve_turn(
    pos: Position, opened: bool, objective: Objective, *, with_threshold: bool = True,
    floor: tuple[int, int, int] | None = None, ceiling: tuple[int, int, int] | None = None,
) -> TurnAnswer | None:
    """Best play for this position, or ``None`` when there is no legal opening.

    ``with_threshold=False`` drops the opening threshold (used to tell a player how far short
    of it their best sets fall). ``floor`` and ``ceiling``, (primary, secondary, old sets
    kept): a legal play already found and a bound on every legal play, between which the
    search is confined (:func:`_between`); ``None`` then proves that nothing beats the floor.
    The fast routes pass what they learnt when they cannot prove their best play the best
    (engine.solver._beyond_the_fast_routes): the rows let HiGHS drop what cannot beat it.
    """
    rules = pos.rules
    model = Model()
    size = pos.size
    keys = pos.joker_keys
    played_joker = {k: model.var(pos.rack_jokers.get(k, 0)) for k in keys}
    # per tile: copies the layers and kept sets put on the new table (table copies included
    # when the table is rearranged; played = to_table - base)
    to_table: list[Expr] = [{} for _ in range(size)]
    # jokers placed by every layer and kept set = table jokers (constant) + jokers played
    joker_balance: dict[int, Expr] = {k: {v: -1.0} for k, v in played_joker.items()}
    joker_balance_const: dict[int, int] = {k: 0 for k in keys}
    untouched: Expr = {}
    opening_layer: Layer | None = None
    table_layer: Layer | None = None
    freed_layer: Layer | None = None
    set_vars: list[int | None] = [None] * len(pos.sets)
    locked_vars: list[list[int]] = [[] for _ in pos.sets]

    if not opened:
        joker_supply = dict(pos.rack_jokers) if rules.joker_in_opening else {}
        opening_layer = Layer(model, pos, pos.rack_count, joker_supply, joker_colours=False)
        if with_threshold:
            model.constrain(opening_layer.points, lo=rules.threshold)
        for i in range(size):
            add_into(to_table[i], opening_layer.real[i])
        for k, e in opening_layer.joker_by_key.items():
            add_into(joker_balance[k], e)

    # base: table tiles the modelled layers must place again (all of them, when rearranging)
    rearrange = opened or rules.table_play_in_opening_turn
    base = list(pos.table_count) if rearrange else [0] * size
    if rearrange:
        table_layer, set_vars, locked_vars = _table(model, pos, to_table, joker_balance, untouched, opened)
        freed_layer = _jokers(model, pos, table_layer, set_vars, to_table, joker_balance, opened)
        for j in pos.table_jokers:
            joker_balance_const[j.key] += 1

    for k, e in joker_balance.items():
        model.equal(e, joker_balance_const[k])
    for i in range(size):
        model.constrain(to_table[i], hi=base[i] + pos.rack_count[i])

    tiles: Expr = {v: 1.0 for v in played_joker.values()}
    value: Expr = {v: float(rules.joker_penalty) for v in played_joker.values()}
    for i in range(size):
        add_into(tiles, to_table[i])
        add_into(value, to_table[i], pos.number_of(i))
    primary, secondary = (tiles, value) if objective is Objective.TILES else (value, tiles)
    if opening_layer is not None and not with_threshold:
        primary = opening_layer.points  # how close to the threshold can the player get?
    w1, w2 = criterion_weights(pos, objective)
    model.maximise(primary, w1)
    model.maximise(secondary, w2)
    model.maximise(untouched, 1.0)
    if floor is not None or ceiling is not None:
        _between(model, (primary, secondary, untouched), _placed_again(pos, base, objective), floor, ceiling)

    x = model.solve()
    if x is None:
        return None

    def ev(e: Expr) -> int:
        return int(round(sum(c * x[v] for v, c in e.items())))

    played: list[Tile] = []
    for i in range(size):
        played += [pos.tile(i)] * (ev(to_table[i]) - base[i])
    for k, v in played_joker.items():
        played += [pos.joker_tile[k]] * int(x[v])
    sets: list[list[Tile]] = []
    flags: list[bool] = []
    if not rearrange:
        sets += [list(s) for s in pos.table_sets_in]
        flags += [True] * len(pos.table_sets_in)
    else:
        for k, s in enumerate(pos.sets):
            if set_vars[k] is not None and x[set_vars[k]] > 0:
                sets.append(list(s.tiles))
                flags.append(True)
            for option, jokers, var in zip(s.extensions, s.extension_jokers, locked_vars[k]):
                if x[var] > 0:
                    sets.append(extended(pos, s, option, jokers))
                    flags.append(not option and not jokers)
    for layer in (table_layer, freed_layer, opening_layer):
        if layer is not None:
            new = layer.sets(x)
            sets += new
            flags += [False] * len(new)
    return TurnAnswer(
        played=played,
        table=sets,
        untouched=flags,
        tiles=len(played),
        value=ev(value) - sum(pos.number_of(i) * base[i] for i in range(size)),
        opening_value=ev(opening_layer.points) if opening_layer is not None else 0,
        proven=model.proven,
    )


def _placed_again(pos: Position, base: list[int], objective: Objective) -> tuple[int, int, int]:
    """What the criteria's expressions count besides the play: the table tiles placed again
    (the tiles expression counts them, the value one their points), in criteria order."""
    tiles, value = sum(base), sum(pos.number_of(i) * n for i, n in enumerate(base))
    return (tiles, value, 0) if objective is Objective.TILES else (value, tiles, 0)


def _between(
    model: Model, criteria: tuple[Expr, Expr, Expr], constant: tuple[int, int, int],
    floor: tuple[int, int, int] | None, ceiling: tuple[int, int, int] | None,
) -> None:
    """Confine the search to plays scoring above ``floor`` (a legal play already found) and at
    most ``ceiling`` (a bound on every legal play), criterion by criterion: the primary between
    both, the secondary too where both agree on the primary, the old sets kept above the floor's
    where they agree on both. Each is a row of small coefficients (one row of the packed
    objective, tried first, was solved to a worse play than the best: HiGHS's tolerances
    against coefficients in the hundreds of thousands). Every better play lies in the region,
    so its optimum is the position's, and ``None`` proves the floor the best."""
    for rank, (expr, offset) in enumerate(zip(criteria, constant)):
        lo = -math.inf if floor is None else floor[rank] + offset + (rank == 2)
        hi = math.inf if ceiling is None else ceiling[rank] + offset
        model.constrain(expr, lo=lo, hi=hi)
        agreed = floor is not None and ceiling is not None and floor[rank] == ceiling[rank]
        if not agreed:
            break


def extended(pos: Position, s: TableSet, option: tuple[tuple[int, int], ...], jokers: JokerUse) -> list[Tile]:
    """Locked set ``s`` grown by one of its ways (``option``: (tile index, count) to add, and
    ``jokers``: rack jokers by kind), laid out as :func:`grown_set` lays it."""
    extra = [pos.tile(i) for i, n in option for _ in range(n)] + pos.joker_tiles(jokers)
    return grown_set(list(s.tiles), extra, pos.edition) if extra else list(s.tiles)


def grown_set(tiles: list[Tile], extra: list[Tile], edition: object) -> list[Tile]:
    """A locked set grown at its ends, laid out in reading order (jokers where they stand)."""
    grown = tiles + extra
    verdict = classify(grown, edition)
    jokers = [t for t in grown if t.is_joker]
    if not verdict.valid or any(t.joker is not None and t.joker.is_special for t in jokers):
        return grown
    reading = verdict.readings[0]
    numbered = [t for t in grown if not t.is_joker]
    # the joker standing for each tile (in Expert's box a group's coloured joker has one place)
    standing = dict(zip(reading.jokers, jokers))
    out: list[Tile] = []
    for stands in reading.stands_for:
        if stands in standing:
            joker = standing.pop(stands)
            jokers.remove(joker)
            out.append(joker)
        elif stands in numbered:
            numbered.remove(stands)
            out.append(stands)
    return out + numbered + jokers


def _meanings_needed(pos: Position, opened: bool) -> bool:
    """Whether table jokers must keep their meaning (then group jokers need named colours)."""
    rules = pos.rules
    if not pos.table_jokers:
        return False
    free = rules.free_by_rearranging and rules.freed_min_own_tiles == 0 and not rules.freed_in_new_set
    return not (opened and free)


def _table(
    model: Model,
    pos: Position,
    to_table: list[Expr],
    joker_balance: dict[int, Expr],
    untouched: Expr,
    opened: bool,
) -> tuple[Layer, list[int | None], list[list[int]]]:
    """The table layer: all table tiles placed, any rack tiles added, sets kept or rebuilt.

    Each original set may be left untouched (one binary); a locked set picks one of its
    extensions (the first is "as it is"). Their tiles then count as placed.
    """
    supply = [pos.table_count[i] + pos.rack_count[i] for i in range(pos.size)]
    joker_supply: dict[int, int] = dict(pos.rack_jokers)
    for j in pos.table_jokers:
        joker_supply[j.key] = joker_supply.get(j.key, 0) + 1
    layer = Layer(model, pos, supply, joker_supply, joker_colours=_meanings_needed(pos, opened))
    # what this layer and the old sets place; every table tile must be among it (the freed
    # layer holds rack tiles only, so it cannot stand in for a table tile)
    placed: list[Expr] = [dict(layer.real[i]) for i in range(pos.size)]
    for k, e in layer.joker_by_key.items():
        add_into(joker_balance[k], e)
    set_vars: list[int | None] = [None] * len(pos.sets)
    locked_vars: list[list[int]] = [[] for _ in pos.sets]
    for k, s in enumerate(pos.sets):
        if s.locked:
            # its jokers never leave it: they are on both sides of the balance, left out
            options = [model.var(1) for _ in s.extensions]
            model.equal({v: 1.0 for v in options}, 1)
            untouched[options[0]] = 1.0
            for option, jokers, var in zip(s.extensions, s.extension_jokers, options):
                for i, n in s.counts + option:
                    placed[i][var] = placed[i].get(var, 0.0) + n
                for key, n in jokers:  # rack jokers it grows by, of each kind
                    joker_balance[key][var] = joker_balance[key].get(var, 0.0) + n
            locked_vars[k] = options
        elif not s.keepable:
            continue  # loose tiles (engine.solver.specials took the rest): placed, never kept
        else:
            var = model.var(1)
            set_vars[k] = var
            untouched[var] = 1.0
            for i, n in s.counts:
                placed[i][var] = placed[i].get(var, 0.0) + n
            for key in s.joker_keys:
                joker_balance[key][var] = joker_balance[key].get(var, 0.0) + 1
    for i in range(pos.size):
        model.constrain(placed[i], lo=pos.table_count[i])
        add_into(to_table[i], placed[i])
    return layer, set_vars, locked_vars


def _jokers(
    model: Model,
    pos: Position,
    layer: Layer,
    set_vars: list[int | None],
    to_table: list[Expr],
    joker_balance: dict[int, Expr],
    opened: bool,
) -> Layer | None:
    """Table jokers: kept (meaning kept, or set untouched) or freed under the preset's rules."""
    rules = pos.rules
    jokers = pos.table_jokers
    if not jokers:
        return None
    can_free = opened
    landing = rules.freed_in_new_set or rules.freed_min_own_tiles > 0

    def needs_replacement(j: TableJoker) -> bool:
        return j.needs_all or not rules.free_by_rearranging

    if can_free and not landing and not any(needs_replacement(j) for j in jokers):
        return None  # a freed joker may go anywhere: no constraint at all
    freed_layer: Layer | None = None
    if can_free and landing:
        supply = dict(pos.rack_jokers)
        for j in jokers:
            supply[j.key] = supply.get(j.key, 0) + 1
        freed_layer = Layer(
            model, pos, pos.rack_count, supply,
            min_reals=max(1, rules.freed_min_own_tiles), joker_colours=False,
        )
        for i in range(pos.size):
            add_into(to_table[i], freed_layer.real[i])
        for k, e in freed_layer.joker_by_key.items():
            add_into(joker_balance[k], e)
    slot_users: dict[int, Expr] = {}
    replacement_users: dict[int, Expr] = {}
    kept_by_key: dict[int, Expr] = {}
    count_by_key: dict[int, int] = {}
    for j in jokers:
        keep: Expr = {model.var(1): 1.0} if can_free else {}
        # kept: its set untouched, or some joker of the new table has one of its meanings
        stay: Expr = {}
        sv = set_vars[j.set_index]
        if sv is not None:
            stay[sv] = 1.0
        # its place is kept by a joker standing for one of its meanings in a set of its kind
        for in_run, meanings in ((True, j.run_meanings), (False, j.group_meanings)):
            for t in meanings:
                q = model.var(1)
                stay[q] = 1.0
                slot_users.setdefault((in_run, t), {})[q] = 1.0
        row = add_into(dict(stay), keep, -1.0)
        model.equal(row, 0 if can_free else 1)
        if not can_free:
            continue
        add_into(kept_by_key.setdefault(j.key, {}), keep)
        count_by_key[j.key] = count_by_key.get(j.key, 0) + 1
        if needs_replacement(j):
            rvars = {t: model.var(1) for t in j.meanings}
            if j.needs_all:
                for r in rvars.values():
                    model.equal(add_into({r: 1.0}, keep), 1)  # r = 1 - keep
            else:
                model.equal(add_into({r: 1.0 for r in rvars.values()}, keep), 1)
            for t, r in rvars.items():
                replacement_users.setdefault(t, {})[r] = 1.0
    for (in_run, t), users in slot_users.items():
        slots = layer.joker_in_run[t] if in_run else layer.joker_in_group[t]
        model.constrain(add_into(dict(users), slots, -1.0), hi=0)
    for t, users in replacement_users.items():
        # replacement tiles: played from the rack (or already on the table, where allowed),
        # and not the tiles of a freed joker's new set (one tile does one job)
        spare = pos.table_count[t] if rules.replacement_from_table else 0
        row = add_into(dict(users), to_table[t], -1.0)
        if freed_layer is not None:
            add_into(row, freed_layer.real[t])
        # to_table counts the table's own tiles too: played = to_table - table_count
        model.constrain(row, hi=spare - pos.table_count[t])
    if freed_layer is not None:
        for key, kept in kept_by_key.items():
            # jokers in freed sets >= freed table jokers = jokers of that kind - kept ones
            row = add_into(dict(kept), freed_layer.joker_by_key.get(key, {}))
            model.constrain(row, lo=count_by_key[key])
    return freed_layer
