"""Exactness check: every hint judged legal by the referee and optimal against an independent reference.

    .venv/bin/python benchmarks/solver_exactness.py                 # 1000 positions per class
    .venv/bin/python benchmarks/solver_exactness.py --count 100 --classes small "jokers: pagat_sabra"

Classes and references:

* ``small`` (a few table sets, a short rack, jokers on the rack and table, several editions and
  presets) and ``jokers: <preset>`` for every preset (the same kind of position, always with one
  or two jokers on the table, the preset's own edition): exhaustive search
  (:func:`benchmarks.solver_reference.reference_best`), every sub-rack and every partition, the
  best table the referee accepts under the preset.
* ``opening``, ``mid-game``, ``late-game``, ``hard: ...``: a plain integer program over all
  candidate sets (:func:`benchmarks.solver_reference.ilp_reference`) under a preset whose jokers
  are free (that reference models no joker-retrieval rule).
* ``jokers: twist, big table``: a ``jokers: twist`` position with whole plain sets added to the
  table until it holds more than :data:`BIG_TABLE` tiles (a table the size of a game's middle,
  where the special sets and their rests number in the thousands). The exhaustive search cannot answer a table that size, so the
  reference is its answer for the small position: the hint on the big table must be legal and
  play at least as well (more table only adds plays), which is what a big-table cut would break.
* ``default: ...``, ``goliath: ...``, ``expert: ...`` (the speed benchmark's preset classes, big
  tables with jokers on them): legality only, every hint judged by the referee (no reference
  models the joker rules at that size).

For every position and both objectives it has the referee judge the hint (an **illegal** hint:
the referee rejects it, or its tiles do not add up) and compares (tiles played, value played, old
sets left unchanged) with the reference (a **non-optimal** hint: any difference; a draw where the
reference plays, or the reverse). It prints one line per class and exits 1 on any problem.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rummi.engine.notation import format_sets, format_tiles  # noqa: E402
from rummi.engine.referee import judge_turn  # noqa: E402
from rummi.engine.rules import PRESETS, get_rules  # noqa: E402
from rummi.engine.solver import solve  # noqa: E402
from rummi.engine.tiles import JokerKind, Tile  # noqa: E402

from benchmarks.positions import (  # noqa: E402
    ALIKE_TWIST_PRESETS,
    CLASSES,
    PRESET_CLASSES,
    Deal,
    _box,
    _random_set,
    alike_twist_deal,
    deal,
    joker_deal,
    locked_growth_deal,
    small_deal,
)
from benchmarks.solver_reference import audit, ilp_reference, reference_best  # noqa: E402

SMALL_PRESETS = [
    "pressman_us_2009", "goliath_modern", "pl_wikipedia_tournament", "strict_group_1980", "russian_wiki",
]
SMALL_EDITIONS = ["standard", "standard", "xp", "start_right", "standard4j"]
FREE_JOKERS = dict(freed_joker_in_new_set=False, freed_joker_min_own_tiles=0, joker_free_by_rearranging=True)
#: one class per preset: small positions with table jokers, judged under that preset
JOKER_CLASSES = {f"jokers: {name}": name for name in PRESETS}
#: the same positions in the boxes with other jokers (default preset): Twist's special jokers
#: (on the table and the rack) and Expert's coloured jokers
EDITION_CLASSES = {"jokers: twist": "twist", "jokers: expert": "expert"}
BIG_TWIST = "jokers: twist, big table"
#: Pagat's Sabra (a set holding a joker only grows) in Expert's box, a coloured joker on the rack
#: that could grow a table joker set (:func:`benchmarks.positions.locked_growth_deal`)
LOCKED_GROWTH = "jokers: pagat_sabra, expert, coloured growth"
#: Twist positions whose table special joker has its alike twin on the rack, the presets in turn
#: (:func:`benchmarks.positions.alike_twist_deal`)
ALIKE_TWIST = "jokers: twist, alike twin on the rack"
#: tiles a big Twist table holds at least (the size the Twist search once cut short on)
BIG_TABLE = 24


def big_twist_deal(seed: int) -> tuple[Deal, Deal]:
    """A ``jokers: twist`` position, and the same with whole plain sets added to its table until
    it is big (:data:`BIG_TABLE`)."""
    core = joker_deal(seed, "twist")
    rnd = random.Random(f"big-twist/{seed}")
    box = _box(core.edition)
    box.subtract(Counter(t for t in [*core.rack, *(t for s in core.table for t in s)] if not t.is_joker))
    table = [list(s) for s in core.table]
    while sum(len(s) for s in table) <= BIG_TABLE:
        s = _random_set(rnd, core.edition, box, 0)
        if s is not None:
            box.subtract(Counter(s))
            table.append(s)
    return core, replace(core, table=table)


def grows_with_coloured_joker(before: list[list[Tile]], after: list[list[Tile]]) -> bool:
    """Whether some new set holds every tile of an old set with a joker and, besides, a
    coloured (Expert) joker: a locked set grown by a coloured rack joker under Pagat's Sabra."""
    for old in before:
        if not any(t.is_joker for t in old):
            continue
        for new in after:
            extra = Counter(new) - Counter(old)
            if not Counter(old) - Counter(new) and any(t.joker is JokerKind.COLOURED for t in extra):
                return True
    return False


