"""Table jokers under the presets' retrieval rules, by the dynamic programme, one fate at a time.

The dynamic programme (:mod:`engine.solver.dp`) knows jokers that go anywhere. Under most
presets a table joker may not: it is *kept* (it goes on standing, in a set of its old kind, for
a tile it stood for; its old set left whole is one such case) or *freed*, and then it needs a
replacement tile from the rack (or the table where the preset allows it) and a new set of own
tiles (:mod:`engine.joker_fate`, the definition the referee judges with). So each table joker is
given each of its fates in turn, and every combination of fates becomes a plain position the
programme solves in milliseconds:

* kept as tile t: the joker *is* a table tile t (it must be placed, it is not played);
* freed with replacement r: r leaves the rack for the table (it must be placed and counts as
  played), the joker becomes a free table joker, and its old set can no longer be kept whole.

Each such position is a *relaxation* of its fate (a kept joker's tile may land in a set of the
other kind; a freed joker's landing rule is not asked), and every legal play lies in one of
them. So the best answer over all combinations bounds every legal play: when the referee
accepts it, it is the best legal play, tie-breaks included. When it does not, or a combination
is beyond the programme, :func:`solve` says ``None`` and the integer program answers; but a
kept joker whose tile would be a fourth of a kind (XP: the programme holds three) is walked as
a *bound*, a free joker whose set may stay whole, and counts once the referee accepts its play.
Each new best is judged at once, and the combinations after an accepted one walk with it as
their *floor* (``dp.solve_after_opening(floor=...)``), which prunes what cannot beat it.

On a big table the programme only tries plays of the whole rack (:class:`dp.NoWholeRack` when
there is none): a combination without one cannot beat an accepted whole-rack play, since that
one plays more tiles and more points.

The solver asks the fates after the play with every joker free, whose answer (when the referee
rejects it) bounds theirs; with Expert's coloured jokers on the table it asks them first, with
no such bound (:func:`first`: there the free walk is the costly one).
"""

from __future__ import annotations

import copy
import heapq
import itertools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from rummi.engine.melds import SetKind, classify
from rummi.engine.solver import dp
from rummi.engine.solver.position import ANY, Position, TableJoker, TableSet
from rummi.engine.solver.specials import reading_order
from rummi.engine.solver.turn import Objective, TurnAnswer, less, part_score, played_value, score
from rummi.engine.tiles import Tile

#: combinations of fates tried before the integer program is left the position (each is one
#: solve of a few milliseconds; three jokers of four fates each is 64)
MAX_COMBINATIONS = 64


@dataclass(frozen=True)
class Fate:
    """One way a table joker may end the turn: kept as the tile index ``keep_as``, or freed
    (``keep_as`` is None) with the rack tile indices ``replaced_by`` played as replacements."""

    joker: TableJoker
    keep_as: int | None
    replaced_by: tuple[int, ...] = ()
    #: kept: the kind of set it stands in (a joker keeps its place only in a set of its old kind)
    kind: SetKind | None = None
    #: a kept fate the programme cannot hold (its tile would be a fourth of a kind in a box of
    #: three), walked as a free table joker whose old set may still stay whole: a relaxation
    #: that bounds the kept fates it stands for, so its answer counts only once judged legal
    bound: bool = False
    #: the joker stays in its old set, left exactly as it was (:func:`_whole_part`: the exact
    #: part of a bound; ``keep_as`` None, but not freed)
    whole: bool = False

    @property
    def freed(self) -> bool:
        """Whether the joker leaves its old set for a new one (a bound counts: it may)."""
        return self.keep_as is None and not self.whole


def applies(pos: Position, opened: bool) -> bool:
    """Table jokers whose retrieval the preset rules, in a position the programme can walk once
    they are settled (plain jokers, no locked set, after the opening)."""
    if not opened or not pos.table_jokers or pos.unplayable_rack:
        return False
    if any(s.locked for s in pos.sets):
        return False
    return dp.applies(_free(pos, pos.table_jokers), opened)


