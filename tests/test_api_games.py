"""Games on record through the service: turns judged and stored, the end scored, a running
score sheet, and a record that stays whole when many requests arrive at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.api_server import Server


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest) -> Server:
    """Every test here runs against the service on SQLite and again on PostgreSQL."""
    return request.getfixturevalue("api_server" if request.param == "sqlite" else "api_server_postgres")


@pytest.fixture(scope="module")
def client(server: Server) -> httpx.Client:
    with server.client() as client:
        yield client


def new_game(client: httpx.Client, *players: str, **rules: object) -> dict:
    response = client.post("/api/v1/games", json={"players": list(players), "rules": rules})
    assert response.status_code == 201, response.text
    return response.json()


def test_a_game_from_first_turn_to_score(client: httpx.Client) -> None:
    game = new_game(client, "Ann", "Bob")
    assert game["next_player"] == "Ann" and game["table"] == [] and not game["finished"]

    opening = client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12"}).json()
    assert opening["turn"]["verdict"]["status"] == "legal"
    assert opening["turn"]["verdict"]["opens"] is True
    assert opening["game"]["next_player"] == "Bob"

    # Bob draws: the table stays as Ann left it ("before" defaults to it).
    drew = client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12", "drew": 1}).json()
    assert drew["turn"]["verdict"]["status"] == "legal"

    # Ann breaks a set: illegal, and the verdict is on record.
    broken = client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 | r12"}).json()
    assert broken["turn"]["verdict"]["status"] == "illegal"

    ended = client.post(
        f"/api/v1/games/{game['id']}/end", json={"racks": {"Ann": "", "Bob": "k5 J"}, "winner": "Ann"}
    )
    assert ended.status_code == 200, ended.text
    assert ended.json()["ending"]["scores"] == {"Ann": 35, "Bob": -35}

    record = client.get(f"/api/v1/games/{game['id']}").json()
    assert [t["number"] for t in record["turns"]] == [1, 2, 3]
    assert [t["verdict"]["status"] for t in record["turns"]] == ["legal", "legal", "illegal"]
    assert record["finished"] is True

    listed = {g["id"]: g for g in client.get("/api/v1/games").json()}
    assert listed[game["id"]]["turns"] == 3 and listed[game["id"]]["finished"] is True


def test_a_finished_game_takes_no_more_turns(client: httpx.Client) -> None:
    game = new_game(client, "Ann", "Bob")
    client.post(f"/api/v1/games/{game['id']}/end", json={"racks": {"Ann": "", "Bob": "r3"}, "winner": "Ann"})
    response = client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12"})
    assert response.status_code == 400
    assert "over" in response.json()["detail"]


def test_the_score_sheet_adds_up_several_games(client: httpx.Client) -> None:
    ids = []
    for winner, loser_rack in (("Ann", "r4 b8"), ("Bob", "J"), ("Ann", "k13")):
        game = new_game(client, "Ann", "Bob", preset="pl_wikipedia_tournament")
        racks = {"Ann": "", "Bob": ""} | {("Bob" if winner == "Ann" else "Ann"): loser_rack}
        client.post(f"/api/v1/games/{game['id']}/end", json={"racks": racks, "winner": winner})
        ids.append(game["id"])
    sheet = client.get("/api/v1/games/sheet", params={"games": ids}).json()
    assert [g["winner"] for g in sheet["games"]] == ["Ann", "Bob", "Ann"]
    # Nobody opened in these games and no loser's rack could have: the tournament's 100-point
    # never-opened penalty replaces each loser's rack count (the engine's rule, applied by /end).
    assert sheet["totals"] == {"Ann": 100 - 100 + 100, "Bob": -100 + 100 - 100}
    assert sheet["match_winner"] == "Ann"


def test_the_end_applies_the_never_opened_penalty_as_the_engine_does(client: httpx.Client) -> None:
    """Bob never opened though his rack could (k10 k11 k12 is 33 points): the tournament
    preset's 200-point penalty, decided by the referee when the request does not say."""
    game = new_game(client, "Ann", "Bob", preset="pl_wikipedia_tournament")
    opening = client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12"})
    assert opening.status_code == 200, opening.text
    ended = client.post(
        f"/api/v1/games/{game['id']}/end", json={"racks": {"Ann": "", "Bob": "k10 k11 k12 o3"}, "winner": "Ann"}
    )
    assert ended.status_code == 200, ended.text
    assert ended.json()["ending"]["scores"]["Bob"] == -200


def test_the_score_sheet_refuses_a_game_twice(client: httpx.Client) -> None:
    game = new_game(client, "Ann", "Bob")
    client.post(f"/api/v1/games/{game['id']}/end", json={"racks": {"Ann": "", "Bob": "r3"}, "winner": "Ann"})
    response = client.get("/api/v1/games/sheet", params={"games": [game["id"], game["id"]]})
    assert response.status_code == 400


