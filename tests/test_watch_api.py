"""The watch service on a real `rummi serve`: frames posted as JPEG, turns and verdicts back.

Frames are drawn from real tile photos (datasets/videos.TableView, 640x360) and posted with
their times, as the page on a phone does; the server runs the same tracker as `rummi watch`.
"""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest
from rummi.datasets.videos import TableView, draw_hand, sample_tile_bank

SIZE = (640, 360)
START = {0: ("k3", "k4", "k5"), 4: ("b8", "k8", "o8", "r8")}
PLAYED = {0: ("k3", "k4", "k5"), 4: ("b8", "k8", "o8", "r8"), 2: ("r11", "r12", "r13")}
HALFWAY = {**START, 2: ("r11", "r12")}  # a player who stops for a moment, then adds r13


@pytest.fixture(scope="module")
def frames() -> dict[str, list[bytes]]:
    """JPEG frames: the table still, a hand over it changing it, the new table still."""
    view = TableView(np.random.default_rng(5), SIZE, sample_tile_bank(), "wood")

    def jpeg(image: np.ndarray) -> bytes:
        return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()

    entry = np.array([SIZE[0] * 0.5, SIZE[1] + 20.0])

    def hand(before, after) -> list[bytes]:
        out = []
        for k in range(8):
            tip = entry + (np.array([150.0 + 12 * np.sin(k * 2.1), 60.0]) - entry) * np.sin(np.pi * (k + 0.5) / 8)
            image = view.draw(before if k < 4 else after).copy()
            draw_hand(image, entry, tip, SIZE[0] / 1280)
            out.append(jpeg(image))
        return out

    return {"start": [jpeg(view.draw(START))], "hand": hand(START, PLAYED), "played": [jpeg(view.draw(PLAYED))],
            "hand_halfway": hand(START, HALFWAY), "halfway": [jpeg(view.draw(HALFWAY))],
            "hand_rest": hand(HALFWAY, PLAYED)}


def _post(client, session: str, frame: bytes, at: float):
    return client.post("/api/v1/watch/frame", params={"session": session, "time": at},
                       files={"frame": ("frame.jpg", frame, "image/jpeg")})


def _play(client, session: str, frames, *, start: float = 0.0, pause: bool = False) -> tuple[list[dict], float]:
    """Two seconds of still table, a hand that plays a set, two and a half seconds still (with
    ``pause``, the hand lays two tiles, leaves for two seconds, and comes back to add the third)."""
    events, at = [], start
    hand = frames["hand_halfway"] + [frames["halfway"][0]] * 10 + frames["hand_rest"] if pause else frames["hand"]
    script = [frames["start"][0]] * 10 + hand + [frames["played"][0]] * 13
    for frame in script:
        answer = _post(client, session, frame, round(at, 2))
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["processed"]
        events += body["events"]
        at += 0.2
    return events, at


@pytest.mark.slow
def test_a_turn_is_found_and_judged_from_posted_frames(api_server, frames):
    with api_server.client() as client:
        created = client.post("/api/v1/watch", json={"players": ["Ann", "Bob"], "opened": ["Ann", "Bob"],
                                                     "rules": {"preset": "goliath_modern"}})
        assert created.status_code == 201, created.text
        session = created.json()["session"]
        assert created.json()["state"] == "starting" and created.json()["next_player"] == "Ann"
        assert created.json()["turn_started"] is None  # nothing read yet: no clock runs
        events, at = _play(client, session, frames)
        kinds = [e["event"] for e in events]
        assert kinds[0] == "settled" and "disturbed" in kinds
        turns = [e for e in events if e["event"] == "turn"]
        assert len(turns) == 1
        assert turns[0]["player"] == "Ann" and sorted(turns[0]["played"]) == ["r11", "r12", "r13"]
        assert turns[0]["verdict"]["status"] == "legal" and turns[0]["verdict"]["rules"] == "goliath_modern"
        drew = client.post(f"/api/v1/watch/{session}/draw", params={"time": at})
        assert drew.status_code == 200
        assert drew.json()["events"][0]["player"] == "Bob" and drew.json()["events"][0]["drew"]
        # Ann's clock runs from the draw: the page's timer counts from the tracker's own start
        assert drew.json()["turn_started"] == round(at, 3)
        state = client.get(f"/api/v1/watch/{session}").json()
        assert state["turns"] == 2 and state["next_player"] == "Ann"
        assert [e["event"] for e in state["events"]] == kinds + ["turn"]
        assert sorted(sorted(s) for s in state["table"]) == sorted(sorted(s) for s in PLAYED.values())
        assert client.delete(f"/api/v1/watch/{session}").status_code == 204
        assert client.get(f"/api/v1/watch/{session}").status_code == 404