def first(pos: Position, opened: bool) -> bool:
    """Whether to walk the fates before the play with every joker free: where a table joker is
    one of Expert's coloured jokers. The free walk there is the costly one (a free coloured
    joker may stand in any set of its colour, a wild the walk carries from number to number);
    each fate makes the joker a tile or a replacement, and the fates' walks together visited
    2.4 times fewer states (benchmarks/solver_profile.py, Expert class, seeds 0-29: 29.7k a
    hint against 71.6k). Without that bound the search walks every combination, each after
    the first accepted one with it as its floor, and answers the same best legal play.
    Elsewhere the free play is often legal as it stands, and walking it first stays cheaper."""
    coloured = pos.edition.coloured_jokers and any(j.key not in (ANY, None) for j in pos.table_jokers)
    return coloured and applies(pos, opened)


def fates_of(pos: Position, joker: TableJoker) -> list[Fate]:
    """Every fate of ``joker``: kept at each of its meanings, freed with each replacement the
    rules and the rack allow (none needed where it may be freed by rearranging)."""
    rules = pos.rules
    out = [Fate(joker, m, kind=SetKind.RUN) for m in joker.run_meanings]
    out += [Fate(joker, m, kind=SetKind.GROUP) for m in joker.group_meanings]
    if joker.needs_all:  # a strict 3-tile group: both missing colours
        options = [tuple(joker.meanings)]
    elif rules.free_by_rearranging:
        options = [()]
    else:
        options = [(m,) for m in joker.meanings]
    freed: set[tuple[int, ...]] = set()
    for option in options:
        from_rack = tuple(m for m in option if not (rules.replacement_from_table and pos.table_count[m] > 0))
        if not Counter(from_rack) - Counter({i: n for i, n in enumerate(pos.rack_count) if n}):
            freed.add(tuple(sorted(from_rack)))
    out += [Fate(joker, None, r) for r in sorted(freed)]
    return out


@dataclass(frozen=True)
class Search:
    """What the fates' search proved: ``best``, the best legal play, or ``None`` when it could
    not prove one; then ``accepted``, the best play the referee accepted on the way (or
    ``None``), a legal play that the integer program, answering instead, need only beat."""

    best: TurnAnswer | None
    accepted: TurnAnswer | None = None


def solve(
    pos: Position,
    objective: Objective,
    legal: Callable[[TurnAnswer], bool],
    upper: TurnAnswer | None = None,
) -> TurnAnswer | None:
    """The best legal play, or ``None`` when this route cannot prove one (the integer program
    then answers): :func:`search` without what it found on the way."""
    return search(pos, objective, legal, upper).best


