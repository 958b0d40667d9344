"""Seeded random positions for the solver's benchmark and exactness check.

A position is dealt the way a game reaches it: the table is a heap of random valid sets (runs of
3-6, groups of 3-4, a joker now and then) taken from one box, the rack is random tiles from what
is left. The same seed always gives the same position.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from rummi.engine.editions import Edition, get_edition
from rummi.engine.melds import classify
from rummi.engine.tiles import JOKER, Tile


@dataclass(frozen=True)
class Deal:
    table: list[list[Tile]]
    rack: list[Tile]
    opened: bool
    edition: Edition


@dataclass(frozen=True)
class DealClass:
    """A kind of position: table size, rack size, jokers on the rack and on the table."""

    name: str
    table_tiles: int
    rack_tiles: int
    rack_jokers: int
    table_jokers: int = 0
    edition: str = "standard"
    opened: bool = True
    #: the rule preset the class is judged by; empty: the package's rules (jokers free)
    preset: str = ""


CLASSES = {
    c.name: c
    for c in (
        DealClass("opening", 0, 14, 0, opened=False),
        DealClass("opening, 2 jokers", 0, 14, 2, opened=False),
        DealClass("mid-game", 40, 12, 1),
        DealClass("late-game", 80, 20, 2),
        DealClass("jokers to place", 40, 6, 2),
        DealClass("hard: long rack", 60, 30, 1, 1),
        DealClass("hard: xp jokers", 90, 24, 2, 2, edition="xp"),
    )
}

#: Classes played under a rule preset (its joker retrieval rules), for the speed benchmark: the
#: default preset with jokers on the table, the Expert box (coloured jokers, always modelled by
#: the integer program) and the slowest class found before, XP 90 + 24 with 2 + 2 jokers.
PRESET_CLASSES = {
    c.name: c
    for c in (
        DealClass("default: mid-game, table joker", 40, 12, 1, 1, preset="pressman_us_2009"),
        DealClass("default: 2 jokers on the table", 40, 6, 0, 2, preset="pressman_us_2009"),
        DealClass("default: late-game, 2 table jokers", 80, 20, 0, 2, preset="pressman_us_2009"),
        DealClass("default: long rack, table joker", 60, 30, 1, 1, preset="pressman_us_2009"),
        DealClass("default: xp 90 + 24, 2 + 2 jokers", 90, 24, 2, 2, edition="xp", preset="pressman_us_2009"),
        DealClass("goliath: mid-game, table joker", 40, 12, 1, 1, preset="goliath_modern"),
        DealClass("expert: mid-game, coloured jokers", 40, 12, 1, 2, edition="expert",
                  preset="pressman_us_2009"),
        # one class per other way a preset reads joker retrieval (rules-presets.md): jumbo_de,
        # sabra_way_50, us_most_wins and be_cafe_tournament read it as mso_2019 does
        DealClass("pl_wikipedia: mid-game, table joker", 40, 12, 1, 1, preset="pl_wikipedia_tournament"),
        DealClass("mso_2019: mid-game, table joker", 40, 12, 1, 1, preset="mso_2019"),
        DealClass("czech_piatnik: mid-game, table joker", 40, 12, 1, 1, edition="standard4j",
                  preset="czech_piatnik"),
        DealClass("russian_wiki: mid-game, table joker", 40, 12, 1, 1, preset="russian_wiki"),
        DealClass("strict_group_1980: mid-game, table joker", 40, 12, 1, 1, preset="strict_group_1980"),
        DealClass("pagat_sabra: mid-game, table joker", 40, 12, 1, 1, preset="pagat_sabra"),
        DealClass("twist: mid-game, special joker on the table", 40, 12, 1, 1, edition="twist",
                  preset="pressman_us_2009"),
    )
}


def _box(edition: Edition) -> Counter[Tile]:
    box = edition.inventory()
    for joker in [t for t in box if t.is_joker]:
        del box[joker]
    return box


def _joker_tiles(edition: Edition) -> list[Tile]:
    """The box's jokers in a fixed order (plain editions: ``J`` each; Expert: its coloured ones)."""
    return sorted((t for t in edition.inventory().elements() if t.is_joker), key=str)