@pytest.mark.slow
def test_each_turn_is_recorded_in_the_stored_game(api_server, frames):
    with api_server.client() as client:
        game = client.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
        created = client.post("/api/v1/watch", json={"game": game["id"]})
        assert created.status_code == 201, created.text
        assert created.json()["players"] == ["Ann", "Bob"] and created.json()["game"] == game["id"]
        events, _ = _play(client, created.json()["session"], frames)
        turn = next(e for e in events if e["event"] == "turn")
        assert turn["recorded"] is True
        stored = client.get(f"/api/v1/games/{game['id']}").json()
        assert len(stored["turns"]) == 1
        # nobody had opened: r11 r12 r13 is worth 36, an opening under the default preset
        assert stored["turns"][0]["verdict"] == turn["verdict"] and turn["verdict"]["opens"]


@pytest.mark.slow
def test_a_turn_amended_after_a_pause_is_one_turn_in_the_stored_game(api_server, frames):
    with api_server.client() as client:
        game = client.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
        created = client.post("/api/v1/watch", json={"game": game["id"]})
        events, _ = _play(client, created.json()["session"], frames, pause=True)
        turns = [e for e in events if e["event"] in ("turn", "uncertain") and "number" in e]
        assert [(t["number"], t.get("amends"), t["recorded"]) for t in turns] == [(1, None, True), (1, 1, True)], turns
        stored = client.get(f"/api/v1/games/{game['id']}").json()
        assert len(stored["turns"]) == 1 and stored["next_player"] == "Bob"
        assert sorted(stored["turns"][0]["verdict"]["played"]) == ["r11", "r12", "r13"]
        assert stored["turns"][0]["verdict"] == turns[1]["verdict"] and turns[1]["verdict"]["opens"]


@pytest.mark.slow
def test_a_session_can_turn_amending_off(api_server, frames):
    """Where two players in a row sit at one side of the table, every settled change is a turn."""
    with api_server.client() as client:
        created = client.post("/api/v1/watch", json={"players": ["Ann", "Bob"], "opened": ["Ann", "Bob"],
                                                     "amend_pauses": False})
        assert created.status_code == 201 and created.json()["amend_pauses"] is False
        events, _ = _play(client, created.json()["session"], frames, pause=True)
        turns = [e for e in events if e["event"] in ("turn", "uncertain") and "number" in e]
        assert [(t["number"], t["player"], t.get("amends")) for t in turns] == [(1, "Ann", None), (2, "Bob", None)]


@pytest.mark.slow
def test_a_turn_amended_in_a_game_that_already_has_turns_replaces_the_right_one(api_server, frames):
    """The session numbers its turns from 1, the game had one already: the amend replaces the
    game's turn 2 (the one this session recorded), and the first part is not left behind."""
    with api_server.client() as client:
        game = client.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
        drew = client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "", "drew": 1})
        assert drew.status_code == 200, drew.text
        created = client.post("/api/v1/watch", json={"game": game["id"]})
        assert created.json()["next_player"] == "Bob"
        events, _ = _play(client, created.json()["session"], frames, pause=True)
        turns = [e for e in events if e["event"] in ("turn", "uncertain") and "number" in e]
        assert [(t["number"], t.get("amends"), t["recorded"], t.get("game_turn")) for t in turns] == [
            (1, None, True, 2), (1, 1, True, 2)], turns
        stored = client.get(f"/api/v1/games/{game['id']}").json()
        assert [(t["number"], t["player"]) for t in stored["turns"]] == [(1, "Ann"), (2, "Bob")]
        assert sorted(stored["turns"][1]["verdict"]["played"]) == ["r11", "r12", "r13"]
        assert stored["turns"][1]["verdict"] == turns[1]["verdict"] and stored["next_player"] == "Ann"


