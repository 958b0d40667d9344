"""References for the hint solver that share no code with its models.

* :func:`reference_best`, for small positions (a few table sets, a rack of up to about 8 tiles):
  every sub-rack (best first), every partition of the new table into sets (each set checked by
  :func:`engine.melds.classify`), and the best table **the referee accepts**
  (:func:`engine.referee.judge_turn`, the judge a player's turn faces, with every rule of the
  preset: opening, joker retrieval by :mod:`engine.joker_fate`, locked sets). Best: most tiles,
  then most value (a joker at the preset's joker penalty), then most old sets left as they were;
  or value first. Exponential, so small positions only.
* :func:`ilp_reference`, for big positions: a plain integer program over all candidate sets,
  under rules where jokers are free (it models no joker-retrieval rule).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from rummi.engine.editions import Edition, get_edition
from rummi.engine.melds import classify
from rummi.engine.tiles import Tile


@dataclass(frozen=True)
class RefAnswer:
    tiles: int
    value: int
    untouched: int
    table: tuple[tuple[Tile, ...], ...]


def _key(t: Tile) -> tuple:
    return (t.is_joker, t.sort_key())


class Reference:
    """Every partition of a heap of tiles into valid sets."""

    def __init__(self, edition: Edition | str | None) -> None:
        self.edition = get_edition(edition)
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
        kinds = Counter(rest)
        order = sorted(kinds, key=_key)
        special = {t.joker for t in items if t.is_joker and t.joker is not None and t.joker.is_special}
        chosen = [first]

        def grow(i: int) -> Iterator[tuple[Tile, ...]]:
            # every set holding ``first`` and a sub-multiset of ``rest``: kind by kind, only while
            # the tiles so far could still be part of a set (a necessary test, true of subsets)
            if len(chosen) >= 3 and self._valid(tuple(sorted(chosen, key=_key))).valid:
                yield tuple(sorted(chosen, key=_key))
            if len(chosen) >= 13:
                return
            for j in range(i, len(order)):
                t = order[j]
                for n in range(1, kinds[t] + 1):
                    chosen.extend([t] * n)
                    if _could_be_set(chosen, special):
                        yield from grow(j + 1)
                    del chosen[-n:]

        for s in grow(0):
            left = list(rest)
            for t in s[1:]:  # s[0] is ``first``, the least tile
                left.remove(t)
            for tail in self._split(tuple(left)):
                yield [s, *tail]


def _could_be_set(tiles: list[Tile], special: set) -> bool:
    """Whether these tiles could all lie in one valid set: one number (each colour once, twice
    beside a mirror joker), one colour (each number once, twice beside a mirror joker), or all
    numbers different where a colour-change joker may join colours. True of every subset of a
    valid set, so growing a set stops at the first tile that fails it."""
    from rummi.engine.tiles import JokerKind

    numbered = [t for t in tiles if not t.is_joker]
    if len(tiles) - len(numbered) > 8:
        return False
    twice = 2 if JokerKind.MIRROR in special else 1
    numbers = Counter(t.number for t in numbered)
    colours = Counter(t.colour for t in numbered)
    copies = max(Counter(numbered).values(), default=0)
    if copies > twice:
        return False
    if len(numbers) <= 1 or len(colours) <= 1:
        return True
    return JokerKind.COLOUR_CHANGE in special and max(numbers.values()) == 1


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


def audit(
    table: Sequence[Sequence[Tile]],
    rack: Sequence[Tile],
    play: Sequence[Tile],
    new_table: Sequence[Sequence[Tile]],
    edition: Edition | str | None,
    table_fixed: bool,
) -> list[str]:
    """Everything wrong with a proposed play (empty when it is legal as far as tiles go).

    Checks: every set valid
    table after = table before + played tiles
    played tiles come from
    the rack (so no table tile goes to a rack and no tile is used twice)
    with ``table_fixed``
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
    lo, hi = [], []
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
            lo.append(have_table[t])
            hi.append(have_table[t])
        else:
            A[r, n_sets + i] = -1
            lo.append(have_table[t])
            hi.append(have_table[t])
        r += 1
    if opening:
        for t, i in index.items():
            for j, s in enumerate(usable):
                A[r, n_sets + n_kinds + j] = s.count(t)
            A[r, n_sets + i] = -1
            lo.append(0)
            hi.append(0)
            r += 1
        for j, s in enumerate(usable):
            A[r, n_sets + n_kinds + j] = classify(s, ed).value
            if not rules.joker_in_opening and any(t.is_joker for t in s):
                A[r, n_sets + n_kinds + j] = 0
        lo.append(rules.opening_threshold)
        hi.append(np.inf)
        r += 1
    else:
        r += 1  # unused row kept for a simple layout
        lo.append(-np.inf)
        hi.append(np.inf)
    for k, s in enumerate(table if opened else []):
        A[r, n_sets + n_kinds + n_open + k] = 1
        for k2, s2 in enumerate(table):
            if s2 == s and k2 != k:
                A[r, n_sets + n_kinds + n_open + k2] = 1
        A[r, usable.index(s)] = -1
        lo.append(-np.inf)
        hi.append(0)
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
    tiles_w = np.zeros(n)
    value_w = np.zeros(n)
    keep_w = np.zeros(n)
    for i in index.values():
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


def reference_best(table, rack, opened, edition, rules, value_first=False) -> RefAnswer | None:
    """The best play the referee accepts, by trying every sub-rack and every partition."""
    from rummi.engine.referee import judge_turn

    ed = get_edition(edition)
    ref = Reference(ed)
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
    best_key: tuple[int, int] = (0, 0)
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
