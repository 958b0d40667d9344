"""The stateless questions, asked over HTTP of a real `rummi serve`: is this table valid, what
should I play, was that turn legal, what does this game score."""

from __future__ import annotations

import httpx
import pytest

from tests.api_server import Server


@pytest.fixture(scope="module")
def client(api_server: Server) -> httpx.Client:
    with api_server.client() as client:
        yield client


def test_every_set_gets_a_verdict_with_its_reason(client: httpx.Client) -> None:
    response = client.post("/api/v1/table/check", json={"table": "r5 r6 r7 | k9 b9 b9 | o12 o13 o1"})
    assert response.status_code == 200
    verdict = response.json()
    assert verdict["valid"] is False
    assert [s["valid"] for s in verdict["sets"]] == [True, False, False]
    assert verdict["sets"][0]["kind"] == "run" and verdict["sets"][0]["value"] == 18
    assert "colour repeated" in verdict["sets"][1]["reason"]
    assert "wrap" in verdict["sets"][2]["reason"]


def test_too_many_copies_of_a_tile_is_an_inventory_problem(client: httpx.Client) -> None:
    verdict = client.post("/api/v1/table/check", json={"table": "r7 k7 b7", "racks": {"Ann": "r7 r7"}}).json()
    assert verdict["valid"] is False
    assert any("3 x r7" in problem for problem in verdict["inventory_problems"])


def test_the_xp_edition_allows_a_third_copy(client: httpx.Client) -> None:
    verdict = client.post(
        "/api/v1/table/check", json={"table": "r7 k7 b7", "racks": {"Ann": "r7 r7"}, "edition": "xp"}
    ).json()
    assert verdict["valid"] is True


def test_the_hint_plays_the_most_tiles_and_shows_the_new_table(client: httpx.Client) -> None:
    response = client.post(
        "/api/v1/hint", json={"table": "r5 r6 r7 | k9 b9 o9", "rack": "r8 J o9 k1", "opened": True}
    )
    assert response.status_code == 200
    hint = response.json()
    assert hint["draw"] is False
    assert hint["tiles_played"] == 2
    assert sorted(hint["play"]) == ["J", "r8"]
    assert ["r5", "r6", "r7", "r8"] in hint["table"] or ["r5", "r6", "r7", "r8", "J"] in hint["table"]
    assert hint["explanation"]


def test_without_an_opening_the_hint_says_draw_and_why(client: httpx.Client) -> None:
    hint = client.post("/api/v1/hint", json={"table": "r5 r6 r7", "rack": "r8 k2"}).json()
    assert hint["draw"] is True
    assert hint["reason"]


def test_a_legal_turn(client: httpx.Client) -> None:
    verdict = client.post(
        "/api/v1/turns/judge", json={"before": "r5 r6 r7", "after": "r5 r6 r7 r8", "opened": True}
    ).json()
    assert verdict["status"] == "legal"
    assert verdict["played"] == ["r8"]


def test_an_illegal_turn_gets_the_reason_and_the_penalty(client: httpx.Client) -> None:
    verdict = client.post(
        "/api/v1/turns/judge",
        json={"before": "r5 r6 r7", "after": "r5 r6 | r7 r8 r9", "opened": True, "seconds": 30},
    ).json()
    assert verdict["status"] == "illegal"
    assert verdict["violations"][0]["code"] == "invalid_set"
    assert "only 2 tiles" in verdict["violations"][0]["message"]
    assert verdict["consequence"]["draw"] == 3  # the Pressman preset's failed-manipulation draw
    assert verdict["consequence"]["restore_table"] is True


def test_a_violation_that_hangs_on_an_unsure_tile_is_uncertain_not_illegal(client: httpx.Client) -> None:
    turn = {"before": "r5 r6 r7", "after": "r5 r6 r7 | k9 b9 b9", "opened": True}
    assert client.post("/api/v1/turns/judge", json=turn).json()["status"] == "illegal"
    unsure = {**turn, "uncertain": [{"side": "after", "set": 1, "index": 2}]}
    verdict = client.post("/api/v1/turns/judge", json=unsure).json()
    assert verdict["status"] == "uncertain"
    assert verdict["violations"][0]["depends_on"][0]["seen"] == "b9"
    assert "o9" in verdict["violations"][0]["depends_on"][0]["alternatives"]


def test_unsure_tiles_in_both_pictures(client: httpx.Client) -> None:
    turn = {
        "before": "r5 r6 r7",
        "after": "r5 r6 r7 | k9 b9 b9",
        "opened": True,
        "uncertain": [{"side": "after", "set": 1, "index": 2}, {"side": "before", "set": 0, "index": 0}],
    }
    response = client.post("/api/v1/turns/judge", json=turn)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "uncertain"


def test_an_unsure_tile_where_there_is_none_is_refused(client: httpx.Client) -> None:
    response = client.post(
        "/api/v1/turns/judge",
        json={
            "before": "",
            "after": "r5 r6 r7",
            "opened": True,
            "uncertain": [{"side": "after", "set": 3, "index": 0}],
        },
    )
    assert response.status_code == 400
    assert "no tile there" in response.json()["detail"]


def test_a_turn_over_the_time_limit_follows_the_preset(client: httpx.Client) -> None:
    verdict = client.post(
        "/api/v1/turns/judge",
        json={
            "before": "r5 r6 r7",
            "after": "r5 r6 r7 r8",
            "opened": True,
            "seconds": 75,
            "rules": {"preset": "goliath_modern"},
        },
    ).json()
    assert verdict["status"] == "illegal"
    assert [v["message"] for v in verdict["violations"]] == [
        "the turn took 75 s; Goliath / rummikub.com (modern official) allows 60 s"
    ]


def test_a_game_is_scored_by_the_preset(client: httpx.Client) -> None:
    racks = {"Ann": "", "Bob": "r4 b8", "Cy": "r1 J"}
    default = client.post("/api/v1/score", json={"racks": racks, "winner": "Ann"}).json()
    assert default["scores"] == {"Ann": 43, "Bob": -12, "Cy": -31}
    tournament = client.post(
        "/api/v1/score",
        json={"racks": racks, "winner": "Ann", "rules": {"preset": "pl_wikipedia_tournament"}},
    ).json()
    assert tournament["scores"]["Cy"] == -51  # the joker costs 50 under this preset
    overridden = client.post(
        "/api/v1/score", json={"racks": racks, "winner": "Ann", "rules": {"overrides": {"joker_penalty": 25}}}
    ).json()
    assert overridden["scores"]["Cy"] == -26


def test_the_winner_must_have_an_empty_rack(client: httpx.Client) -> None:
    response = client.post("/api/v1/score", json={"racks": {"Ann": "r5", "Bob": "r4"}, "winner": "Ann"})
    assert response.status_code == 400
    assert "Ann went out but still holds r5" in response.json()["detail"]


def test_presets_and_editions_are_listed_for_the_page(client: httpx.Client) -> None:
    presets = client.get("/api/v1/presets").json()
    assert "pressman_us_2009" in [p["name"] for p in presets]
    assert all("joker_penalty" in p["rules"] for p in presets)
    editions = {e["name"]: e for e in client.get("/api/v1/editions").json()}
    assert editions["standard"]["tile_count"] == 106
    assert editions["xp"]["tile_count"] == 160
