"""An exhaustive reference for the hint solver, independent of its integer program.

It shares nothing with :mod:`engine.solver` but the rule *definitions*: it tries every sub-rack
(largest first), every partition of the new table into sets (each set checked by
:func:`engine.melds.classify`, the same validator the referee uses), every reading of every joker,
and keeps the best legal play. Exponential, so it is for small positions only (a few table sets,
a rack of up to about 8 tiles). The rule model it checks (docs/solver.md, "How the rules are
modelled"):

* before the opening: the table stays; played tiles form sets worth >= the threshold (a set is
  worth its best reading), with no joker if the preset forbids jokers in the opening;
* after the opening: table + played tiles are split into valid sets. A table joker *stays* when
  its old set is still on the table unchanged, or when it stands (in a reading of its new set)
  for a tile it could stand for before, each kept joker on its own joker. Otherwise it is
  *freed*: the preset may ask for a replacement tile it stood for (from the rack, or from the
  table too), and for it to land in a *freed set* made of jokers and rack tiles only, holding at
  least max(1, own-tiles rule) numbered tiles.
* best: most tiles, then most value (a joker is worth the preset's joker penalty), then most old
  sets unchanged; or value first for the value objective.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, Sequence

from rummi.engine.editions import Edition, get_edition
from rummi.engine.melds import classify
from rummi.engine.tiles import Tile


@dataclass(frozen=True)
class RefRules:
    threshold: int = 30
    joker_in_opening: bool = True
    replacement_from_table: bool = False
    free_by_rearranging: bool = True
    freed_min_own_tiles: int = 2
    freed_in_new_set: bool = True
    strict_joker_group: bool = False
    joker_penalty: int = 30

    @classmethod
    def of(cls, rules: object) -> "RefRules":
        return cls(
            threshold=rules.opening_threshold,  # type: ignore[attr-defined]
            joker_in_opening=rules.joker_in_opening,  # type: ignore[attr-defined]
            replacement_from_table=rules.joker_replacement_from_table,  # type: ignore[attr-defined]
            free_by_rearranging=rules.joker_free_by_rearranging,  # type: ignore[attr-defined]
            freed_min_own_tiles=rules.freed_joker_min_own_tiles,  # type: ignore[attr-defined]
            freed_in_new_set=rules.freed_joker_in_new_set,  # type: ignore[attr-defined]
            strict_joker_group=rules.strict_joker_group,  # type: ignore[attr-defined]
            joker_penalty=rules.joker_penalty,  # type: ignore[attr-defined]
        )


@dataclass(frozen=True)
class RefAnswer:
    tiles: int
    value: int
    untouched: int
    table: tuple[tuple[Tile, ...], ...]


def _key(t: Tile) -> tuple:
    return (t.is_joker, t.sort_key())


class Reference:
    def __init__(self, edition: Edition | str | None, rules: RefRules) -> None:
        self.edition = get_edition(edition)
        self.rules = rules
        self._valid = lru_cache(maxsize=None)(self._classify)

    def _classify(self, tiles: tuple[Tile, ...]):
        return classify(tiles, self.edition)

    # --- partitions ---------------------------------------------------------------------------
    def partitions(self, tiles: Sequence[Tile]) -> Iterator[list[tuple[Tile, ...]]]:
        """Every way to split ``tiles`` into valid sets (as sorted tuples, each split once)."""
        items = tuple(sorted(tiles, key=_key))
        yield from self._split(items)

    def _split(self, items: tuple[Tile, ...]) -> Iterator[list[tuple[Tile, ...]]]:
        if not items:
            yield []
            return
        first, rest = items[0], items[1:]
        seen: set[tuple[Tile, ...]] = set()
        partners = [
            t for t in rest
            if t.is_joker or first.is_joker or t.number == first.number or t.colour == first.colour
        ]
        for size in range(2, min(len(partners), 12) + 1):
            for combo in itertools.combinations(range(len(partners)), size):
                chosen = tuple(sorted((first, *(partners[i] for i in combo)), key=_key))
                if chosen in seen:
                    continue
                seen.add(chosen)
                if not self._valid(chosen).valid:
                    continue
                left = list(rest)
                for t in chosen[1:]:
                    left.remove(t)
                for tail in self._split(tuple(left)):
                    yield [chosen, *tail]

    # --- legality -------------------------------------------------------------------------------
    def joker_meanings(self, tiles: tuple[Tile, ...]) -> list[set[Tile]]:
        return [set(m) for m in self._valid(tiles).joker_meanings()]

    def best(
        self,
        table: Sequence[Sequence[Tile]],
        rack: Sequence[Tile],
        opened: bool,
        value_first: bool = False,
    ) -> RefAnswer | None:
        """The best legal play, or ``None`` when nothing can be played."""
        table = [tuple(sorted(s, key=_key)) for s in table]
        subracks = _sub_multisets(rack)
        scored = []
        for sub in subracks:
            if not sub:
                continue
            tiles = len(sub)
            value = sum(self.rules.joker_penalty if t.is_joker else t.number for t in sub)
            scored.append(((value, tiles) if value_first else (tiles, value), sub))
        scored.sort(key=lambda s: s[0], reverse=True)
        found: RefAnswer | None = None
        best_key = None
        for key, sub in scored:
            if best_key is not None and key < best_key:
                break
            answer = self._play(table, sub, opened)
            if answer is None:
                continue
            if best_key is None or answer.untouched > found.untouched:  # type: ignore[union-attr]
                best_key, found = key, answer
        return found

    def _play(
        self, table: list[tuple[Tile, ...]], played: tuple[Tile, ...], opened: bool
    ) -> RefAnswer | None:
        rules = self.rules
        tiles = len(played)
        value = sum(rules.joker_penalty if t.is_joker else t.number for t in played)
        if not opened:
            if not rules.joker_in_opening and any(t.is_joker for t in played):
                return None
            for parts in self.partitions(played):
                if sum(self._valid(p).value for p in parts) >= rules.threshold:
                    return RefAnswer(tiles, value, len(table), tuple(table) + tuple(parts))
            return None
        best: RefAnswer | None = None
        pool = [t for s in table for t in s] + list(played)
        for parts in self.partitions(pool):
            untouched = _untouched(table, parts)
            if best is not None and untouched <= best.untouched:
                continue
            if self._jokers_ok(table, played, parts):
                best = RefAnswer(tiles, value, untouched, tuple(parts))
                if untouched == len(table):
                    break
        return best

    def _jokers_ok(
        self, table: list[tuple[Tile, ...]], played: tuple[Tile, ...], parts: list[tuple[Tile, ...]]
    ) -> bool:
        rules = self.rules
        table_jokers = [(k, m) for k, s in enumerate(table) for m in self.joker_meanings(s)]
        if not table_jokers:
            return True
        landing = rules.freed_in_new_set or rules.freed_min_own_tiles > 0
        if not landing and rules.free_by_rearranging:
            return True
        # old sets still there unchanged keep their jokers
        remaining = list(parts)
        kept_sets: set[int] = set()
        for k, s in enumerate(table):
            if s in remaining:
                remaining.remove(s)
                kept_sets.add(k)
        loose = [(k, m) for k, m in table_jokers if k not in kept_sets]
        if not loose:
            return True
        played_count = Counter(t for t in played if not t.is_joker)
        table_count = Counter(t for s in table for t in s if not t.is_joker)
        need_reals = max(1, rules.freed_min_own_tiles)
        # each remaining set: a table set, or (if made of rack tiles and jokers) a freed set
        options = []
        for s in remaining:
            jokers = sum(t.is_joker for t in s)
            reals = Counter(t for t in s if not t.is_joker)
            can_land = landing and jokers > 0 and sum(reals.values()) >= need_reals
            options.append([False, True] if can_land else [False])
        for labels in itertools.product(*options):
            landed_reals: Counter[Tile] = Counter()
            landing_jokers = 0
            for s, is_freed in zip(remaining, labels):
                if is_freed:
                    landed_reals += Counter(t for t in s if not t.is_joker)
                    landing_jokers += sum(t.is_joker for t in s)
            if landed_reals - played_count:
                continue
            # joker slots of table-layer sets: per set, the readings' joker tuples
            slot_sets = [s for s, f in zip(remaining, labels) if not f and any(t.is_joker for t in s)]
            if self._assign(loose, slot_sets, landing_jokers, landing, played_count, table_count):
                return True
        return False

    def _assign(self, loose, slot_sets, landing_jokers, landing, played_count, table_count) -> bool:
        rules = self.rules
        readings = [list({r.jokers for r in self._valid(s).readings}) for s in slot_sets]
        for chosen in itertools.product(*readings) if readings else [()]:
            slots = [t for tup in chosen for t in tup]
            # try every subset of loose jokers to free; the rest must be matched to slots
            n = len(loose)
            for mask in range(1 << n):
                freed = [loose[i] for i in range(n) if mask >> i & 1]
                kept = [loose[i] for i in range(n) if not mask >> i & 1]
                if landing and len(freed) > landing_jokers:
                    continue
                if not _matches(kept, slots):
                    continue
                if not rules.free_by_rearranging and not self._replacements(freed, played_count, table_count):
                    continue
                return True
        return False

    def _replacements(self, freed, played_count: Counter, table_count: Counter) -> bool:
        spare = played_count + (table_count if self.rules.replacement_from_table else Counter())
        choices = []
        for k, meanings in freed:
            strict = self.rules.strict_joker_group and _is_group_of_three_with_one_joker(self, k)
            if strict:
                choices.append([tuple(sorted(meanings, key=_key))])
            else:
                choices.append([(m,) for m in sorted(meanings, key=_key)])
        for pick in itertools.product(*choices):
            need = Counter(t for tup in pick for t in tup)
            if not need - spare:
                return True
        return not freed

    def set_context(self, table: Sequence[Sequence[Tile]]) -> None:
        self._table = [tuple(sorted(s, key=_key)) for s in table]


def _is_group_of_three_with_one_joker(ref: Reference, k: int) -> bool:
    s = ref._table[k]
    v = ref._valid(s)
    one_joker = sum(t.is_joker for t in s) == 1
    return len(s) == 3 and one_joker and all(r.kind.value == "group" for r in v.readings)


def _matches(kept: list, slots: list[Tile]) -> bool:
    """Can each kept joker take its own slot whose tile is one of its meanings?"""
    if len(kept) > len(slots):
        return False
    used = [False] * len(slots)

    def go(i: int) -> bool:
        if i == len(kept):
            return True
        for j, t in enumerate(slots):
            if not used[j] and t in kept[i][1]:
                used[j] = True
                if go(i + 1):
                    return True
                used[j] = False
        return False

    return go(0)


def _untouched(table: list[tuple[Tile, ...]], parts: list[tuple[Tile, ...]]) -> int:
    left = list(parts)
    count = 0
    for s in table:
        if s in left:
            left.remove(s)
            count += 1
    return count


def _sub_multisets(rack: Sequence[Tile]) -> list[tuple[Tile, ...]]:
    counts = Counter(rack)
    kinds = sorted(counts, key=_key)
    out = []
    for picks in itertools.product(*(range(counts[k] + 1) for k in kinds)):
        out.append(tuple(t for k, n in zip(kinds, picks) for t in [k] * n))
    return out


def reference_best(table, rack, opened, edition, rules, value_first=False) -> RefAnswer | None:
    ref = Reference(edition, RefRules.of(rules))
    ref.set_context(table)
    return ref.best(table, rack, opened, value_first)


def audit(
    table: Sequence[Sequence[Tile]],
    rack: Sequence[Tile],
    play: Sequence[Tile],
    new_table: Sequence[Sequence[Tile]],
    edition: Edition | str | None,
    table_fixed: bool,
) -> list[str]:
    """Everything wrong with a proposed play (empty when it is legal as far as tiles go).

    Checks: every set valid; table after = table before + played tiles; played tiles come from
    the rack (so no table tile goes to a rack and no tile is used twice); with ``table_fixed``
    (an opening turn without table play) the old sets are all still there.
    """
    problems = []
    for s in new_table:
        verdict = classify(s, edition)
        if not verdict.valid:
            problems.append(f"invalid set {' '.join(map(str, s))}: {verdict.reason}")
    before = Counter(t for s in table for t in s)
    after = Counter(t for s in new_table for t in s)
    if after != before + Counter(play):
        problems.append("tiles not conserved: table after != table before + played")
    if Counter(play) - Counter(rack):
        problems.append("played tiles that are not on the rack")
    if table_fixed:
        left = [tuple(sorted(s, key=_key)) for s in new_table]
        for s in table:
            key = tuple(sorted(s, key=_key))
            if key in left:
                left.remove(key)
            else:
                problems.append("the table was changed before the opening")
    return problems


# --- a plain integer program over all candidate sets (for positions too big to enumerate) ---------
#
# Den Hertog & Hulshof's model, written out directly: one integer variable per valid set (runs of
# 3-5 tiles, groups of 3-4, jokers anywhere, each checked by engine.melds.classify), plus the old
# table sets themselves so "unchanged" can be counted. Jokers are free tiles here, so it is the
# reference for presets where a joker may be freed by rearranging and go anywhere
# (freed_joker_in_new_set=false, freed_joker_min_own_tiles=0). It shares no code with the solver's
# flow model.


def candidate_sets(edition: Edition, jokers: int) -> list[tuple[Tile, ...]]:
    from rummi.engine.tiles import JOKER

    found: set[tuple[Tile, ...]] = set()
    numbers = list(edition.numbers)
    base: list[list[Tile]] = []
    for colour in edition.colours:
        for length in range(3, 6):
            for start in range(numbers[0], numbers[-1] - length + 2):
                base.append([Tile(number=n, colour=colour) for n in range(start, start + length)])
    for n in numbers:
        for size in range(3, len(edition.colours) + 1):
            for colours in itertools.combinations(edition.colours, size):
                base.append([Tile(number=n, colour=c) for c in colours])
    for tiles in base:
        for j in range(0, min(jokers, len(tiles) - 1) + 1):
            for spots in itertools.combinations(range(len(tiles)), j):
                s = [JOKER if i in spots else t for i, t in enumerate(tiles)]
                key = tuple(sorted(s, key=_key))
                if key not in found and classify(key, edition).valid:
                    found.add(key)
    return sorted(found, key=lambda s: [_key(t) for t in s])


_CANDIDATES: dict[tuple[str, int], list[tuple[Tile, ...]]] = {}


def ilp_reference(table, rack, opened: bool, edition, rules, value_first: bool = False) -> RefAnswer | None:
    """Best play by the plain set-based integer program (jokers free; see above)."""
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp

    ed = get_edition(edition)
    joker_count = ed.joker_count
    key = (ed.name, joker_count)
    if key not in _CANDIDATES:
        _CANDIDATES[key] = candidate_sets(ed, joker_count)
    table = [tuple(sorted(s, key=_key)) for s in table]
    candidates = list(_CANDIDATES[key])
    for s in table:
        if s not in candidates:
            candidates.append(s)
    kinds = sorted({t for s in candidates for t in s} | set(rack) | {t for s in table for t in s}, key=_key)
    index = {t: i for i, t in enumerate(kinds)}
    have_table = Counter(t for s in table for t in s)
    have_rack = Counter(rack)
    avail = have_table + have_rack
    usable = [s for s in candidates if not Counter(s) - avail]
    penalty = rules.joker_penalty
    worth = [penalty if t.is_joker else t.number for t in kinds]
    n_sets, n_kinds = len(usable), len(kinds)
    rows, lo, hi = [], [], []
    opening = not opened
    # variables: sets (table layer) | played per kind | opening sets | keep per old set
    n_open = n_sets if opening else 0
    n_keep = len(table) if opened else 0
    n = n_sets + n_kinds + n_open + n_keep
    A = np.zeros((n_kinds + 1 + n_keep + (n_kinds if opening else 0), n))
    r = 0
    for t, i in index.items():
        for j, s in enumerate(usable):
            A[r, j] = s.count(t)
        if opening:
            # old table untouched: table layer holds exactly the table; opening sets = played
            lo.append(have_table[t]); hi.append(have_table[t])
        else:
            A[r, n_sets + i] = -1
            lo.append(have_table[t]); hi.append(have_table[t])
        r += 1
    if opening:
        for t, i in index.items():
            for j, s in enumerate(usable):
                A[r, n_sets + n_kinds + j] = s.count(t)
            A[r, n_sets + i] = -1
            lo.append(0); hi.append(0)
            r += 1
        for j, s in enumerate(usable):
            A[r, n_sets + n_kinds + j] = classify(s, ed).value
            if not rules.joker_in_opening and any(t.is_joker for t in s):
                A[r, n_sets + n_kinds + j] = 0
        lo.append(rules.opening_threshold); hi.append(np.inf)
        r += 1
    else:
        r += 1  # unused row kept for a simple layout
        lo.append(-np.inf); hi.append(np.inf)
    for k, s in enumerate(table if opened else []):
        A[r, n_sets + n_kinds + n_open + k] = 1
        for k2, s2 in enumerate(table):
            if s2 == s and k2 != k:
                A[r, n_sets + n_kinds + n_open + k2] = 1
        A[r, usable.index(s)] = -1
        lo.append(-np.inf); hi.append(0)
        r += 1
    A = A[:r]
    upper = np.zeros(n)
    upper[:n_sets] = 4
    for t, i in index.items():
        upper[n_sets + i] = have_rack[t]
    upper[n_sets + n_kinds: n_sets + n_kinds + n_open] = 4
    if opening and not rules.joker_in_opening:
        for j, s in enumerate(usable):
            if any(t.is_joker for t in s):
                upper[n_sets + n_kinds + j] = 0
    upper[n_sets + n_kinds + n_open:] = 1
    tiles_w = np.zeros(n); value_w = np.zeros(n); keep_w = np.zeros(n)
    for t, i in index.items():
        tiles_w[n_sets + i] = 1
        value_w[n_sets + i] = worth[i]
    keep_w[n_sets + n_kinds + n_open:] = 1
    max_tiles = len(rack)
    max_value = sum(penalty if t.is_joker else t.number for t in rack)
    w2 = len(table) + 1
    if value_first:
        first, second, second_max = value_w, tiles_w, max_tiles
    else:
        first, second, second_max = tiles_w, value_w, max_value
    c = -(first * w2 * (second_max + 1) + second * w2 + keep_w)
    res = milp(c, constraints=[LinearConstraint(A, lo, hi)], integrality=np.ones(n), bounds=Bounds(0, upper),
               options={"mip_rel_gap": 0.0})
    if res.x is None:
        return None
    x = np.rint(res.x).astype(int)
    tiles = int(tiles_w @ x)
    if tiles == 0:
        return None
    sets = []
    for j, s in enumerate(usable):
        sets += [s] * x[j]
        if opening:
            sets += [s] * x[n_sets + n_kinds + j]
    untouched = int(keep_w @ x) if opened else len(table)
    return RefAnswer(tiles, int(value_w @ x), untouched, tuple(sets))


# --- the referee as the judge of legality (every preset's rules, joker retrieval included) --------
#
# The exhaustive search above, with one change: whether a new table is a legal turn is not decided
# by a rule model of its own but by the referee (engine.referee.judge_turn), the judge a player's
# turn faces. So "best legal play" here means best among the tables the referee accepts, which is
# exactly what a hint must be; it shares no code with the solver's models.


def referee_best(table, rack, opened, edition, rules, value_first=False) -> RefAnswer | None:
    """The best play the referee accepts, by trying every sub-rack and every partition."""
    from rummi.engine.referee import judge_turn

    ed = get_edition(edition)
    ref = Reference(ed, RefRules.of(rules))
    old = [tuple(sorted(s, key=_key)) for s in table]
    penalty = rules.joker_penalty
    scored = []
    for sub in _sub_multisets(rack):
        if sub:
            tiles, value = len(sub), sum(penalty if t.is_joker else t.number for t in sub)
            scored.append(((value, tiles) if value_first else (tiles, value), sub))
    scored.sort(key=lambda s: s[0], reverse=True)
    rearrange = opened or rules.table_play_in_opening_turn
    best: RefAnswer | None = None
    for key, sub in scored:
        if best is not None and key < best_key:
            break
        pool = ([t for s in old for t in s] if rearrange else []) + list(sub)
        for parts in ref.partitions(pool):
            new = parts if rearrange else old + parts
            untouched = _untouched(old, new)
            if best is not None and (key, untouched) <= (best_key, best.untouched):
                continue
            verdict = judge_turn(old, new, opened=opened, rack=rack, rules=rules, edition=ed)
            if verdict.legal:
                best, best_key = RefAnswer(key_tiles(key, value_first), key_value(key, value_first),
                                           untouched, tuple(new)), key
                if untouched == len(old):
                    break
    return best


def key_tiles(key: tuple[int, int], value_first: bool) -> int:
    return key[1] if value_first else key[0]


def key_value(key: tuple[int, int], value_first: bool) -> int:
    return key[0] if value_first else key[1]
