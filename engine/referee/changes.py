"""What a turn changed on the table: which tiles came from the rack, which left, where sets went.

The camera sees two tables, not the moves between them. Equal tiles cannot be told apart, so
this module settles for the explanation with the fewest moves: a tile is taken to have stayed
in the set it was in whenever that set's tiles are still together ("the set's heir"), then to
have moved from another table set, and only then to have come from the rack. The referee
(:mod:`engine.referee`) asks its questions of this explanation.

    >>> from rummi.engine.notation import parse_sets
    >>> changes = read_changes(parse_sets("r5 r6 r7 | k9 b9 o9"), parse_sets("r4 r5 r6 r7 | k9 b9 o9"))
    >>> [str(t) for t in changes.played], changes.intact_before, changes.heir
    (['r4'], (1,), {0: 0, 1: 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rummi.engine.joker_fate import intact_pairs
from rummi.engine.tiles import Tile, sort_tiles

Sets = Sequence[Sequence[Tile]]

#: Where a tile on the table after the turn came from: a before-set's index, or RACK.
RACK = -1


@dataclass(frozen=True)
class TableChanges:
    """The fewest-moves explanation of how ``before`` became ``after``.

    * ``played``: tiles on the table after that were not on it before (they came from a rack).
    * ``removed``: tiles on the table before that are gone.
    * ``intact_before`` / ``intact_after``: indices of sets that are unchanged (same tiles, any
      order), paired position by position.
    * ``heir``: for each before-set, the after-set that holds most of its numbered tiles
      (``None`` when none of them is left on the table).
    * ``sources``: for each after-set, the origin of each of its tiles, in its tile order:
      a before-set index or :data:`RACK`.
    """

    before: tuple[tuple[Tile, ...], ...]
    after: tuple[tuple[Tile, ...], ...]
    played: tuple[Tile, ...]
    removed: tuple[Tile, ...]
    intact_before: tuple[int, ...]
    intact_after: tuple[int, ...]
    heir: dict[int, int | None]
    sources: tuple[tuple[int, ...], ...]

    @property
    def table_changed(self) -> bool:
        """True when any set that was on the table was touched (played onto, split, moved)."""
        return len(self.intact_before) != len(self.before)

    def own_count(self, after_index: int) -> int:
        """How many tiles of an after-set came from the rack."""
        return sum(1 for s in self.sources[after_index] if s == RACK)

    def is_own_set(self, after_index: int) -> bool:
        """True when every tile of the after-set came from the rack (a brand-new set)."""
        return self.own_count(after_index) == len(self.after[after_index])

    def tiles_from(self, after_index: int, source: int) -> list[Tile]:
        """The tiles of an after-set whose origin is ``source`` (a before-set or RACK)."""
        tiles = self.after[after_index]
        return [t for t, s in zip(tiles, self.sources[after_index]) if s == source]

    def moved_from(self, before_index: int) -> list[Tile]:
        """Tiles of a before-set that are no longer in its heir (moved elsewhere or gone)."""
        heir = self.heir[before_index]
        kept = Counter(self.tiles_from(heir, before_index)) if heir is not None else Counter()
        return sort_tiles((Counter(self.before[before_index]) - kept).elements())

    def moved_table_tiles(self) -> tuple[Tile, ...]:
        """Every tile that left the set it was in (the table tiles a manipulation touched)."""
        moved: list[Tile] = []
        for b in range(len(self.before)):
            if b not in self.intact_before:
                moved += self.moved_from(b)
        return tuple(sort_tiles(moved))

    def extended(self, before_index: int) -> bool:
        """True when all tiles of a before-set sit together in one after-set, with others added."""
        heir = self.heir[before_index]
        if heir is None:
            return False
        return not (Counter(self.before[before_index]) - Counter(self.after[heir]))


def read_changes(before: Sets, after: Sets) -> TableChanges:
    """Explain the change from ``before`` to ``after`` with as few tile moves as possible."""
    before_sets = tuple(tuple(s) for s in before)
    after_sets = tuple(tuple(s) for s in after)
    total_before = Counter(t for s in before_sets for t in s)
    total_after = Counter(t for s in after_sets for t in s)
    intact_before, intact_after = _pair_intact(before_sets, after_sets)
    heir = _heirs(before_sets, after_sets, intact_before, intact_after)
    sources = _attribute(before_sets, after_sets, heir)
    return TableChanges(
        before=before_sets,
        after=after_sets,
        played=tuple(sort_tiles((total_after - total_before).elements())),
        removed=tuple(sort_tiles((total_before - total_after).elements())),
        intact_before=tuple(intact_before),
        intact_after=tuple(intact_after),
        heir=heir,
        sources=sources,
    )


def _pair_intact(
    before: tuple[tuple[Tile, ...], ...], after: tuple[tuple[Tile, ...], ...]
) -> tuple[list[int], list[int]]:
    """Pair before-sets with after-sets holding exactly the same tiles."""
    pairs = intact_pairs(before, after)
    return list(pairs), list(pairs.values())


def _heirs(
    before: tuple[tuple[Tile, ...], ...],
    after: tuple[tuple[Tile, ...], ...],
    intact_before: list[int],
    intact_after: list[int],
) -> dict[int, int | None]:
    """For each before-set, the after-set that kept most of its numbered tiles.

    Numbered tiles decide, because jokers are what moves when a set is manipulated. An intact
    set's heir is its pair; the others choose among the after-sets that are not intact pairs.
    """
    heir: dict[int, int | None] = dict(zip(intact_before, intact_after))
    paired = set(intact_after)
    after_counts: dict[int, tuple[dict[Tile, int], dict[Tile, int]]] = {}
    holding: dict[Tile, list[int]] = {}  # numbered tile -> candidate after-sets holding it
    for a in range(len(after)):
        if a not in paired:
            after_counts[a] = _numbered_and_jokers(after[a])
            for t in after_counts[a][0]:
                holding.setdefault(t, []).append(a)
    for b, tiles in enumerate(before):
        if b in heir:
            continue
        numbered, jokers = _numbered_and_jokers(tiles)
        best, best_key = None, (0, 0)
        for a in sorted({a for t in numbered for a in holding.get(t, ())}):
            # A set split into equal halves: the half that kept the joker continues the set,
            # so keeping a joker with its neighbours is never mistaken for freeing it.
            key = (_shared(numbered, after_counts[a][0]), _shared(jokers, after_counts[a][1]))
            if key[0] > 0 and key > best_key:
                best, best_key = a, key
        heir[b] = best
    return dict(sorted(heir.items()))


def _numbered_and_jokers(tiles: Sequence[Tile]) -> tuple[dict[Tile, int], dict[Tile, int]]:
    """The tiles counted, numbered tiles and jokers apart (plain dicts: a Counter's missing
    keys and its ``&`` cost more than the whole reading on a 40-tile table)."""
    numbered: dict[Tile, int] = {}
    jokers: dict[Tile, int] = {}
    for t in tiles:
        counts = jokers if t.is_joker else numbered
        counts[t] = counts.get(t, 0) + 1
    return numbered, jokers


def _shared(a: dict[Tile, int], b: dict[Tile, int]) -> int:
    """How many tiles two multisets share (the size of their intersection)."""
    return sum(min(n, b.get(t, 0)) for t, n in a.items())


def _attribute(
    before: tuple[tuple[Tile, ...], ...],
    after: tuple[tuple[Tile, ...], ...],
    heir: dict[int, int | None],
) -> tuple[tuple[int, ...], ...]:
    """Give each tile instance of each after-set an origin, preferring that tiles stayed put."""
    pool: list[dict[Tile, int]] = []
    holders: dict[Tile, list[int]] = {}  # tile -> the before-sets holding it, in table order
    for b, tiles in enumerate(before):
        counts = dict(Counter(tiles))  # a plain dict from here on: its missing keys cost less
        pool.append(counts)
        for t in counts:
            holders.setdefault(t, []).append(b)
    heirs_of: dict[int, list[int]] = {}  # after-set -> the before-sets it is heir of, in order
    for b, a in heir.items():
        if a is not None:
            heirs_of.setdefault(a, []).append(b)
    sources: list[list[int | None]] = [[None] * len(tiles) for tiles in after]
    # Pass 1: a tile in the heir of its own set stayed where it was.
    for a, tiles in enumerate(after):
        for b in heirs_of.get(a, ()):
            left = pool[b]
            for i, tile in enumerate(tiles):
                if sources[a][i] is None and left.get(tile, 0) > 0:
                    left[tile] -= 1
                    sources[a][i] = b

    # Pass 2: a tile that left its set moved from elsewhere on the table. Numbered tiles
    # first; then freed jokers go to the sets with the most rack tiles, the reading most
    # favourable to the player when a rack joker and a freed joker cannot be told apart.
    def take_from_table(a: int, i: int) -> None:
        tile = after[a][i]
        for b in holders.get(tile, ()):
            if pool[b][tile] > 0:
                pool[b][tile] -= 1
                sources[a][i] = b
                return

    for a, tiles in enumerate(after):
        for i, tile in enumerate(tiles):
            if sources[a][i] is None and not tile.is_joker:
                take_from_table(a, i)

    def unsourced(a: int) -> int:
        return sum(1 for t, s in zip(after[a], sources[a]) if s is None and not t.is_joker)

    for a in sorted(range(len(after)), key=unsourced, reverse=True):
        for i, tile in enumerate(after[a]):
            if sources[a][i] is None and tile.is_joker:
                take_from_table(a, i)
    # Pass 3: whatever is left came from the rack.
    return tuple(tuple(RACK if s is None else s for s in row) for row in sources)
