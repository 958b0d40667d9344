"""The corrections folder under abuse: a quota that refuses without leaving files behind, no
cross-site saves, a rate limit, and kill -9 in the middle of saves never damaging the dataset."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.api_server import DATA, serving

PHOTO = DATA / "photos" / "two-runs.jpg"
RED_RUN = [
    {"tile": "r5", "corners": [[135, 331], [181, 254], [289, 318], [244, 395]]},
    {"tile": "r6", "corners": [[184, 260], [226, 186], [333, 247], [291, 321]]},
    {"tile": "r7", "corners": [[237, 193], [276, 121], [383, 180], [343, 251]]},
]
LABELS = {"width": 1000, "height": 750, "tiles": RED_RUN, "sets": [[0, 1, 2]], "rack": []}


def save(client: httpx.Client, **headers: str) -> httpx.Response:
    return client.post(
        "/api/v1/corrections",
        files={"photo": ("two-runs.jpg", PHOTO.read_bytes(), "image/jpeg")},
        data={"labels": json.dumps(LABELS)},
        headers=headers,
    )


def files_under(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()} if folder.exists() else set()


def test_the_quota_refuses_with_507_and_leaves_nothing(tmp_path: Path) -> None:
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", RUMMI_MAX_CORRECTIONS="2") as server:
        with server.client() as client:
            assert [save(client).status_code for _ in range(2)] == [201, 201]
            before = files_under(server.corrections_dir)
            refused = save(client)
            assert refused.status_code == 507, refused.text
            assert "limit of 2 photos" in refused.json()["detail"]
            assert files_under(server.corrections_dir) == before


def test_the_byte_quota_refuses_with_507_and_leaves_nothing(tmp_path: Path) -> None:
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", RUMMI_MAX_CORRECTIONS_MB="1",
                 RUMMI_CORRECTIONS_PER_MINUTE="1000") as server:
        with server.client() as client:
            statuses = []
            for _ in range(40):
                before = files_under(server.corrections_dir)
                statuses.append(save(client).status_code)
                if statuses[-1] != 201:
                    break
            assert statuses[-1] == 507 and set(statuses[:-1]) == {201}, statuses
            assert files_under(server.corrections_dir) == before
            manifest = json.loads((server.corrections_dir / "manifest.json").read_text())
            assert len(manifest["scenes"]) == len(statuses) - 1


def test_a_save_from_another_site_is_refused(tmp_path: Path) -> None:
    """A page elsewhere cannot make the organiser's browser post a (simple) multipart form."""
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}") as server, server.client() as client:
        refused = save(client, Origin="http://evil.example")
        assert refused.status_code == 403, refused.text
        assert files_under(server.corrections_dir) == set()
        own = save(client, Origin=server.url)
        assert own.status_code == 201, own.text
        assert own.json()["folder"] == "corrections"  # a name, never the server's path


def test_corrections_are_rate_limited_per_client(tmp_path: Path) -> None:
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", RUMMI_CORRECTIONS_PER_MINUTE="2") as server:
        with server.client() as client:
            assert [save(client).status_code for _ in range(2)] == [201, 201]
            limited = save(client)
            assert limited.status_code == 429, limited.text
            assert 1 <= int(limited.headers["retry-after"]) <= 30
            assert len(json.loads((server.corrections_dir / "manifest.json").read_text())["scenes"]) == 2


def _saver(url: str, stop: threading.Event) -> None:
    with httpx.Client(base_url=url, timeout=10) as client:
        while not stop.is_set():
            try:
                save(client)
            except httpx.TransportError:
                return


@pytest.mark.slow
def test_kill_9_during_saves_never_damages_the_dataset(tmp_path: Path) -> None:
    """Three times: two clients save as fast as they can, the server is killed -9 mid-way. After
    each restart the manifest and the crop index list exactly the scenes whose files are all
    there, and saving goes on."""
    env = {"RUMMI_CORRECTIONS_PER_MINUTE": "100000"}
    folder = tmp_path / "corrections"
    for round_ in range(3):
        with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", **env) as server:
            stop = threading.Event()
            savers = [threading.Thread(target=_saver, args=(server.url, stop)) for _ in range(2)]
            for saver in savers:
                saver.start()
            time.sleep(1.0 + 0.5 * round_)
            server.process.kill()  # SIGKILL, mid-save
            server.process.wait()
            stop.set()
            for saver in savers:
                saver.join()
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}", **env) as server, server.client() as client:
        assert save(client).status_code == 201
        manifest = json.loads((folder / "manifest.json").read_text())
        names = {s["name"] for s in manifest["scenes"]}
        assert len(names) >= 4
        truths = {p.stem for p in (folder / "truth" / "train").glob("*.json")}
        images = {p.stem for p in (folder / "detect" / "images" / "train").glob("*.jpg")}
        assert truths == names and images == names
        rows = (folder / "crops" / "index.csv").read_text().splitlines()[1:]
        assert len(rows) == sum(s["crops"] for s in manifest["scenes"]) == manifest["splits"]["train"]["crops"]
        assert all((folder / row.split(",")[0]).is_file() for row in rows)
        assert not any((folder / ".staging").glob("*"))


def test_a_folder_of_the_old_layout_keeps_its_scenes(tmp_path: Path) -> None:
    """A corrections folder written by rummi 0.1 (manifest and index, no per-scene records):
    its scenes stay listed when new ones are saved, and none of its files is swept."""
    from rummi.datasets.writer import CROP_INDEX_HEADER, finish, prepare

    folder = tmp_path / "corrections"
    prepare(folder)
    (folder / "truth" / "train" / "old-scene.json").write_text("{}")
    old_row = "crops/train/r5/old-scene_00.jpg,train,r5,r5,old-scene,0,user-checked,1.000"
    finish(folder, [], [], {})
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["scenes"] = [{"name": "old-scene", "split": "train", "tiles": 1, "crops": 1}]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "crops" / "index.csv").write_text(CROP_INDEX_HEADER + "\n" + old_row + "\n")
    with serving(tmp_path, f"sqlite:///{tmp_path / 'g.db'}") as server, server.client() as client:
        new = save(client)
        assert new.status_code == 201, new.text
    manifest = json.loads((folder / "manifest.json").read_text())
    assert {s["name"] for s in manifest["scenes"]} == {"old-scene", new.json()["name"]}
    index = (folder / "crops" / "index.csv").read_text().splitlines()
    assert index[0] == CROP_INDEX_HEADER and old_row in index
    assert (folder / "truth" / "train" / "old-scene.json").is_file()