def search(
    pos: Position,
    objective: Objective,
    legal: Callable[[TurnAnswer], bool],
    upper: TurnAnswer | None = None,
) -> Search:
    """The best legal play, or the best one accepted on the way when this route cannot prove
    it the best (:class:`Search`). ``upper``: the play with every joker free, which bounds
    them all; an accepted answer that reaches it ends the search early.

    Best first: the best answer over the combinations is judged; if the referee rejects it
    and a joker was freed, that combination is split by the new sets the jokers land in
    (each split exact for the landing rule) and the search goes on; a rejected bound or a
    search past its walk budget gives up. An accepted answer is the floor of the walks after it.
    """
    per_joker = [fates_of(pos, j) for j in pos.table_jokers]
    combinations = 1
    for fates in per_joker:
        combinations *= len(fates)
    if combinations > MAX_COMBINATIONS:
        return Search(None)
    rack = Counter({i: n for i, n in enumerate(pos.rack_count) if n})
    top = None if upper is None else score(upper, objective)
    queue: list[tuple[tuple[int, int, int], int, TurnAnswer, tuple[Fate, ...], bool]] = []
    no_whole_rack = False
    order = itertools.count()  # ties in the queue go to the combination offered first

    walked: set[tuple[Fate, ...]] = set()
    #: per combination walked without a landing, its walk's kept bounds, which its landings'
    #: walks reuse (dp.TailBounds: each landing's position is the combination's less a set)
    tails: dict[tuple[Fate, ...], dp.TailBounds] = {}
    verdicts: dict[int, bool] = {}  # the referee's, per queue entry: each answer judged once
    accepted: TurnAnswer | None = None  # the best answer the referee accepted so far

    def judged(entry: tuple) -> bool:
        """The referee's verdict on a queue entry (asked once); an accepted answer better
        than the best so far becomes it."""
        nonlocal accepted
        if entry[1] not in verdicts:
            verdicts[entry[1]] = legal(entry[2])
            if verdicts[entry[1]] and (accepted is None or score(entry[2], objective) > score(accepted, objective)):
                accepted = entry[2]
        return verdicts[entry[1]]

    def unproven() -> Search:
        return Search(None, accepted)

    def own_part(combo: tuple[Fate, ...], landing: Landing | None, whole: tuple[int, int, int]) -> dp.Floor:
        """A score of the whole position as one of the programme's walk of this combination:
        less the tiles the combination plays itself (replacements, landing sets)."""
        extra = [pos.tile(i) for f in combo for i in f.replaced_by] + [t for _, tiles in landing or () for t in tiles]
        return less(whole, part_score(pos, extra, objective, kept=sum(f.whole for f in combo)))

    def floor_of(combo: tuple[Fate, ...], landing: Landing | None) -> dp.Floor | None:
        """What the programme's answer for this combination must beat: the accepted answer."""
        return None if accepted is None else own_part(combo, landing, score(accepted, objective))

    def ceiling_of(combo: tuple[Fate, ...], landing: Landing | None) -> dp.Floor | None:
        """What it cannot beat: ``upper``, the best play with every joker free, which holds
        every play of every combination (each is a relaxation of a fate, and a fate a
        restriction of the free joker), so no walk asks for more than it."""
        return None if top is None else own_part(combo, landing, top)

    def offer(combo: tuple[Fate, ...], landing: Landing | None) -> bool:
        """Solve one combination into the queue; False if the programme cannot."""
        nonlocal no_whole_rack
        if upper is not None and landing is None and _holds(pos, combo, upper):
            # the free play is a play of this combination, which it bounds: its best, unwalked
            walked.add(combo)
            heapq.heappush(queue, (_negated(top), next(order), upper, combo, False))  # type: ignore[arg-type]
            return True
        settled = settle(pos, combo, landing)
        if settled is not None and not dp.applies(settled, True) and landing is None:
            # a kept joker's tile the kernel cannot hold: walk the combination's relaxation
            combo = _bounded(settled, combo)
            if combo in walked:
                return True  # that relaxation is in the queue already
            settled = settle(pos, combo, landing)
        walked.add(combo)
        if settled is None or not dp.applies(settled, True):
            return False
        if landing is None:
            bounds: dp.TailBounds | None = tails.setdefault(combo, dp.TailBounds())
        else:
            bounds = tails.get(combo)
            if bounds is None or bounds.records:
                # the combination was not walked (the free play held it) or its walk recorded
                # no bounds: they are tightened once, for all its landings, where first needed
                bounds = tails[combo] = dp.TailBounds(parent=lambda c=combo: settle(pos, c), objective=objective)
        try:
            found = dp.solve_after_opening(
                settled, objective, tell_whole_rack=True, floor=floor_of(combo, landing),
                ceiling=ceiling_of(combo, landing), tails=bounds,
            )
        except dp.NoWholeRack:
            no_whole_rack = True
            return True
        except dp.BelowFloor:
            return True  # it cannot beat the answer already accepted
        if found is None:
            return False
        answer = restore(pos, settled, combo, found, landing)
        heapq.heappush(queue, (_negated(score(answer, objective)), next(order), answer, combo, landing is not None))
        return True

    # kept fates first: the likelier best, so an early answer often reaches ``upper``. Each new
    # best is judged at once: accepted, the combinations after it are walked with it as their
    # floor (the walks prune what cannot beat it, and most prove at once that nothing does)
    for combo in sorted(itertools.product(*per_joker), key=lambda c: sum(f.keep_as is None for f in c)):
        if Counter(i for f in combo for i in f.replaced_by) - rack:
            continue  # one rack tile cannot replace two jokers
        if not offer(combo, None):
            return unproven()
        if queue and queue[0][1] not in verdicts and queue[0][2].tiles > 0 and judged(queue[0]):
            # the best of the queue, now ``accepted``: better than any accepted before
            if top is not None and score(accepted, objective) >= top:  # type: ignore[arg-type]
                return Search(accepted)
    while queue:
        entry = heapq.heappop(queue)
        _, _, answer, combo, landed = entry
        if answer.tiles == 0:
            return Search(answer)  # not one tile fits, whatever becomes of the jokers
        if judged(entry):
            if no_whole_rack and answer.tiles < len(pos.rack_in):
                return unproven()  # a combination without a whole-rack play might still beat it
            return Search(answer)
        if any(f.bound for f in combo):
            # a relaxation's play the referee rejects: its exact part, the bound's old set left
            # as it was, is walked into the queue (and split by landings like any rejected
            # play); the rest (the set changed) is still bounded by this answer, which goes
            # back into the queue behind it and, popped again, gives up
            whole = _whole_part(pos, combo)
            if whole is None or whole in walked or not offer(whole, None):
                return unproven()
            again = (entry[0], next(order), answer, combo, landed)
            verdicts[again[1]] = False
            heapq.heappush(queue, again)
            continue
        freed = [i for i, f in enumerate(combo) if f.freed]
        if landed or not 1 <= len(freed) <= 2 or not (pos.rules.freed_in_new_set or pos.rules.freed_min_own_tiles > 0):
            return unproven()
        splits = _landings_of(pos, combo, freed)
        if splits is None:
            return unproven()  # too many to walk: the integer program is faster
        # the splits, likeliest first; none can beat the rejected answer, so a split answer
        # that reaches it is the best of the queue: judged at once, the rest are not walked.
        # The next best of the queue is judged first: accepted, it is the floor of the splits'
        # walks, which then mostly prove at once that they cannot beat it
        parent = score(answer, objective)
        head = queue[0] if queue else None
        if head is not None and head[2].tiles > 0 and judged(head):
            if score(head[2], objective) >= parent:  # as good as any split can be
                return unproven() if no_whole_rack and head[2].tiles < len(pos.rack_in) else Search(head[2])
        for walks, landing in enumerate(_walk_order(splits, answer, combo)):
            if walks >= MAX_LANDING_WALKS + SMALLEST_LANDINGS or not offer(combo, landing):
                return unproven()
            head = _reaching(queue, parent, verdicts, objective)
            if head is not None and judged(head):
                if no_whole_rack and head[2].tiles < len(pos.rack_in):
                    return unproven()
                return Search(head[2])
    return unproven()


