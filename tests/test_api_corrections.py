"""A photo with the labels a user checked on the page becomes training data, written in the
layout of `rummi dataset` (the same files the training runs read)."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.api_server import DATA, Server

PHOTO = DATA / "photos" / "two-runs.jpg"
#: The red run of two-runs.jpg, outlined by hand (from the source labels), as the page sends it.
RED_RUN = [
    {"tile": "r5", "corners": [[135, 331], [181, 254], [289, 318], [244, 395]]},
    {"tile": "r6", "corners": [[184, 260], [226, 186], [333, 247], [291, 321]]},
    {"tile": "r7", "corners": [[237, 193], [276, 121], [383, 180], [343, 251]]},
]


@pytest.fixture(scope="module")
def client(api_server: Server) -> httpx.Client:
    with api_server.client() as client:
        yield client


def save(client: httpx.Client, labels: dict) -> httpx.Response:
    return client.post(
        "/api/v1/corrections",
        files={"photo": ("two-runs.jpg", PHOTO.read_bytes(), "image/jpeg")},
        data={"labels": json.dumps(labels)},
    )


def test_a_corrected_reading_is_saved_as_labelled_data(client: httpx.Client, api_server: Server) -> None:
    tiles = [dict(t, corrected=False) for t in RED_RUN]
    tiles[1] = {**tiles[1], "corrected": True}  # the reader said r8; the user tapped it: r6
    tiles.append(
        {"tile": None, "corners": [[0, 0], [10, 0], [10, 10], [0, 10]], "corrected": True}
    )  # no tile
    labels = {"width": 1000, "height": 750, "tiles": tiles, "sets": [[0, 1, 2, 3]], "rack": []}
    response = save(client, labels)
    assert response.status_code == 201, response.text
    saved = response.json()
    assert (saved["tiles"], saved["corrected"]) == (3, 2)

    folder, name = api_server.corrections_dir, saved["name"]
    # The answer names the folder, never where it lies on the server (finding 10 of issue 17).
    assert saved["folder"] == "corrections" and str(folder) not in response.text and "/tmp" not in response.text
    assert (folder / "detect" / "images" / "train" / f"{name}.jpg").is_file()
    for variant in ("detect", "detect53", "obb", "obb53"):
        assert len((folder / variant / "labels" / "train" / f"{name}.txt").read_text().splitlines()) == 3
    truth = json.loads((folder / "truth" / "train" / f"{name}.json").read_text())
    assert [t["notation"] for t in truth["tiles"]] == ["r5", "r6", "r7"]
    assert truth["sets"] == [[0, 1, 2]]  # the 'not a tile' left its set
    assert {t["orientation_source"] for t in truth["tiles"]} == {"user-checked"}

    again = save(client, labels).json()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert {name, again["name"]} <= {s["name"] for s in manifest["scenes"]}
    assert manifest["splits"]["train"]["tiles"] >= 6


def test_a_label_that_is_not_a_tile_is_refused(client: httpx.Client) -> None:
    response = save(client, {"tiles": [{"tile": "r14", "corners": RED_RUN[0]["corners"]}]})
    assert response.status_code == 422
    assert "labels.tiles[0].tile" in response.json()["detail"] and "14" in response.json()["detail"]


def test_labels_for_another_picture_are_refused(client: httpx.Client) -> None:
    response = save(client, {"width": 4000, "height": 3000, "tiles": RED_RUN})
    assert response.status_code == 400
    assert "4000x3000" in response.json()["detail"]


def test_a_set_pointing_at_no_tile_is_refused(client: httpx.Client) -> None:
    response = save(client, {"tiles": RED_RUN, "sets": [[0, 1, 7]]})
    assert response.status_code == 400
    assert "no tile number 7" in response.json()["detail"]


def test_labels_that_are_not_json_are_refused(client: httpx.Client) -> None:
    response = client.post(
        "/api/v1/corrections",
        files={"photo": ("two-runs.jpg", PHOTO.read_bytes(), "image/jpeg")},
        data={"labels": "r5 r6 r7"},
    )
    assert response.status_code == 422
    assert response.json()["field"].startswith("labels")


def test_a_damaged_manifest_is_rebuilt_from_the_saved_scenes(tmp_path) -> None:
    """manifest.json is derived data: a damaged one is written anew from the scenes' records."""
    from tests.api_server import serving

    with serving(tmp_path, f"sqlite:///{tmp_path / 'games.db'}") as server, server.client() as client:
        labels = {"width": 1000, "height": 750, "tiles": [dict(t, corrected=False) for t in RED_RUN],
                  "sets": [[0, 1, 2]], "rack": []}
        first = save(client, labels).json()["name"]
        (server.corrections_dir / "manifest.json").write_text("{ not json")
        response = save(client, labels)
        assert response.status_code == 201, response.text
        manifest = json.loads((server.corrections_dir / "manifest.json").read_text())
    assert {s["name"] for s in manifest["scenes"]} == {first, response.json()["name"]}


def test_a_folder_that_cannot_be_written_is_503_without_its_path(tmp_path) -> None:
    """The service's trouble is 'try later', and the answer names no folder of the server."""
    from tests.api_server import serving

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the corrections folder should be")
    with serving(
        tmp_path, f"sqlite:///{tmp_path / 'games.db'}", RUMMI_CORRECTIONS_DIR=str(blocker / "corrections")
    ) as server, server.client() as client:
        response = save(client, {"tiles": RED_RUN, "sets": [[0, 1, 2]]})
    assert response.status_code == 503, response.text
    assert "corrections cannot be saved" in response.json()["detail"]
    assert str(tmp_path) not in response.text