def _random_set(
    rnd: random.Random, edition: Edition, box: Counter[Tile], jokers: int, joker: Tile = JOKER
) -> list[Tile] | None:
    colours = edition.colours
    if rnd.random() < 0.5:
        number = rnd.choice(list(edition.numbers))
        size = rnd.choice([3, 3, 4])
        tiles = [Tile(number=number, colour=c) for c in rnd.sample(colours, size)]
    else:
        colour = rnd.choice(colours)
        length = rnd.choice([3, 3, 4, 4, 5, 6])
        start = rnd.randint(edition.min_number, edition.max_number - length + 1)
        tiles = [Tile(number=n, colour=colour) for n in range(start, start + length)]
    if jokers and rnd.random() < 0.5:
        spot = rnd.randrange(len(tiles))
        if joker.colour is not None and tiles[spot].colour != joker.colour:
            return None  # an Expert joker only stands for a tile of its colour
        tiles[spot] = joker
        jokers -= 1
        if joker.joker is not None and joker.joker.is_special and not classify(tiles, edition).valid:
            return None  # a Twist joker does not fit every place (a colour change between colours)
    need = Counter(t for t in tiles if not t.is_joker)
    if any(box[t] < n for t, n in need.items()):
        return None
    return tiles


def deal(kind: DealClass, seed: int) -> Deal:
    """One position of ``kind``; the table holds about ``table_tiles`` tiles (never fewer)."""
    rnd = random.Random(f"{kind.name}/{seed}")
    edition = get_edition(kind.edition)
    box = _box(edition)
    table: list[list[Tile]] = []
    jokers_left = kind.table_jokers
    joker_box = _joker_tiles(edition)
    placed = 0
    tries = 0
    while placed < kind.table_tiles and tries < 10_000:
        tries += 1
        s = _random_set(rnd, edition, box, jokers_left, joker_box[0] if joker_box else JOKER)
        if s is None:
            continue
        if any(t.is_joker for t in s):
            joker_box.remove(next(t for t in s if t.is_joker))
        jokers_left -= sum(t.is_joker for t in s)
        box.subtract(Counter(t for t in s if not t.is_joker))
        table.append(s)
        placed += len(s)
    rest = list(box.elements())
    rnd.shuffle(rest)
    rack = rest[: kind.rack_tiles - kind.rack_jokers] + joker_box[-kind.rack_jokers:] * (kind.rack_jokers > 0)
    rnd.shuffle(rack)
    return Deal(table=table, rack=rack, opened=kind.opened, edition=edition)


def _rack_near(
    rnd: random.Random, ed: Edition, box: Counter, table: list[list[Tile]], count: int, near_share: float
) -> list[Tile]:
    """Up to ``count`` rack tiles drawn from ``box``, each near a table tile (same number, or its
    colour two either side) with chance ``near_share``, so that rearrangements matter."""
    near = [t for s in table for t in s if not t.is_joker]
    rack: list[Tile] = []
    for _ in range(count):
        if near and rnd.random() < near_share:
            base = rnd.choice(near)
            if rnd.random() < 0.5:
                cand = Tile(number=base.number, colour=rnd.choice(ed.colours))
            else:
                n = min(ed.max_number, max(ed.min_number, base.number + rnd.choice([-2, -1, 1, 2])))
                cand = Tile(number=n, colour=base.colour)
        else:
            cand = Tile(number=rnd.choice(list(ed.numbers)), colour=rnd.choice(ed.colours))
        if box[cand] > 0:
            box[cand] -= 1
            rack.append(cand)
    return rack


def small_deal(seed: int, edition: str = "standard") -> Deal:
    """A small position for exhaustive checking: a few table sets, a short rack, some jokers."""
    rnd = random.Random(f"small/{edition}/{seed}")
    ed = get_edition(edition)
    box = _box(ed)
    table: list[list[Tile]] = []
    jokers = ed.joker_count
    table_jokers = rnd.choice([0, 0, 1, 1, 2]) if rnd.random() < 0.6 else 0
    for _ in range(rnd.choice([0, 1, 1, 2, 2, 3])):
        s = _random_set(rnd, ed, box, table_jokers)
        if s is None:
            continue
        table_jokers -= sum(t.is_joker for t in s)
        jokers -= sum(t.is_joker for t in s)
        box.subtract(Counter(t for t in s if not t.is_joker))
        table.append(s)
    rack = _rack_near(rnd, ed, box, table, rnd.randint(1, 7), near_share=0.6)
    if jokers > 0 and rnd.random() < 0.35:
        rack.append(JOKER)
    return Deal(table=table, rack=rack, opened=rnd.random() < 0.75, edition=ed)