def _reaching(queue: list, parent: tuple[int, int, int], verdicts: dict[int, bool], objective: Objective) -> tuple | None:
    """The best entry of the queue that reaches the rejected answer ``parent`` and that the
    referee has not rejected (one it rejected waits in the queue for its own splits)."""
    reaching = [e for e in queue if score(e[2], objective) >= parent and verdicts.get(e[1]) is not False]
    return min(reaching, key=lambda e: e[:2]) if reaching else None


def _whole_part(pos: Position, combo: tuple[Fate, ...]) -> tuple[Fate, ...] | None:
    """``combo`` with its first bound made exact: the joker's old set left exactly as it was
    (the joker stays, and its set is out of the walk, so no fourth copy). Every play of the
    bound either does that or changes the set. ``None`` where there is no bound, or its set
    holds another table joker (whose fate that would decide too).

    XP 90 + 24 seed 33: the bound's play (its set changed) is rejected, and the best legal play
    keeps the set whole and ties it; the integer program took 0.4 s to find it (docs/solver.md)."""
    for i, f in enumerate(combo):
        if not f.bound:
            continue
        k = f.joker.set_index
        if sum(j.set_index == k for j in pos.table_jokers) != 1:
            return None
        return combo[:i] + (Fate(f.joker, None, whole=True),) + combo[i + 1:]
    return None


