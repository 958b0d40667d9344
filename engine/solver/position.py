"""The solver's view of a turn: tile counts by index, the table's sets, the jokers and the rules.

Numbered tiles become indices ``colour_index * span + (number - min_number)`` so the model can
work with arrays. Jokers are grouped by *kind key*: every plain-like joker (``J``, Twist's ``Js``)
shares one key, Expert's coloured jokers have one key per colour because only that colour's
tiles may stand behind them. Twist's special jokers (double, mirror, colour change) are not
modelled: a set holding one stays on the table untouched, and the rack keeps them.
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rummi.engine.editions import Edition, get_edition
from rummi.engine.errors import RummiError
from rummi.engine.joker_fate import is_strict_group, meanings_by_kind
from rummi.engine.melds import SetKind, classify
from rummi.engine.notation import format_tiles
from rummi.engine.tiles import JokerKind, Tile

ANY = -1  # kind key of plain-like jokers; coloured (Expert) jokers use their colour index

#: rack jokers a locked set's growth takes: (kind key, count) pairs, sorted, each count above 0
JokerUse = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class RuleView:
    """The rule fields the solver reads, with the defaults of the primary rulebook.

    Read with ``getattr`` so any object with these attribute names works (a
    :class:`engine.rules.Rules`, or a test's stand-in).
    """

    threshold: int = 30
    table_play_in_opening_turn: bool = False
    joker_in_opening: bool = True
    replacement_from_table: bool = False
    free_by_rearranging: bool = True
    freed_min_own_tiles: int = 2
    freed_in_new_set: bool = True
    strict_joker_group: bool = False
    locked_joker_sets: bool = False
    joker_penalty: int = 30

    @classmethod
    def of(cls, rules: Any) -> RuleView:
        if rules is None or isinstance(rules, str):
            from rummi.engine.rules import get_rules

            rules = get_rules(rules)
        d = cls()
        return cls(
            threshold=int(getattr(rules, "opening_threshold", d.threshold)),
            table_play_in_opening_turn=bool(
                getattr(rules, "table_play_in_opening_turn", d.table_play_in_opening_turn)
            ),
            joker_in_opening=bool(getattr(rules, "joker_in_opening", d.joker_in_opening)),
            replacement_from_table=bool(
                getattr(rules, "joker_replacement_from_table", d.replacement_from_table)
            ),
            free_by_rearranging=bool(getattr(rules, "joker_free_by_rearranging", d.free_by_rearranging)),
            freed_min_own_tiles=int(getattr(rules, "freed_joker_min_own_tiles", d.freed_min_own_tiles)),
            freed_in_new_set=bool(getattr(rules, "freed_joker_in_new_set", d.freed_in_new_set)),
            strict_joker_group=bool(getattr(rules, "strict_joker_group", d.strict_joker_group)),
            locked_joker_sets=bool(getattr(rules, "locked_joker_sets", d.locked_joker_sets)),
            joker_penalty=int(getattr(rules, "joker_penalty", d.joker_penalty)),
        )


@dataclass(frozen=True)
class TableJoker:
    """One joker lying on the table: its set, its kind and every tile index it may stand for."""

    set_index: int
    key: int
    tile: Tile
    meanings: tuple[int, ...]
    #: strict 3-tile group rule: every meaning must be supplied to free it (both colours)
    needs_all: bool
    #: the meanings it keeps by standing in a run / in a group (engine.joker_fate: a joker
    #: keeps its place only in a set of its old kind)
    run_meanings: tuple[int, ...] = ()
    group_meanings: tuple[int, ...] = ()


@dataclass(frozen=True)
class TableSet:
    tiles: tuple[Tile, ...]
    counts: tuple[tuple[int, int], ...]  # (tile index, count) of its numbered tiles
    joker_keys: tuple[int, ...]  # kind key of each of its (modelled) jokers
    #: locked: may only keep its tiles (a special joker, or the locked-joker-set rule)
    locked: bool
    #: for a locked set: the ways it may grow, each a tuple of (tile index, count) to add
    extensions: tuple[tuple[tuple[int, int], ...], ...] = ((),)
    #: per extension, the rack jokers it takes by kind (pagat_sabra: a locked set may grow with
    #: one; in Expert's box a coloured one of a colour the set may take)
    extension_jokers: tuple[JokerUse, ...] = ((),)
    #: False: it cannot be left whole this turn (engine.solver.fates: a joker of it was freed)
    keepable: bool = True


class Position:
    """Table, rack and edition, checked and indexed for the model."""

    def __init__(
        self,
        table: Sequence[Sequence[Tile]],
        rack: Sequence[Tile],
        edition: Edition | str | None,
        rules: RuleView,
    ) -> None:
        self.edition = get_edition(edition)
        self.rules = rules
        ed = self.edition
        self.colours = ed.colours
        self.numbers = list(ed.numbers)
        self.span = len(self.numbers)
        self.size = len(self.colours) * self.span
        self._tiles: list[Tile | None] = [None] * self.size
        self.table_sets_in = [tuple(s) for s in table]
        self.rack_in = tuple(rack)
        _check_tiles(self.table_sets_in, self.rack_in, ed)

        self.table_count = [0] * self.size
        self.joker_tile: dict[int, Tile] = {}
        self._read_rack(self.rack_in)

        self.sets: list[TableSet] = []
        self.table_jokers: list[TableJoker] = []
        #: table jokers that go on standing for a tile *as that tile* (engine.solver.fates):
        #: (tile index, in a run (else a group), its old set)
        self.kept_as: list[tuple[int, bool, int]] = []
        for tiles in self.table_sets_in:
            for t in tiles:
                if not t.is_joker:
                    self.table_count[self.index(t)] += 1
        for k, tiles in enumerate(self.table_sets_in):  # after the counts: locked sets read them
            self.sets.append(self._read_set(k, tiles))

    def _read_rack(self, rack: Sequence[Tile]) -> None:
        """The rack's fields: its counts, its jokers by kind (a joker no model places is
        unplayable) and, first in ``joker_tile``, a rack tile for each joker kind."""
        self.rack_in = tuple(rack)
        self.rack_count = [0] * self.size
        self.rack_jokers: Counter[int] = Counter()
        self.unplayable_rack: list[Tile] = []
        for tile in self.rack_in:
            if tile.is_joker:
                key = self.joker_key(tile)
                if key is None:
                    self.unplayable_rack.append(tile)
                else:
                    self.rack_jokers[key] += 1
                    self.joker_tile.setdefault(key, tile)
            else:
                self.rack_count[self.index(tile)] += 1

    def with_rack(self, rack: Sequence[Tile]) -> Position:
        """This table with another rack, without reading the table again (the Twist search
        asks hundreds of rests of one table): a rack joker's tile comes first in
        ``joker_tile``, then the table's, as the constructor orders them. Not for locked sets,
        whose ways to grow read the rack."""
        out = copy.copy(self)
        table_tiles = self.joker_tile
        out.joker_tile = {}
        out._read_rack(rack)
        for key, tile in table_tiles.items():
            out.joker_tile.setdefault(key, tile)
        return out

    # --- indexing ------------------------------------------------------------------------
    def index(self, tile: Tile) -> int:
        offset = tile.number - self.numbers[0]  # type: ignore[operator]
        return self.colours.index(tile.colour) * self.span + offset  # type: ignore[arg-type]

    def tile(self, index: int) -> Tile:
        tile = self._tiles[index]
        if tile is None:  # made once per index: tiles are values, one object serves every use
            c, offset = divmod(index, self.span)
            tile = self._tiles[index] = Tile(number=self.numbers[0] + offset, colour=self.colours[c])
        return tile

    def number_of(self, index: int) -> int:
        return self.numbers[0] + index % self.span

    def joker_key(self, tile: Tile) -> int | None:
        """Kind key of a joker the model handles; ``None`` for Twist's special jokers."""
        if tile.joker is JokerKind.COLOURED and self.edition.coloured_jokers:
            return self.colours.index(tile.colour)  # type: ignore[arg-type]
        if tile.joker is not None and tile.joker.is_special:
            return None
        return ANY

    def key_fits_colour(self, key: int, colour_index: int) -> bool:
        return key == ANY or key == colour_index

    def joker_tiles(self, use: JokerUse) -> list[Tile]:
        """The rack jokers a growth takes (:attr:`TableSet.extension_jokers`), as tiles: what
        both the integer program and :mod:`engine.solver.locked` lay and count as played."""
        return [self.joker_tile[key] for key, n in use for _ in range(n)]

    @property
    def joker_keys(self) -> list[int]:
        keys = set(self.rack_jokers) | {j.key for j in self.table_jokers}
        for s in self.sets:
            keys.update(s.joker_keys)
        return sorted(keys)

    # --- reading the table -----------------------------------------------------------------
    def _read_set(self, k: int, tiles: tuple[Tile, ...]) -> TableSet:
        counts = Counter(self.index(t) for t in tiles if not t.is_joker)
        count_items = tuple(sorted(counts.items()))
        if any(t.is_joker and t.joker.is_special for t in tiles):  # type: ignore[union-attr]
            return TableSet(tiles, count_items, (), locked=True)
        verdict = classify(tiles, self.edition)
        if not verdict.valid:
            raise RummiError(f"table set {format_tiles(tiles)} is not valid: {verdict.reason}")
        jokers = [t for t in tiles if t.is_joker]
        keys = tuple(self.joker_key(t) for t in jokers)  # type: ignore[misc]
        for key, tile in zip(keys, jokers):
            self.joker_tile.setdefault(key, tile)  # type: ignore[arg-type]
        if jokers and self.rules.locked_joker_sets:
            grown = self._extensions(verdict)
            return TableSet(
                tiles, count_items, keys, locked=True,  # type: ignore[arg-type]
                extensions=tuple(e for e, _ in grown), extension_jokers=tuple(x for _, x in grown),
            )
        meanings = verdict.joker_meanings()
        strict = self.rules.strict_joker_group and is_strict_group(verdict)
        for i, (key, tile) in enumerate(zip(keys, jokers)):
            by_kind = meanings_by_kind(verdict, i)
            self.table_jokers.append(
                TableJoker(
                    set_index=k,
                    key=key,  # type: ignore[arg-type]
                    tile=tile,
                    meanings=tuple(sorted({self.index(m) for m in meanings[i]})),
                    needs_all=strict,
                    run_meanings=tuple(sorted({self.index(m) for m in by_kind.get(SetKind.RUN, ())})),
                    group_meanings=tuple(sorted({self.index(m) for m in by_kind.get(SetKind.GROUP, ())})),
                )
            )
        return TableSet(tiles, count_items, keys, locked=False)  # type: ignore[arg-type]

    def _extensions(self, verdict: Any) -> list[tuple[tuple[tuple[int, int], ...], JokerUse]]:
        """Every way a locked set may grow: (numbered tiles to add, rack jokers to add by kind).

        engine.joker_fate: a locked set is kept when all its tiles lie together in one valid set
        in which its jokers still stand for what they stood for: it grows at the ends of a run
        or by the missing colours of a group, with tiles or rack jokers (pagat_sabra). Each new
        place may take its tile, a plain rack joker, or (Expert's box) a rack joker of the
        place's colour, as engine.melds reads a coloured joker: it stands only for a tile of its
        own colour (in a group, the missing tile of that colour). Only tiles the table and rack
        hold, and jokers the rack holds, are listed. The integer program and
        :mod:`engine.solver.locked` both choose from this one list.
        """
        have = [self.table_count[i] + self.rack_count[i] for i in range(self.size)]
        found: set[tuple[tuple[tuple[int, int], ...], JokerUse]] = {((), ())}
        rack_jokers = self.rack_jokers
        # per colour, the rack joker kinds that may stand for a tile of it
        kinds_of = {c: [k for k in (ANY, key) if rack_jokers.get(k)] for key, c in enumerate(self.colours)}

        def add(new_places: list[Tile]) -> None:
            kinds = [kinds_of[t.colour] for t in new_places]  # type: ignore[index]
            keys_here = set().union(*kinds)
            usable = sum(rack_jokers[k] for k in keys_here)
            for x in range(0, min(usable, len(new_places)) + 1):
                for spots in itertools.combinations(range(len(new_places)), x):
                    extra = [t for k, t in enumerate(new_places) if k not in spots]
                    if not all(have[self.index(t)] > 0 for t in extra) or not (extra or x):
                        continue
                    tiles = tuple(sorted((self.index(t), 1) for t in extra))
                    if not x:
                        found.add((tiles, ()))
                    elif len(keys_here) == 1:  # one kind (always so with plain jokers): x of it
                        if all(kinds[k] for k in spots):
                            found.add((tiles, ((next(iter(keys_here)), x),)))
                    else:
                        for keys in itertools.product(*(kinds[k] for k in spots)):
                            use = Counter(keys)
                            if all(n <= rack_jokers[k] for k, n in use.items()):
                                found.add((tiles, tuple(sorted(use.items()))))

        for reading in verdict.readings:
            members = reading.stands_for
            if reading.kind.value == "group":
                have_colours = {t.colour for t in members}
                missing = [c for c in self.colours if c not in have_colours]
                for r in range(1, len(missing) + 1):
                    for combo in itertools.combinations(missing, r):
                        add([Tile(number=members[0].number, colour=c) for c in combo])
                continue
            colour = members[0].colour
            low, high = members[0].number, members[-1].number
            lowest, highest = self.numbers[0], self.numbers[-1]
            for a in range(lowest, low + 1):
                for b in range(high, highest + 1):
                    numbers = list(range(a, low)) + list(range(high + 1, b + 1))
                    if numbers:
                        add([Tile(number=n, colour=colour) for n in numbers])
        return sorted(found, key=lambda e: (len(e[0]) + sum(n for _, n in e[1]), e))


def _check_tiles(table: list[tuple[Tile, ...]], rack: tuple[Tile, ...], edition: Edition) -> None:
    for tiles in table:
        for t in tiles:
            if not isinstance(t, Tile):
                raise RummiError(f"not a tile: {t!r}")
    for t in rack:
        if not isinstance(t, Tile):
            raise RummiError(f"not a tile: {t!r}")
    everything = [t for s in table for t in s] + list(rack)
    edition.check_inventory(everything)
