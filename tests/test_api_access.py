"""Who may call the service: open on loopback, a token on any other address (join codes for a
game's phones), `--lan` with https and a QR code, Host/Origin checks and security headers."""

from __future__ import annotations

import re
import ssl
from pathlib import Path

import httpx
import pytest

from rummi import __version__
from tests.api_server import Server, serving, serving_with_token

TOKEN = "organiser-secret-1234"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Server:
    """Listening on every address (we still only talk to 127.0.0.1), with a token."""
    workdir = tmp_path_factory.mktemp("rummi-guarded")
    with serving_with_token(workdir, TOKEN) as server:
        yield server


def test_loopback_needs_no_token_and_health_says_so(api_server: Server) -> None:
    with api_server.client() as client:
        assert client.get("/api/v1/games").status_code == 200
        health = client.get("/api/v1/health").json()
    assert health["access"] == "open" and health["database"] == "ok"
    assert health["version"] == __version__ == "0.2.0" and health["api_version"] == "1.0.0"


def test_off_loopback_every_game_call_needs_the_token(guarded: Server) -> None:
    with httpx.Client(base_url=guarded.url, timeout=30) as anonymous:
        assert anonymous.get("/api/v1/health").status_code == 200  # the supervisor's check stays open
        for method, path in (("GET", "/api/v1/games"), ("POST", "/api/v1/games"), ("GET", "/api/v1/games/1"),
                             ("POST", "/api/v1/scan"), ("POST", "/api/v1/corrections"), ("GET", "/api/v1/join")):
            response = anonymous.request(method, path)
            assert response.status_code == 401, (method, path, response.text)
            assert response.headers["www-authenticate"].startswith("Bearer")
        wrong = anonymous.get("/api/v1/games", headers={"Authorization": "Bearer guessed-token"})
        assert wrong.status_code == 401
    with guarded.client() as client:
        assert client.get("/api/v1/games").status_code == 200
        assert client.get("/api/v1/health").json()["access"] == "token"


def test_a_join_code_posts_turns_to_its_own_game_only(guarded: Server) -> None:
    with guarded.client() as organiser:
        mine = organiser.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
        other = organiser.post("/api/v1/games", json={"players": ["Cy", "Di"]}).json()
    code = mine["join_code"]
    assert code and code != other["join_code"]
    with guarded.client(token=code) as phone:
        turn = phone.post(f"/api/v1/games/{mine['id']}/turns", json={"after": "r10 r11 r12"})
        assert turn.status_code == 200, turn.text
        assert phone.get(f"/api/v1/games/{mine['id']}").status_code == 200
        assert phone.post("/api/v1/hint", json={"rack": "r1 r2 r3", "opened": True}).status_code == 200
        wrong_game = phone.post(f"/api/v1/games/{other['id']}/turns", json={"after": "r10 r11 r12"})
        assert wrong_game.status_code == 403 and f"game {mine['id']}" in wrong_game.json()["detail"]
        assert phone.get("/api/v1/games").status_code == 403
        assert phone.post(f"/api/v1/games/{mine['id']}/end", json={"racks": {"Ann": "", "Bob": "r1"}}).status_code == 403


def test_a_token_is_made_up_and_printed_when_none_is_given(tmp_path: Path) -> None:
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", "--host", "0.0.0.0") as server:
        token = re.search(r"Authorization: Bearer (\S+)\)", server.log).group(1)
        assert len(token) >= 16
        assert httpx.get(f"{server.url}/api/v1/games").status_code == 401
        with server.client(token=token) as client:
            assert client.get("/api/v1/games").status_code == 200