#: a freed joker's landing: per new set, the fates (their places in the combination) of the
#: jokers in it and the rack tiles it takes
Landing = tuple[tuple[tuple[int, ...], tuple[Tile, ...]], ...]
#: landings listed at most for two freed jokers
MAX_LANDINGS = 2000
#: landing splits walked at most before the integer program is left the position (each is a
#: walk of a few milliseconds; the integer program of a late-game position takes 0.2-2 s)
MAX_LANDING_WALKS = 40
#: the smallest landings, walked besides the likeliest (:func:`_walk_order`)
SMALLEST_LANDINGS = 2


def _landings_of(pos: Position, combo: tuple[Fate, ...], freed: list[int]) -> list[Landing] | None:
    """Every landing of the freed jokers of ``combo`` (one or two): each in a new set of its own,
    sharing no rack tile, or the two in one new set, a pair of alike jokers not also in mirror
    image; ``None`` past :data:`MAX_LANDINGS`."""
    if len(freed) == 1:
        return [(((freed[0],), tiles),) for tiles in landings(pos, combo[freed[0]])]
    a, b = freed
    rack = Counter({i: n for i, n in enumerate(pos.rack_count) if n})
    rack -= Counter(i for f in combo for i in f.replaced_by)
    jokers = Counter({k: n for k, n in pos.rack_jokers.items() if n})
    out: list[Landing] = [(((a, b), tiles),) for tiles in landings(pos, combo[a], also=combo[b])]

    have = rack + Counter({("joker", k): n for k, n in jokers.items()})

    def needs(tiles: tuple[Tile, ...]) -> Counter:
        return Counter(("joker", pos.joker_key(t)) if t.is_joker else pos.index(t) for t in tiles)

    def both_fit(need: Counter, more: Counter) -> bool:
        # each fits the rack alone: only the tiles (and jokers) both take can run short
        return all(n + more[i] <= have[i] for i, n in need.items() if i in more)

    # each joker's new sets listed once (and what they take), not once per set of the other;
    # a pair asked without Counter sums (those were a tenth of a late-game hint's search)
    seconds = [(second, needs(second)) for second in landings(pos, combo[b], replaced=combo[a].replaced_by)]
    firsts = landings(pos, combo[a], replaced=combo[b].replaced_by)
    # two alike jokers (one tile, the same new sets open to both): a pair and its mirror image
    # settle into one position and lay out the same sets, so only the first listed is kept
    # (late game: the likeliest order put each next to its mirror, half the walks repeated)
    mirror = combo[a].joker.tile == combo[b].joker.tile and firsts == [second for second, _ in seconds]
    for i, first in enumerate(firsts):
        need = needs(first)
        for second, more in seconds[i:] if mirror else seconds:
            if both_fit(need, more):
                out.append((((a,), first), ((b,), second)))
                if len(out) > MAX_LANDINGS:
                    return None
    return out


def _holds(pos: Position, combo: tuple[Fate, ...], play: TurnAnswer) -> bool:
    """Whether ``play``, a play of the position with every table joker free, is also a play of
    the combination ``combo``: every joker of it freed (none kept, none a bound), its
    replacement tiles among those ``play`` lays from the rack, and no freed joker's old set
    left whole in it. The combination is a restriction of the free position, so its best play
    then scores what ``play`` does (mid-game under PL-Wikipedia and Russian Wikipedia: the
    freed joker's walk, a third of the walks' states before the landings, found just that)."""
    if any(f.keep_as is not None or f.bound or f.whole for f in combo):
        return False
    if Counter(pos.tile(i) for f in combo for i in f.replaced_by) - Counter(play.played):
        return False
    whole = [tiles for tiles, kept in zip(play.table, play.untouched) if kept]
    return not any(list(pos.sets[f.joker.set_index].tiles) in whole for f in combo)