def check_class(name: str, count: int, first: int = 0) -> tuple[int, int, int]:
    """Positions checked, illegal hints and non-optimal hints, with a progress line on stderr
    (and, for :data:`LOCKED_GROWTH`, how many hints grow a locked set by a coloured joker)."""
    illegal = wrong = grown = 0
    checked = 0
    started = time.perf_counter()
    for seed in range(first, first + count):
        if name == "small":
            position = small_deal(seed, SMALL_EDITIONS[seed % len(SMALL_EDITIONS)])
            rules = get_rules(SMALL_PRESETS[seed % len(SMALL_PRESETS)])
            reference = reference_best
        elif name in JOKER_CLASSES:
            rules = get_rules(JOKER_CLASSES[name])
            position = joker_deal(seed, rules.edition)
            reference = reference_best
        elif name == BIG_TWIST:
            rules = get_rules("pressman_us_2009", edition="twist")
            core, position = big_twist_deal(seed)
            reference = lambda table, rack, *rest, core=core, **kw: reference_best(  # noqa: E731
                core.table, core.rack, *rest, **kw
            )
        elif name == LOCKED_GROWTH:
            rules = get_rules("pagat_sabra", edition="expert")
            position = locked_growth_deal(seed)
            reference = reference_best
        elif name == ALIKE_TWIST:
            rules = get_rules(ALIKE_TWIST_PRESETS[seed % len(ALIKE_TWIST_PRESETS)], edition="twist")
            position = alike_twist_deal(seed)
            reference = reference_best
        elif name in EDITION_CLASSES:
            rules = get_rules("pressman_us_2009", edition=EDITION_CLASSES[name])
            position = joker_deal(seed, rules.edition)
            reference = reference_best
        elif name in PRESET_CLASSES:
            kind = PRESET_CLASSES[name]
            position = deal(kind, seed)
            rules = get_rules(kind.preset, edition=kind.edition)
            reference = None  # too big to enumerate, and no set-based model of the joker rules
        else:
            position = deal(CLASSES[name], seed)
            rules = get_rules("goliath_modern", edition=position.edition.name, **FREE_JOKERS)
            reference = ilp_reference
        for objective in ("tiles", "value"):
            hint = solve(
                position.table, position.rack, opened=position.opened, edition=position.edition,
                rules=rules, objective=objective,
            )
            ref = None if reference is None else reference(
                position.table, position.rack, position.opened, position.edition, rules,
                value_first=objective == "value",
            )
            mine = None if hint.is_draw else (hint.tiles_played, hint.value_played, sum(hint.untouched))
            theirs = None if ref is None else (ref.tiles, ref.value, ref.untouched)
            if reference is None:
                theirs = mine  # legality only
            elif name == BIG_TWIST and mine is not None:
                # at least the small position's best, first by the objective
                order = (lambda x: (x[1], x[0])) if objective == "value" else (lambda x: x[:2])
                theirs = mine if theirs is None or order(mine) >= order(theirs) else theirs
            problems = [] if hint.is_draw else audit(
                position.table, position.rack, hint.play, hint.table, position.edition,
                not position.opened and not rules.table_play_in_opening_turn,
            )
            if not hint.is_draw:
                verdict = judge_turn(
                    position.table, hint.table, opened=position.opened, rack=position.rack,
                    rules=rules, edition=position.edition,
                )
                problems += [v.message for v in verdict.violations]
            illegal += bool(problems)
            wrong += mine != theirs
            grown += not hint.is_draw and grows_with_coloured_joker(position.table, hint.table)
            if mine != theirs or problems:
                print(
                    f"{'ILLEGAL' if problems else 'NOT OPTIMAL'} {name} seed {seed} {objective} {rules.name}:"
                    f" table {format_sets(position.table)}"
                    f" | rack {format_tiles(position.rack)} | opened {position.opened}\n"
                    f"   solver {mine} {format_sets(hint.table)} {problems}\n   reference {theirs}"
                    f" {format_sets(ref.table) if ref is not None else ''}",
                    flush=True,
                )
        checked += 1
        if checked % 10 == 0 or checked == count:
            rate = (time.perf_counter() - started) / checked
            print(f"\r{name}: {checked}/{count} positions, {illegal} illegal, {wrong} not optimal,"
                  f" {rate:.2f} s each", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if name == LOCKED_GROWTH:
        print(f"{name}: {grown} of {2 * checked} hints grow a locked set by a coloured rack joker", flush=True)
    return checked, illegal, wrong


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="positions per class (default 1000)")
    parser.add_argument("--first", type=int, default=0, help="first seed (to extend an earlier run)")
    parser.add_argument("--classes", nargs="*", default=["small", *JOKER_CLASSES, *EDITION_CLASSES, LOCKED_GROWTH, ALIKE_TWIST, BIG_TWIST, *CLASSES, *PRESET_CLASSES],
                        help="classes to check")
    args = parser.parse_args(argv)
    known = {"small", *JOKER_CLASSES, *EDITION_CLASSES, LOCKED_GROWTH, ALIKE_TWIST, BIG_TWIST, *CLASSES, *PRESET_CLASSES}
    unknown = [name for name in args.classes if name not in known]
    if unknown:
        parser.error(f"unknown class {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    total_bad = 0
    for name in args.classes:
        checked, illegal, wrong = check_class(name, args.count, args.first)
        total_bad += illegal + wrong
        print(f"{name:32s} seeds {args.first}-{args.first + checked - 1}: {checked} positions x 2 objectives,"
              f" {illegal} illegal, {wrong} not optimal", flush=True)
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