def test_lan_serves_https_with_its_own_certificate_and_a_qr_code(tmp_path: Path) -> None:
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", "--lan", scheme="https", verify=False) as server:
        log = server.log
        url = re.search(r"the page is at (https://\S+)", log).group(1)
        token = url.partition("#token=")[2]
        assert re.fullmatch(rf"https://[0-9.]+:{server.port}/#token=\S+", url) and token
        assert "█" in log or "▀" in log  # the QR code, drawn in the terminal
        cert = tmp_path / "data" / "tls" / "cert.pem"
        assert cert.is_file() and (tmp_path / "data" / "tls" / "key.pem").stat().st_mode & 0o077 == 0
        trusted = ssl.create_default_context(cafile=str(cert))  # the certificate names 127.0.0.1 too
        with httpx.Client(base_url=server.url, verify=trusted, headers={"Authorization": f"Bearer {token}"}) as c:
            join = c.get("/api/v1/join")
            assert join.status_code == 200, join.text
            assert join.json()["url"] == url
            assert join.json()["qr_svg"].lstrip().startswith("<svg")
            assert c.get("/api/v1/games").status_code == 200


def test_a_foreign_host_name_is_refused(api_server: Server) -> None:
    """DNS rebinding: a page on evil.example whose name now points at this machine."""
    with api_server.client() as client:
        rebound = client.get("/api/v1/games", headers={"Host": "evil.example"})
        assert rebound.status_code == 400 and "Host" in rebound.json()["detail"]
        assert client.get("/api/v1/games", headers={"Host": f"localhost:{api_server.port}"}).status_code == 200


def test_a_write_from_another_origin_is_refused(api_server: Server) -> None:
    with api_server.client() as client:
        cross = client.post("/api/v1/games", json={"players": ["A", "B"]}, headers={"Origin": "http://evil.example"})
        assert cross.status_code == 403
        same = client.post("/api/v1/games", json={"players": ["A", "B"]}, headers={"Origin": api_server.url})
        assert same.status_code == 201


def test_every_answer_has_the_security_headers(api_server: Server) -> None:
    with api_server.client() as client:
        for path in ("/", "/api/v1/health", "/static/app.js", "/api/v1/games/99999999"):
            headers = client.get(path).headers
            assert headers["x-content-type-options"] == "nosniff", path
            assert "frame-ancestors 'none'" in headers["content-security-policy"], path
            assert headers["x-frame-options"] == "DENY"
        assert "script-src 'self'" in client.get("/").headers["content-security-policy"]


@pytest.mark.parametrize("store", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
@pytest.mark.parametrize("override", [{"joker_penalty": 10**30}, {"joker_penalty": -1},
                                      {"opening_threshold": 2**31}, {"never_opened_penalty": "100,99999999"}])
def test_a_rule_override_outside_its_range_is_422(request: pytest.FixtureRequest, store: str, override: dict) -> None:
    """10**30 as a joker penalty was a 500 at /end on SQLite and a lasting 503 on PostgreSQL
    (integer out of range): now every rule has its range, and the game is never created."""
    server = request.getfixturevalue("api_server" if store == "sqlite" else "api_server_postgres")
    with server.client() as client:
        created = client.post("/api/v1/games", json={"players": ["A", "B"], "rules": {"overrides": override}})
        assert created.status_code == 422, created.text
        assert created.json()["field"] == "rules" and str(10**30) not in created.json().get("error", "")
        scored = client.post("/api/v1/score", json={"racks": {"A": "", "B": "r1"}, "winner": "A",
                                                    "rules": {"overrides": override}})
        assert scored.status_code == 422


def test_writes_and_scans_are_rate_limited_per_client(tmp_path: Path) -> None:
    from tests.api_server import DATA

    photo = (DATA / "photos" / "two-runs.jpg").read_bytes()
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", RUMMI_WRITES_PER_MINUTE="3",
                 RUMMI_SCANS_PER_MINUTE="1") as server, server.client() as client:
        statuses = [client.post("/api/v1/games", json={"players": ["A", "B"]}).status_code for _ in range(4)]
        assert statuses == [201, 201, 201, 429]
        limited = client.post("/api/v1/games", json={"players": ["A", "B"]})
        assert limited.status_code == 429 and 1 <= int(limited.headers["retry-after"]) <= 20
        assert client.get("/api/v1/games").status_code == 200  # reads are not limited
        assert client.post("/api/v1/table/check", json={"table": "r1 r2 r3"}).status_code == 200
        scans = [client.post("/api/v1/scan", files={"photo": ("p.jpg", photo, "image/jpeg")}).status_code
                 for _ in range(2)]
        assert scans == [200, 429]