@pytest.mark.slow
def test_the_tracker_keeps_recording_when_the_games_order_has_moved_on(api_server, frames):
    """A game enforces its order by default; the tracker owns the order of what it watches (it saw
    every change, also one it could not judge and so did not record), so its turn is recorded
    even when the game's next player differs; a session cannot start with someone else first."""
    with api_server.client() as client:
        game = client.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
        assert game["enforce_order"] is True
        other_first = client.post("/api/v1/watch", json={"game": game["id"], "first": "Bob"})
        assert other_first.status_code == 422 and "Ann's, not Bob's" in other_first.text
        created = client.post("/api/v1/watch", json={"game": game["id"]})
        assert created.status_code == 201 and created.json()["next_player"] == "Ann"
        # A turn the tracker did not record: the game's next player is now Bob, the tracker's Ann.
        drew = client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "", "drew": 1})
        assert drew.status_code == 200, drew.text
        events, _ = _play(client, created.json()["session"], frames)
        turn = next(e for e in events if e["event"] == "turn")
        assert turn["player"] == "Ann" and turn["recorded"] is True, turn
        stored = client.get(f"/api/v1/games/{game['id']}").json()
        assert [t["player"] for t in stored["turns"]] == ["Ann", "Ann"]


@pytest.mark.slow
def test_a_game_deleted_while_watched_ends_the_session_clearly(api_server, frames):
    from rummi.api.storage import GameStore

    with api_server.client() as client:
        game = client.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
        session = client.post("/api/v1/watch", json={"game": game["id"]}).json()["session"]
        with GameStore.open(f"sqlite:///{api_server.workdir / 'games.db'}") as store:
            store.delete(game["id"])  # by the organiser, from another process
        answers, at = [], 0.0
        for frame in [frames["start"][0]] * 10 + frames["hand"] + [frames["played"][0]] * 13:
            answers.append(_post(client, session, frame, round(at, 2)))
            at += 0.2
            if answers[-1].status_code != 200:
                break
        gone = answers[-1]
        assert gone.status_code == 404, gone.text
        assert f"game {game['id']} no longer exists" in gone.json()["detail"] and "stopped" in gone.json()["detail"]
        assert client.get(f"/api/v1/watch/{session}").status_code == 404  # the session has ended


def test_a_frame_that_comes_while_one_is_read_is_skipped(api_server, frames):
    with api_server.client() as client:
        session = client.post("/api/v1/watch", json={"players": ["Ann", "Bob"]}).json()["session"]
        answers: list[dict] = []
        together = threading.Barrier(4)

        def post() -> None:
            with api_server.client() as other:
                together.wait()  # four frames at once, the session's first: one reads the table
                answers.append(_post(other, session, frames["start"][0], 0.2).json())

        threads = [threading.Thread(target=post) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # the first to arrive is read (the whole table: a scan); the others find it busy and are
        # answered at once, skipped rather than queued
        processed = [a["processed"] for a in answers]
        assert processed.count(True) >= 1 and processed.count(False) >= 1, processed


@pytest.mark.parametrize(
    ("body", "status", "text"),
    [
        ({"players": ["Ann"]}, 422, "players"),
        ({}, 422, "give the players"),
        ({"game": 999999}, 404, "no game"),
        ({"game": 1, "players": ["Ann", "Bob"]}, 422, "come from its record"),
        ({"players": ["Ann", "Bob"], "opened": ["Dan"]}, 422, "Dan: not among the players"),
    ],
)
def test_bad_sessions_are_refused_clearly(api_server, body, status, text):
    with api_server.client() as client:
        answer = client.post("/api/v1/watch", json=body)
    assert answer.status_code == status and text in answer.json()["detail"]


def test_bad_frames_are_refused_clearly(api_server, frames):
    with api_server.client() as client:
        assert _post(client, "0123abcd", frames["start"][0], 0.0).status_code == 404
        session = client.post("/api/v1/watch", json={"players": ["Ann", "Bob"]}).json()["session"]
        text = client.post("/api/v1/watch/frame", params={"session": session},
                           files={"frame": ("notes.txt", b"hello", "text/plain")})
        assert text.status_code == 415
        broken = client.post("/api/v1/watch/frame", params={"session": session},
                             files={"frame": ("frame.jpg", b"\xff\xd8 not really", "image/jpeg")})
        assert broken.status_code in (400, 415) and "detail" in broken.json()
        assert _post(client, session, frames["start"][0], 5.0).status_code == 200
        back = _post(client, session, frames["start"][0], 1.0)
        assert back.status_code == 400 and "must not go back" in back.json()["detail"]
        assert client.post(f"/api/v1/watch/{session}/draw").status_code == 400  # nothing read yet