def _bounded(settled: Position, combo: tuple[Fate, ...]) -> tuple[Fate, ...]:
    """``combo`` with its kept fates whose tiles the kernel cannot hold (more of a kind than it
    counts, :func:`dp.applies`) relaxed to :attr:`Fate.bound`. Relaxing every kept group fate
    whose tile would go past the box's copies is enough: only those raise the count."""
    counts = dp.group_counts(settled)
    over = {f.keep_as for f in combo if f.keep_as is not None and counts[f.keep_as] > dp.kernel.MAX_COPIES}
    return tuple(
        Fate(f.joker, None, bound=True) if f.keep_as in over and f.kind is SetKind.GROUP else f for f in combo
    )


def _likeliest_first(found: list[Landing], answer: TurnAnswer, combo: tuple[Fate, ...]) -> list[Landing]:
    """Landings in the order worth walking: the rack tiles beside the freed jokers in the
    rejected answer first (the walk had put them together), then the bigger sets."""
    beside: Counter = Counter()
    jokers = {combo[i].joker.tile for landing in found[:1] for ids, _ in landing for i in ids}
    for s in answer.table:
        if any(t in jokers for t in s):
            beside += Counter(t for t in s if not t.is_joker)

    def promise(landing: Landing) -> tuple[int, int]:
        left, shared = dict(beside), 0  # the landing's tiles beside them (a dict: a Counter per
        for _, rack in landing:  # landing made this a tenth of a late-game hint's search)
            for t in rack:
                if left.get(t, 0) > 0:
                    left[t] -= 1
                    shared += 1
        return -shared, -sum(len(rack) for _, rack in landing)

    # only the first MAX_LANDING_WALKS are walked: the rest need no order
    return heapq.nsmallest(MAX_LANDING_WALKS + 1, found, key=promise)


def _walk_order(found: list[Landing], answer: TurnAnswer, combo: tuple[Fate, ...]) -> list[Landing]:
    """The landings to walk, in order: the likeliest (:func:`_likeliest_first`), then the
    :data:`SMALLEST_LANDINGS` smallest (fewest rack tiles, the first listed among equals),
    then the other likeliest. The likeliest bet that the rejected play is nearly right and
    favour big new sets; a small one leaves the rest of the rack the most ways to be laid
    out, and is where the likeliest order fails: XP 90 + 24 seed 4, whose freed joker had
    211 landings, the 41 likeliest none that reaches the rejected play, the smallest one
    that does (the integer program took 67 ms there; docs/solver.md)."""
    likeliest = _likeliest_first(found, answer, combo)
    smallest = heapq.nsmallest(SMALLEST_LANDINGS, found, key=lambda landing: sum(len(t) for _, t in landing))
    out: list[Landing] = []
    seen: set[int] = set()
    for landing in likeliest[:1] + smallest + likeliest[1:]:
        if id(landing) not in seen:
            seen.add(id(landing))
            out.append(landing)
    return out


def _negated(key: tuple[int, int, int]) -> tuple[int, int, int]:
    return -key[0], -key[1], -key[2]