@pytest.mark.parametrize("trusted", [None, "10.9.9.9"])
def test_behind_a_proxy_each_client_has_its_own_allowance_and_nobody_else_can_claim_one(
    tmp_path: Path, trusted: str | None
) -> None:
    """A reverse proxy on this machine (uvicorn trusts 127.0.0.1 by default) names each client
    in X-Forwarded-For, so the rate limit counts each one; with the proxy elsewhere
    (``--forwarded-allow-ips``), a client that writes X-Forwarded-For itself gains nothing."""
    args = ("--token", TOKEN) + (() if trusted is None else ("--forwarded-allow-ips", trusted))
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", *args, token=TOKEN, RUMMI_WRITES_PER_MINUTE="2") \
            as server, server.client() as client:
        def create(client_ip: str) -> int:
            headers = {"X-Forwarded-For": client_ip}
            return client.post("/api/v1/games", json={"players": ["A", "B"]}, headers=headers).status_code

        first = [create("192.168.1.20") for _ in range(3)]
        second = create("192.168.1.21")
    assert first == [201, 201, 429]
    assert second == (201 if trusted is None else 429)


def test_an_open_service_behind_a_proxy_refuses_instead_of_letting_everyone_in(api_server: Server) -> None:
    """Without a token the service trusts that only this machine can connect; a request that
    came through a proxy says otherwise, so it is refused with what to do (the health check,
    which a proxy asks, still answers)."""
    with api_server.client() as client:
        proxied = client.get("/api/v1/games", headers={"X-Forwarded-For": "203.0.113.7"})
        assert proxied.status_code == 403 and "--token" in proxied.json()["detail"]
        assert client.get("/api/v1/games", headers={"Forwarded": "for=203.0.113.7"}).status_code == 403
        assert client.get("/api/v1/health", headers={"X-Forwarded-For": "203.0.113.7"}).status_code == 200
        assert client.get("/api/v1/games").status_code == 200


def test_a_players_join_code_posts_that_players_turns_only(guarded: Server) -> None:
    """Each player's own code: it posts its holder's turn (``player`` defaults to them), is 403
    for another player's, and in a game that enforces the order is 422 before its turn."""
    with guarded.client() as organiser:
        game = organiser.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
    codes = game["player_codes"]
    assert set(codes) == {"Ann", "Bob"} and len({*codes.values(), game["join_code"]}) == 3
    path = f"/api/v1/games/{game['id']}/turns"
    with guarded.client(token=codes["Bob"]) as bob:
        early = bob.post(path, json={"after": "r10 r11 r12"})
        assert early.status_code == 422 and early.json()["next_player"] == "Ann", early.text
        posing = bob.post(path, json={"after": "r10 r11 r12", "player": "Ann"})
        assert posing.status_code == 403 and "Bob's" in posing.json()["detail"]
    with guarded.client(token=codes["Ann"]) as ann:
        played = ann.post(path, json={"after": "r10 r11 r12"}).json()
        assert played["turn"]["player"] == "Ann"
        # A phone never sees the codes: with Bob's it could post as Bob.
        assert played["game"]["player_codes"] is None and played["game"]["join_code"] is None
        read = ann.get(f"/api/v1/games/{game['id']}").json()
        assert read["player_codes"] is None and read["join_code"] is None
    with guarded.client(token=codes["Bob"]) as bob:
        assert bob.post(path, json={"after": "r10 r11 r12", "drew": 1}).json()["turn"]["player"] == "Bob"
    with guarded.client() as organiser:
        assert [t["player"] for t in organiser.get(f"/api/v1/games/{game['id']}").json()["turns"]] == ["Ann", "Bob"]
    forged = f"g{game['id']}s1-{'0' * 20}"
    assert httpx.post(guarded.url + path, json={"after": ""}, headers={"Authorization": f"Bearer {forged}"}).status_code == 401