def joker_deal(seed: int, edition: str = "standard") -> Deal:
    """A small position with one or two jokers on the table, for checking joker retrieval.

    Like :func:`small_deal` (a few table sets, a short rack near the table's tiles), but every
    position holds a table joker, so every preset's retrieval rules are at stake.
    """
    from rummi.engine.melds import classify

    rnd = random.Random(f"jokers/{edition}/{seed}")
    ed = get_edition(edition)
    box = _box(ed)
    table: list[list[Tile]] = []
    wanted = rnd.choice([1, 1, 1, 2])
    joker_box = _joker_tiles(ed)
    rnd.shuffle(joker_box)
    tries = 0
    while (len(table) < 1 or wanted > 0) and tries < 500:
        tries += 1
        s = _random_set(rnd, ed, box, wanted, joker_box[0] if joker_box else JOKER)
        if s is None or (wanted and not any(t.is_joker for t in s)) or not classify(s, ed).valid:
            continue
        used = [t for t in s if t.is_joker]
        wanted -= len(used)
        for t in used:
            joker_box.remove(t)
        box.subtract(Counter(t for t in s if not t.is_joker))
        table.append(s)
    while not table:  # no joker could be placed validly (a Twist special joker): a plain set
        s = _random_set(rnd, ed, box, 0)
        if s is not None:
            box.subtract(Counter(s))
            table.append(s)
    for _ in range(rnd.choice([0, 1, 1, 2])):
        s = _random_set(rnd, ed, box, 0)
        if s is not None:
            box.subtract(Counter(s))
            table.append(s)
    rack = _rack_near(rnd, ed, box, table, rnd.randint(1, 6), near_share=0.7)  # table has numbered tiles
    if joker_box and rnd.random() < (0.6 if len(set(joker_box)) > 1 else 0.25):
        rack.append(joker_box[0])
    return Deal(table=table, rack=rack, opened=rnd.random() < 0.85, edition=ed)


def locked_growth_deal(seed: int) -> Deal:
    """An Expert position after the opening for Pagat's Sabra (a set holding a joker is locked):
    a :func:`joker_deal` whose rack joker, if any, goes back to the box and whose rack then takes
    a coloured joker that could grow one of the table's joker sets (a run's colour, or a colour a
    group lacks) and, three times in ten, one more joker from the box, of any colour, so that
    both the growths by a coloured rack joker and the colours that may not grow a set are at
    stake. At most two rack jokers and seven tiles: the exhaustive reference must answer every
    position (eight tiles and a 22-tile table took it five minutes)."""
    ed = get_edition("expert")
    core = joker_deal(seed, "expert")
    rnd = random.Random(f"locked-growth/{seed}")
    box = Counter(_joker_tiles(ed))
    box.subtract(Counter(t for s in core.table for t in s if t.is_joker))
    fitting: list[Tile] = []
    for s in core.table:
        verdict = classify(s, ed)
        if not any(t.is_joker for t in s) or not verdict.valid:
            continue
        for reading in verdict.readings:
            have = {t.colour for t in reading.stands_for}
            colours = have if reading.kind.value == "run" else set(ed.colours) - have
            fitting += [t for t in box.elements() if t.colour in colours]
    rack = [t for t in core.rack if not t.is_joker]
    if fitting:
        joker = rnd.choice(sorted(set(fitting), key=str))
        box[joker] -= 1
        rack.append(joker)
    others = sorted(box.elements(), key=str)
    if others and rnd.random() < 0.3:
        if len(rack) > 6:  # at most 7 tiles, as joker_deal deals
            rack = rack[1:]
        rack.append(rnd.choice(others))
    return Deal(table=core.table, rack=rack, opened=True, edition=ed)


#: the presets the alike-twin Twist class turns through, seed by seed (a freed joker's landing
#: set with two own tiles or one, a replacement from the rack, the strict 3-tile group)
ALIKE_TWIST_PRESETS = ("pressman_us_2009", "mso_2019", "goliath_modern", "strict_group_1980")


def alike_twist_deal(seed: int) -> Deal:
    """A Twist position after the opening whose first table special joker has its alike twin on
    the rack (a :func:`joker_deal` whose rack jokers go back to the box for that twin, where the
    position does not hold two already): the case where the referee pairs a kept joker with any
    joker of its kind, which the search must follow (a review found 9 of 823 such hints not
    optimal). At most seven rack tiles, so the exhaustive reference answers every position."""
    core = joker_deal(seed, "twist")
    specials = [t for s in core.table for t in s if t.is_joker and t.joker.is_special]
    rack = list(core.rack)
    if specials:
        twin = specials[0]
        held = sum(t == twin for s in core.table for t in s) + sum(t == twin for t in core.rack)
        if held < 2:
            rack = [t for t in rack if not t.is_joker] + [twin]
    return Deal(table=core.table, rack=rack[-7:], opened=True, edition=core.edition)