def landings(
    pos: Position, fate: Fate, also: Fate | None = None, replaced: tuple[int, ...] = ()
) -> list[tuple[Tile, ...]]:
    """Every new set the freed joker may land in: it and rack tiles only (numbered ones at least
    as many as the preset asks, at least one; plain rack jokers besides), not the tiles that
    replace it (engine.joker_fate). Its rack tiles, jokers included. ``also``: a second freed
    joker in the same new set; ``replaced``: rack tiles another joker's replacement takes."""
    used = Counter(fate.replaced_by) + Counter(replaced) + Counter(also.replaced_by if also else ())
    rack = Counter({i: n for i, n in enumerate(pos.rack_count) if n}) - used
    need = max(1, pos.rules.freed_min_own_tiles)
    spare_jokers = [pos.joker_tile[k] for k, n in pos.rack_jokers.items() for _ in range(n)][:2]
    jokers = [fate.joker.tile] + ([also.joker.tile] if also else [])
    found: list[tuple[Tile, ...]] = []
    seen: set[tuple[str, ...]] = set()

    def offer(numbered: list[Tile]) -> None:
        for extra in range(len(spare_jokers) + 1):
            tiles = [*jokers, *spare_jokers[:extra], *numbered]
            key = tuple(sorted(map(str, tiles)))
            if key not in seen and classify(tiles, pos.edition).valid:
                seen.add(key)
                found.append(tuple(tiles[len(jokers):]))

    tiles = [pos.tile(i) for i in sorted(rack)]
    by_number: dict[int, list[Tile]] = {}
    by_colour: dict[str, list[Tile]] = {}
    for t in tiles:
        by_number.setdefault(t.number, []).append(t)  # type: ignore[arg-type]
        by_colour.setdefault(t.colour, []).append(t)  # type: ignore[arg-type]
    for same in by_number.values():  # groups: distinct colours of one number
        for size in range(need, min(3, len(same)) + 1):
            for combo in itertools.combinations(same, size):
                offer(list(combo))
    for same in by_colour.values():  # runs: distinct numbers of one colour, gaps for jokers
        for size in range(need, len(same) + 1):
            for combo in itertools.combinations(same, size):
                numbers = [t.number for t in combo]
                if numbers[-1] - numbers[0] + 1 <= size + len(jokers) + len(spare_jokers):  # type: ignore[operator]
                    offer(list(combo))
    return found


def jokers_free(pos: Position) -> Position:
    """``pos`` under rules that let every table joker go anywhere (the relaxation the solver
    tries first), without reading the turn again."""
    return _free(pos, pos.table_jokers)


def _free(pos: Position, jokers: list[TableJoker]) -> Position:
    """``pos`` with only ``jokers`` on the table as jokers, and these free to go anywhere."""
    settled = copy.copy(pos)
    settled.rules = replace(
        pos.rules, free_by_rearranging=True, freed_min_own_tiles=0, freed_in_new_set=False,
        strict_joker_group=False,
    )
    settled.table_jokers = [replace(j, needs_all=False) for j in jokers]
    return settled


def settle(pos: Position, combo: tuple[Fate, ...], landing: Landing | None = None) -> Position | None:
    """The plain position of one combination of fates (see the module's docstring); with
    ``landing``, the freed jokers land in new sets with those rack tiles (they and the jokers
    leave the position)."""
    landed_fates = {i for ids, _ in landing or () for i in ids}
    freed = [f.joker for i, f in enumerate(combo) if f.freed and i not in landed_fates]  # bound too
    settled = _free(pos, freed)
    table_count = list(pos.table_count)
    rack_count = list(pos.rack_count)
    if landing is not None:
        settled.rack_jokers = Counter(pos.rack_jokers)
        for t in (t for _, tiles in landing for t in tiles):
            if t.is_joker:
                settled.rack_jokers[pos.joker_key(t)] -= 1  # type: ignore[index]
            else:
                rack_count[pos.index(t)] -= 1
        settled.rack_jokers = +settled.rack_jokers
    for f in combo:
        if f.keep_as is not None:
            table_count[f.keep_as] += 1
        for i in f.replaced_by:
            rack_count[i] -= 1
            table_count[i] += 1
    settled.table_count, settled.rack_count = table_count, rack_count
    settled.kept_as = [(f.keep_as, f.kind is SetKind.RUN, f.joker.set_index) for f in combo if f.keep_as is not None]
    by_set: dict[int, list[tuple[int, Fate]]] = {}
    for i, f in enumerate(combo):
        by_set.setdefault(f.joker.set_index, []).append((i, f))
    sets: list[TableSet] = []
    for k, s in enumerate(pos.sets):
        fates = by_set.get(k)
        if not fates:
            sets.append(s)
            continue
        if any(f.whole for _, f in fates):
            # left exactly as it was (:func:`_whole_part`): out of the walk, its tiles with it
            for i, n in s.counts:
                table_count[i] -= n
            sets.append(replace(s, tiles=(), counts=(), joker_keys=(), keepable=False))
            continue
        tiles = list(s.tiles)
        joker_places = [i for i, t in enumerate(tiles) if t.is_joker]
        counts = Counter(dict(s.counts))
        landed: set[int] = set()
        for place, (i, f) in zip(joker_places, fates):  # table_jokers list a set's jokers in order
            if f.keep_as is not None:
                tiles[place] = pos.tile(f.keep_as)
                counts[f.keep_as] += 1
            elif i in landed_fates:
                landed.add(place)  # in its new set already: not a joker the walks may place
        tiles = [t for i, t in enumerate(tiles) if i not in landed]
        whole = all(f.keep_as is not None or f.bound for _, f in fates)
        # the jokers a set kept whole still holds: only those of bound fates (the others stand
        # as their tiles, or were freed, and then the set cannot stay whole)
        keys = tuple(pos.joker_key(t) for t in tiles if t.is_joker) if whole else ()
        sets.append(replace(s, tiles=tuple(tiles), counts=tuple(sorted(counts.items())), joker_keys=keys, keepable=whole))
    settled.sets = sets
    return settled