def test_turns_sent_at_once_keep_the_record_whole(server: Server) -> None:
    """Twelve clients post a turn to the same game at the same moment. Each turn is judged
    against the table the previous one left and stored under the next number: no gaps, no
    duplicates, no turn judged against a stale table."""
    with server.client() as client:
        game = new_game(client, "Ann", "Bob", "Cy")
        client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12"})

    def draw_a_tile(_: int) -> int:
        with server.client() as client:
            response = client.post(
                f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12", "drew": 1}
            )
            return response.status_code

    with ThreadPoolExecutor(max_workers=12) as pool:
        statuses = list(pool.map(draw_a_tile, range(12)))
    assert statuses == [200] * 12

    with server.client() as client:
        record = client.get(f"/api/v1/games/{game['id']}").json()
    assert [t["number"] for t in record["turns"]] == list(range(1, 14))
    players = [t["player"] for t in record["turns"]]
    assert players == (["Ann", "Bob", "Cy"] * 5)[:13]
    assert all(t["verdict"]["status"] == "legal" for t in record["turns"])
    assert all(t["before"] == [["r10", "r11", "r12"]] for t in record["turns"][1:])


def test_a_failing_database_is_503_not_a_conflict(tmp_path) -> None:
    """A broken database is the service's trouble (503, try later), not a race the client lost."""
    import sqlite3

    from tests.api_server import serving

    database = tmp_path / "games.db"
    with serving(tmp_path, f"sqlite:///{database}") as server, server.client() as client:
        game = new_game(client, "Ann", "Bob")
        with sqlite3.connect(database) as connection:
            connection.execute("DROP TABLE turns")
        response = client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12"})
    assert response.status_code == 503, response.text
    # The driver's own words (table names, SQL) stay in the log, never in the answer.
    assert response.json()["detail"] == "the database is unavailable; try again later"
    assert "turns" not in response.text and response.headers["retry-after"] == "5"


def test_a_retried_turn_is_recorded_once(client: httpx.Client) -> None:
    """A phone that lost the answer posts the same turn again with the same Idempotency-Key: it
    gets the first answer back; no second, 'illegal' turn; the order of play does not shift."""
    game = new_game(client, "Ann", "Bob")
    path = f"/api/v1/games/{game['id']}/turns"
    key = {"Idempotency-Key": "turn-7f3a-0001"}
    first = client.post(path, json={"after": "r10 r11 r12"}, headers=key)
    retry = client.post(path, json={"after": "r10 r11 r12"}, headers=key)
    assert first.status_code == retry.status_code == 200, retry.text
    assert retry.headers.get("idempotent-replayed") == "true" and "idempotent-replayed" not in first.headers
    assert retry.json() == first.json()
    with ThreadPoolExecutor(6) as pool:  # and the same retry six times at once
        again = list(pool.map(lambda _: client.post(path, json={"after": "r10 r11 r12"}, headers=key), range(6)))
    assert {r.json()["turn"]["number"] for r in again} == {1}
    stored = client.get(f"/api/v1/games/{game['id']}").json()
    assert len(stored["turns"]) == 1 and stored["next_player"] == "Bob"
    second = client.post(path, json={"after": "r10 r11 r12 | k1 k2 k3"}, headers={"Idempotency-Key": "turn-2"})
    assert second.json()["turn"]["number"] == 2 and second.json()["turn"]["player"] == "Bob"


def test_an_idempotency_key_that_is_not_text_is_422(client: httpx.Client) -> None:
    game = new_game(client, "Ann", "Bob")
    response = client.post(
        f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12"}, headers={"Idempotency-Key": "a b"}
    )
    assert response.status_code == 422


def test_a_turn_by_the_wrong_player_is_refused_when_the_game_enforces_the_order(client: httpx.Client) -> None:
    """By default a game enforces its seating order, as a tournament table plays: Bob posting
    when it is Ann's turn is a 422 naming Ann, and nothing is recorded."""
    game = new_game(client, "Ann", "Bob", "Cy")
    assert game["enforce_order"] is True
    path = f"/api/v1/games/{game['id']}/turns"
    early = client.post(path, json={"after": "r10 r11 r12", "player": "Bob"})
    assert early.status_code == 422, early.text
    assert early.json()["error"] == "OutOfTurnError" and early.json()["next_player"] == "Ann"
    assert "turn 1 is Ann's, not Bob's" in early.json()["detail"]
    assert client.get(f"/api/v1/games/{game['id']}").json()["turns"] == []
    assert client.post(path, json={"after": "r10 r11 r12", "player": "Ann"}).status_code == 200
    # A retry without an Idempotency-Key of Ann's recorded turn is now out of turn too: no double.
    again = client.post(path, json={"after": "r10 r11 r12", "player": "Ann"})
    assert again.status_code == 422 and again.json()["next_player"] == "Bob"
    stored = client.get(f"/api/v1/games/{game['id']}").json()
    assert [t["player"] for t in stored["turns"]] == ["Ann"] and stored["next_player"] == "Bob"


def test_a_game_may_leave_the_order_free(client: httpx.Client) -> None:
    """``enforce_order: false`` (a family game where someone's turn was skipped) records any
    player's turn when it is posted, as before."""
    response = client.post("/api/v1/games", json={"players": ["Ann", "Bob", "Cy"], "enforce_order": False})
    assert response.status_code == 201 and response.json()["enforce_order"] is False
    path = f"/api/v1/games/{response.json()['id']}/turns"
    turn = client.post(path, json={"after": "r10 r11 r12", "player": "Cy"})
    assert turn.status_code == 200, turn.text
    assert turn.json()["turn"]["player"] == "Cy" and turn.json()["game"]["enforce_order"] is False
