"""Property tests: whatever the position, the hint is a legal, tile-conserving play."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rummi.engine.rules import get_rules
from rummi.engine.solver import solve

from benchmarks.positions import small_deal
from benchmarks.solver_reference import audit

PRESETS = [
    "pressman_us_2009", "goliath_modern", "pl_wikipedia_tournament", "pagat_sabra", "strict_group_1980",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=10**9),
    preset=st.sampled_from(PRESETS),
    objective=st.sampled_from(["tiles", "value"]),
    edition=st.sampled_from(["standard", "xp", "start_right", "standard4j"]),
)
def test_every_hint_is_a_legal_play(seed: int, preset: str, objective: str, edition: str) -> None:
    deal = small_deal(seed, edition)
    hint = solve(
        deal.table, deal.rack, opened=deal.opened, edition=deal.edition, rules=preset, objective=objective
    )
    if hint.is_draw:
        assert hint.reason
        assert hint.play == [] and Counter(map(tuple, hint.table)) == Counter(map(tuple, deal.table))
        return
    # valid sets, table after == table before + played, played tiles from the rack (so no
    # table tile goes to a rack, no tile is used twice), table untouched before the opening
    table_fixed = not deal.opened and not get_rules(preset).table_play_in_opening_turn
    assert audit(deal.table, deal.rack, hint.play, hint.table, deal.edition, table_fixed) == []
    assert hint.tiles_played == len(hint.play) > 0
    assert len(hint.untouched) == len(hint.table)
    if not deal.opened:
        assert hint.opening_value >= get_rules(preset).opening_threshold


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**9))
def test_more_rack_never_means_fewer_tiles(seed: int) -> None:
    """Adding a tile to the rack can only keep or raise the best tile count (after opening)."""
    deal = small_deal(seed)
    if not deal.rack:
        return
    fewer = solve(deal.table, deal.rack[:-1], opened=True, edition=deal.edition, rules="goliath_modern")
    more = solve(deal.table, deal.rack, opened=True, edition=deal.edition, rules="goliath_modern")
    assert more.tiles_played >= fewer.tiles_played