def restore(
    pos: Position, settled: Position, combo: tuple[Fate, ...], found: TurnAnswer,
    landing: Landing | None = None,
) -> TurnAnswer:
    """The programme's answer for a settled position as a play of the real one: each kept
    joker back in place of its tile, the replacement tiles played, the landing set laid."""
    table = [list(s) for s in found.table]
    untouched = list(found.untouched)
    pending = [f for f in combo if f.keep_as is not None]
    # a set kept whole is its old set again
    settled_sets = [k for k, s in enumerate(settled.sets) if s is not pos.sets[k] and s.keepable]
    for a, tiles in enumerate(table):
        if not untouched[a]:
            continue
        k = next((k for k in settled_sets if list(settled.sets[k].tiles) == tiles), None)
        if k is not None:
            settled_sets.remove(k)
            table[a] = list(pos.sets[k].tiles)
            pending = [f for f in pending if f.joker.set_index != k]
    for f in pending:
        _put_back(pos, table, f, untouched)
    for f in combo:
        if f.whole:  # its set, out of the walk, left as it was
            table.append(list(pos.sets[f.joker.set_index].tiles))
            untouched.append(True)
    extra: list[Tile] = []
    for ids, tiles in landing or ():
        new_set = [*(combo[i].joker.tile for i in ids), *tiles]
        table.append(reading_order(new_set, classify(new_set, pos.edition)))
        untouched.append(False)
        extra += list(tiles)
    played = list(found.played) + [pos.tile(i) for f in combo for i in f.replaced_by] + extra
    return TurnAnswer(
        played=played,
        table=table,
        untouched=untouched,
        tiles=len(played),
        value=played_value(pos, played),
        opening_value=0,
    )


def _put_back(pos: Position, table: list[list[Tile]], fate: Fate, untouched: list[bool]) -> None:
    """Replace one tile the kept joker stood as by the joker: in a set where it then stands for
    that tile in a set of its old kind (the reading the referee looks for), else anywhere; in a
    set the programme left whole only where no other copy will do. That set is another old set
    as it was, whose copy of the tile is its own (copies are alike to the programme): the joker
    there changes it, so it is no longer counted whole (``untouched``, updated here; Expert,
    Pagat's Sabra: ``o7 o8 o9 Jo`` grown by ``o6`` beside ``o6 o7 o8 o9 o10`` said 1 set kept,
    not 0)."""
    tile = pos.tile(fate.keep_as)  # type: ignore[arg-type]
    joker = fate.joker
    places = [(a, i) for a, s in enumerate(table) for i, t in enumerate(s) if t == tile]
    places.sort(key=lambda place: untouched[place[0]])  # stable: table order otherwise
    chosen = places[0]
    for a, i in places:
        tried = table[a][:i] + [joker.tile] + table[a][i + 1:]
        verdict = classify(tried, pos.edition)
        if verdict.valid and any(r.kind is fate.kind and tile in r.jokers for r in verdict.readings):
            chosen = (a, i)
            break
    a, i = chosen
    table[a][i] = joker.tile
    untouched[a] = False
