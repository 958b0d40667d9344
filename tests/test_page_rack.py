"""My rack, apart from the table: a table photo and a rack photo (read as a rack) give the hint the
engine gives for those tiles; a rack alone is an opening; in one photo with both, tiles move
between rack and table with a tap. The expected moves come from the engine itself
(:func:`rummi.engine.solver.solve`) on the tiles the page read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rummi.engine.notation import format_tiles, parse_sets, parse_tiles
from rummi.engine.solver import solve

from tests.page_browser import (
    PHOTOS,
    SAMPLES,
    camera_on,
    capture,
    reads,
    screenshot,
    tap_tile,
    upload,
)

pytestmark = pytest.mark.browser


def rack_mode(page) -> None:
    page.locator("#modes [data-mode='rack']").click()


def expected_play(page, table: str, rack: str, opened: bool) -> list[str]:
    preset = page.evaluate("document.querySelector('#preset').value") or None
    hint = solve(parse_sets(table), parse_tiles(rack), opened=opened, rules=preset)
    return sorted(format_tiles(hint.play).split()) if not hint.is_draw else []


def page_play(page) -> list[str]:
    text = page.locator("#hint-result p", has_text="Play:").inner_text()
    words = text.removeprefix("Play:").split("(")[0].split()
    return sorted(words)


def test_a_table_photo_and_a_rack_photo_give_the_engines_hint(page, tmp_path: Path) -> None:
    scans: list[str] = []
    page.on("request", lambda request: "/api/v1/scan" in request.url and scans.append(request.url))
    rack_mode(page)
    upload(page, PHOTOS / "two-runs.jpg")  # step 1: the table
    assert page.locator("#step-table").inner_text() == "2 sets, 8 tiles"
    # With no rack in the table photo the page moves on to step 2 by itself.
    assert page.locator(".step[data-target='rack']").get_attribute("aria-pressed") == "true"
    assert page.locator("#capture").inner_text() == "Capture my rack"
    assert "Now scan your rack" in page.locator("#hint-result").inner_text()  # the table alone
    upload(page, PHOTOS / "rack.jpg")  # step 2: my rack, on its own
    assert "layout=rack" in scans[-1] and "layout=auto" in scans[0]
    assert page.locator("#step-rack").inner_text() == "6 tiles"
    page.locator("#opened").check()
    page.wait_for_selector("#hint-result .verdict.ok", timeout=30_000)

    table = page.evaluate("window.__rummi.state.pictures.table.scan.table.map(s => s.join(' ')).join(' | ')")
    rack = page.evaluate("window.__rummi.state.pictures.rack.scan.rack_tiles.join(' ')")
    assert (table, rack) == ("r5 r6 r7 | b3 b4 b5 b6 b7", "b5 b9 o3 r1 r2 r4")
    assert page_play(page) == expected_play(page, table, rack, opened=True) == ["b5", "r4"]
    assert page.locator("#hint-result .verdict").inner_text() == "Play 2 tiles"
    # On my rack's picture the two tiles played have the "play" outline.
    styles = page.evaluate(
        "[...window.__rummi.state.styles.entries()].filter(([, s]) => s === 'play').length"
    )
    assert styles == 2
    screenshot(page, tmp_path, "rack-photo")

    # Back on the table's picture, a "+tile" marks where each played tile goes: r4 to set 1.
    page.locator(".step[data-target='table']").click()
    page.wait_for_function("window.__rummi.state.arrows.length === 2", timeout=30_000)
    arrows = page.evaluate("window.__rummi.state.arrows.map(a => [a.text, a.set])")
    assert sorted(arrows) == [["+b5", 2], ["+r4", 1]]
    screenshot(page, tmp_path, "rack-hint-on-table")


def test_a_rack_alone_is_an_opening(page) -> None:
    rack_mode(page)
    page.locator(".step[data-target='rack']").click()
    upload(page, SAMPLES / "rack-rummy4-87.jpg")
    page.wait_for_selector("#hint-result .verdict.ok", timeout=30_000)
    rack = page.evaluate("window.__rummi.state.pictures.rack.scan.rack_tiles.join(' ')")
    assert len(rack.split()) == 13
    assert page_play(page) == expected_play(page, "", rack, opened=False)
    # The headline is the opening's worth, the same number as the explanation's.
    headline = page.locator("#hint-result .verdict").inner_text()
    worth = headline.rsplit("worth ", 1)[1].split()[0]
    assert headline.startswith("Open with")
    assert f"opening worth {worth} points" in page.locator("#hint-result ol").inner_text()


def test_in_one_photo_tiles_move_between_rack_and_table(page, tmp_path: Path) -> None:
    camera_on(page)
    rack_mode(page)
    capture(page)  # four sets on the table, no rack in the picture
    page.wait_for_function("window.__rummi.state.pictures.table && window.__rummi.state.pictures.table.scan")
    assert page.evaluate("window.__rummi.state.pictures.table.scan.rack.length") == 0

    # r1 o1 b1 is really my rack, not a table set: move the whole row with one tap.
    tap_tile(page, "r1")
    assert page.locator("#move-set-rack").is_visible()
    page.locator("#fix").screenshot(path=str(tmp_path / "move-dialog.png"))
    before = reads(page)
    page.locator("#move-set-rack").click()
    page.wait_for_function("window.__rummi.state.pictures.table.scan.rack.length === 3")
    page.locator("#opened").check()
    page.wait_for_selector("#hint-result .verdict", timeout=30_000)
    page.wait_for_function("!window.__rummi.state.busy")
    assert reads(page) == before  # no new photo: the same reading, split differently
    rack = page.evaluate(
        "(() => { const p = window.__rummi.state.pictures.table; return p.scan.rack.map(i => p.scan.tiles[i].tile).join(' '); })()"
    )
    assert sorted(rack.split()) == ["b1", "o1", "r1"]
    table = page.evaluate(
        """(() => { const p = window.__rummi.state.pictures.table;
             return p.scan.sets.filter(s => s.length).map(s => s.map(i => p.scan.tiles[i].tile).join(' ')).join(' | '); })()"""
    )
    assert "r1" not in table.split()
    expected = expected_play(page, table, rack, opened=True)
    if expected:
        page.wait_for_selector("#hint-result .verdict.ok", timeout=30_000)
        assert page_play(page) == expected
    else:
        assert page.locator("#hint-result .verdict").inner_text() == "Draw a tile"
    screenshot(page, tmp_path, "moved-to-rack")

    # And back: o1 belongs on the table after all.
    tap_tile(page, "o1")
    page.locator("#move-table").click()
    page.wait_for_function("window.__rummi.state.pictures.table.scan.rack.length === 2")
    assert "o1" in page.locator("#read-text").inner_text().split("Rack in the table photo")[0]
