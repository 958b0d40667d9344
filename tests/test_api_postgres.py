"""The service on PostgreSQL when the database misbehaves: dropped connections are replaced,
/health says when the database is gone (503) and when it is back, and two service processes
on one database never see a game half-written and hold a client to one rate limit."""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.api_server import fresh_postgres_database, postgres_admin_url, serving

pytestmark = pytest.mark.postgres


def admin(sql: str, *params: object) -> None:
    import psycopg

    with psycopg.connect(postgres_admin_url(), autocommit=True) as connection:
        connection.execute(sql, params)


def drop_connections(database: str) -> None:
    admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
          database)


@pytest.mark.slow
def test_dropped_connections_are_replaced_and_health_tells_the_truth(tmp_path: Path) -> None:
    with fresh_postgres_database() as url, serving(tmp_path, url) as server, server.client() as client:
        database = url.rpartition("/")[2]
        game = client.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()
        drop_connections(database)
        # Every pooled connection is dead now; the pool checks each before lending it.
        assert client.get(f"/api/v1/games/{game['id']}").status_code == 200
        assert client.post(f"/api/v1/games/{game['id']}/turns", json={"after": "r10 r11 r12"}).status_code == 200

        admin(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS false')
        drop_connections(database)
        try:
            down = client.get("/api/v1/health")
            assert down.status_code == 503 and down.json()["database"] == "unavailable"
            assert client.get("/api/v1/games").status_code == 503
            # A write is rate-limited through the database: with it gone the process's own
            # buckets take over, and the write itself is the database's 503, not a 500.
            created = client.post("/api/v1/games", json={"players": ["Ann", "Bob"]})
            assert created.status_code == 503 and created.json()["error"] == "DatabaseUnavailable"
            assert "shared rate limits unavailable" in server.log
        finally:
            admin(f'ALTER DATABASE "{database}" WITH ALLOW_CONNECTIONS true')
        deadline = time.monotonic() + 20
        while client.get("/api/v1/health").status_code != 200:
            assert time.monotonic() < deadline, "the service never reconnected"
            time.sleep(0.5)
        assert len(client.get(f"/api/v1/games/{game['id']}").json()["turns"]) == 1


@pytest.mark.slow
def test_two_processes_on_one_database_never_see_half_a_turn(tmp_path: Path) -> None:
    """Writers on both processes, readers on both: every read is a whole game (never '4 turns
    stored but the counter says 3'), every refusal a 409 to retry, no turn lost or doubled."""
    with fresh_postgres_database() as url:
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        unlimited = {"RUMMI_WRITES_PER_MINUTE": "100000"}  # retried 409s are writes too
        with serving(tmp_path / "a", url, **unlimited) as first, serving(tmp_path / "b", url, **unlimited) as second:
            with first.client() as client:
                game_id = client.post("/api/v1/games", json={"players": ["Ann", "Bob"]}).json()["id"]
            statuses: Counter[int] = Counter()
            recorded: list[int] = []
            stop = time.monotonic() + 4
            lock = threading.Lock()

            def writer(server, n: int) -> None:
                with server.client() as c:
                    for i in range(12):
                        key = {"Idempotency-Key": f"w{n}-{i}"}
                        while time.monotonic() < stop + 10:
                            r = c.post(f"/api/v1/games/{game_id}/turns", json={"after": ""}, headers=key)
                            with lock:
                                statuses[r.status_code] += 1
                            if r.status_code != 409:
                                with lock:
                                    recorded.append(r.json()["turn"]["number"])
                                break

            def reader(server) -> None:
                with server.client() as c:
                    while time.monotonic() < stop:
                        r = c.get(f"/api/v1/games/{game_id}")
                        with lock:
                            statuses[r.status_code] += 1

            threads = [threading.Thread(target=writer, args=(s, n)) for n, s in enumerate([first, second] * 2)]
            threads += [threading.Thread(target=reader, args=(s,)) for s in (first, second)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            with first.client() as client:
                turns = client.get(f"/api/v1/games/{game_id}").json()["turns"]
    assert set(statuses) <= {200, 409}, statuses
    assert sorted(recorded) == list(range(1, 49)) == [t["number"] for t in turns]


def test_two_processes_on_one_database_share_one_rate_limit(tmp_path: Path) -> None:
    """A client that spreads its writes over two service processes gets one allowance, not one
    per process: 6 a minute in all, then 429 with Retry-After from either process."""
    with fresh_postgres_database() as url:
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        limit = {"RUMMI_WRITES_PER_MINUTE": "6"}
        with serving(tmp_path / "a", url, **limit) as first, serving(tmp_path / "b", url, **limit) as second:
            with first.client() as a, second.client() as b:
                answers = [
                    (name, client.post("/api/v1/games", json={"players": ["Ann", "Bob"]}))
                    for _ in range(8)
                    for name, client in (("a", a), ("b", b))
                ]
                # Reads are not limited: both processes still answer them.
                assert a.get("/api/v1/games").status_code == b.get("/api/v1/games").status_code == 200
    created = [name for name, r in answers if r.status_code == 201]
    refused = [(name, r) for name, r in answers if r.status_code != 201]
    # 6 in all (a seventh if a tenth of a minute passed: the bucket refills by 1 every 10 s).
    assert len(created) in (6, 7), [(n, r.status_code) for n, r in answers]
    assert set(created) == {"a", "b"}  # both processes took some
    assert {r.status_code for _, r in refused} == {429} and {n for n, _ in refused} == {"a", "b"}
    assert all(int(r.headers["retry-after"]) >= 1 for _, r in refused)
