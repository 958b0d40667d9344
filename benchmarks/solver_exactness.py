"""Exactness check: the hint solver against independent references on seeded random positions.

    .venv/bin/python benchmarks/solver_exactness.py                 # 1000 positions per class
    .venv/bin/python benchmarks/solver_exactness.py --count 100 --classes small opening

Classes and references:

* ``small`` (a few table sets, a short rack, jokers on the rack and table, several editions and
  presets): exhaustive search (:class:`benchmarks.solver_reference.Reference`), which tries every
  sub-rack and every partition; every preset's joker rules are checked here.
* ``opening``, ``mid-game``, ``late-game``, ``hard: ...``: a plain integer program over all
  candidate sets (:func:`benchmarks.solver_reference.ilp_reference`) under a preset whose jokers
  are free (that reference models no joker-retrieval rule).

For every position and both objectives it compares (tiles played, value played, old sets left
unchanged) and audits the answer (valid sets, tiles conserved, played tiles from the rack). It
prints one line per class and exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.positions import CLASSES, deal, small_deal  # noqa: E402
from benchmarks.solver_reference import audit, ilp_reference, reference_best  # noqa: E402
from rummi.engine.notation import format_sets, format_tiles  # noqa: E402
from rummi.engine.rules import get_rules  # noqa: E402
from rummi.engine.solver import solve  # noqa: E402

SMALL_PRESETS = [
    "pressman_us_2009", "goliath_modern", "pl_wikipedia_tournament", "strict_group_1980", "russian_wiki",
]
SMALL_EDITIONS = ["standard", "standard", "xp", "start_right", "standard4j"]
FREE_JOKERS = dict(freed_joker_in_new_set=False, freed_joker_min_own_tiles=0, joker_free_by_rearranging=True)


def check_class(name: str, count: int, first: int = 0) -> tuple[int, int]:
    """Positions checked and disagreements found, with a progress line on stderr."""
    bad = 0
    checked = 0
    started = time.perf_counter()
    for seed in range(first, first + count):
        if name == "small":
            position = small_deal(seed, SMALL_EDITIONS[seed % len(SMALL_EDITIONS)])
            rules = get_rules(SMALL_PRESETS[seed % len(SMALL_PRESETS)])
            reference = reference_best
        else:
            position = deal(CLASSES[name], seed)
            rules = get_rules("goliath_modern", edition=position.edition.name, **FREE_JOKERS)
            reference = ilp_reference
        for objective in ("tiles", "value"):
            hint = solve(
                position.table, position.rack, opened=position.opened, edition=position.edition,
                rules=rules, objective=objective,
            )
            ref = reference(
                position.table, position.rack, position.opened, position.edition, rules,
                value_first=objective == "value",
            )
            mine = None if hint.is_draw else (hint.tiles_played, hint.value_played, sum(hint.untouched))
            theirs = None if ref is None else (ref.tiles, ref.value, ref.untouched)
            problems = [] if hint.is_draw else audit(
                position.table, position.rack, hint.play, hint.table, position.edition,
                not position.opened and not rules.table_play_in_opening_turn,
            )
            if mine != theirs or problems:
                bad += 1
                print(
                    f"MISMATCH {name} seed {seed} {objective} {rules.name}:"
                    f" table {format_sets(position.table)}"
                    f" | rack {format_tiles(position.rack)} | opened {position.opened}\n"
                    f"   solver {mine} {format_sets(hint.table)} {problems}\n   reference {theirs}",
                    flush=True,
                )
        checked += 1
        if checked % 10 == 0 or checked == count:
            rate = (time.perf_counter() - started) / checked
            print(f"\r{name}: {checked}/{count} positions, {bad} disagreements, {rate:.2f} s each",
                  end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return checked, bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="positions per class (default 1000)")
    parser.add_argument("--first", type=int, default=0, help="first seed (to extend an earlier run)")
    parser.add_argument("--classes", nargs="*", default=["small", *CLASSES], help="classes to check")
    args = parser.parse_args(argv)
    total_bad = 0
    for name in args.classes:
        checked, bad = check_class(name, args.count, args.first)
        total_bad += bad
        print(f"{name:18s} seeds {args.first}-{args.first + checked - 1}: {checked} positions x 2 objectives,"
              f" {bad} disagreements", flush=True)
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