def test_a_restart_without_a_token_keeps_the_organisers_token_and_the_join_codes(tmp_path: Path) -> None:
    """A restart without --token keeps the token made up at the first start and every game's join
    codes (both kept in the data folder, owner-only), so neither the organiser's page nor any
    phone of the tournament is locked out; deleting the token file makes a new one."""
    database = f"sqlite:///{tmp_path / 'g.db'}"

    def made_up_token(server: Server) -> str:
        return re.search(r"Authorization: Bearer (\S+)\)", server.log).group(1)

    with serving(tmp_path, database, "--host", "0.0.0.0") as server:
        first_token = made_up_token(server)
        with server.client(token=first_token) as organiser:
            game = organiser.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
    for kept in ("join-secret", "organiser-token"):
        assert (tmp_path / "data" / kept).stat().st_mode & 0o077 == 0  # the owner's only
    with serving(tmp_path, database, "--host", "0.0.0.0") as server:
        assert made_up_token(server) == first_token
        with server.client(token=first_token) as organiser:
            again = organiser.get(f"/api/v1/games/{game['id']}").json()
        assert again["join_code"] == game["join_code"] and again["player_codes"] == game["player_codes"]
        with server.client(token=game["player_codes"]["Ann"]) as ann:
            turn = ann.post(f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12"})
            assert turn.status_code == 200, turn.text
    (tmp_path / "data" / "organiser-token").unlink()
    with serving(tmp_path, database, "--host", "0.0.0.0") as server:
        new_token = made_up_token(server)
        assert new_token != first_token
        with server.client(token=first_token) as revoked:
            assert revoked.get(f"/api/v1/games/{game['id']}").status_code == 401
        with server.client(token=game["player_codes"]["Ann"]) as ann:
            assert ann.get(f"/api/v1/games/{game['id']}").status_code == 200


def test_a_join_code_watches_its_own_game_only(guarded: Server) -> None:
    with guarded.client() as organiser:
        mine = organiser.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
        other = organiser.post("/api/v1/games", json={"players": ["Cy", "Di"]}).json()
        theirs = organiser.post("/api/v1/watch", json={"game": other["id"]})
        assert theirs.status_code == 201, theirs.text
    with httpx.Client(base_url=guarded.url, timeout=30) as anonymous:
        assert anonymous.post("/api/v1/watch", json={"game": mine["id"]}).status_code == 401
    with guarded.client(token=mine["join_code"]) as phone:
        watching = phone.post("/api/v1/watch", json={"game": mine["id"]})
        assert watching.status_code == 201, watching.text
        session = watching.json()["session"]
        assert phone.get(f"/api/v1/watch/{session}").json()["game"] == mine["id"]
        assert phone.post(f"/api/v1/watch/{session}/draw").status_code == 400  # nothing read yet: allowed, refused
        for body in ({"game": other["id"]}, {"players": ["Ann", "Bob"]}):
            refused = phone.post("/api/v1/watch", json=body)
            assert refused.status_code == 403 and f"for game {mine['id']}" in refused.json()["detail"]
        other_session = theirs.json()["session"]
        assert phone.get(f"/api/v1/watch/{other_session}").status_code == 403
        assert phone.delete(f"/api/v1/watch/{other_session}").status_code == 403
        assert phone.delete(f"/api/v1/watch/{session}").status_code == 204
    with guarded.client(token=mine["player_codes"]["Ann"]) as anns_phone:
        # A player's own code posts Ann's turns only; a watch session records everyone's.
        refused = anns_phone.post("/api/v1/watch", json={"game": mine["id"]})
        assert refused.status_code == 403 and "game's join code" in refused.json()["detail"]
    with guarded.client() as organiser:
        assert organiser.get(f"/api/v1/watch/{other_session}").status_code == 200  # still there
