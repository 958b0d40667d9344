"""schemathesis against the served OpenAPI schema: no request it can think of makes a 5xx.

Hypothesis generates requests from the schema itself (valid ones, and ones that break it at
every place the schema allows), sends them to a real `rummi serve`, and fails on any server
error. One test per operation; the examples per operation are bounded so the whole run stays
well under a minute.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from rummi.api.app import create_app
from rummi.api.routers.photos import PHOTO_TYPES
from rummi.api.settings import Settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode

from tests.api_server import ROOT, Server

# In negative mode schemathesis may send the whole body as one of the photo part's content
# types; it has no serializer of its own for image types, so send those bytes as they are.
schemathesis.serializer.alias(sorted(PHOTO_TYPES), "application/octet-stream")

#: Examples per operation and mode (requests that fit the schema, and requests that break it).
EXAMPLES = 15

# The operations, listed from the app's own schema so each gets its own test id; the requests
# then go to the served schema on the real server. This app is never served: its database is
# in memory and its folders temporary, so importing this module writes nothing of the user's.
_LISTING_SETTINGS = Settings(
    database_url="sqlite:///:memory:", corrections_dir=Path(tempfile.gettempdir()) / "rummi-schema-listing"
)
# Operations that take no input have no negative case to make.
OPERATIONS = [
    (method.upper(), path, mode)
    for path, methods in create_app(_LISTING_SETTINGS).openapi()["paths"].items()
    for method, spec in methods.items()
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    if mode is GenerationMode.POSITIVE or spec.get("parameters") or spec.get("requestBody")
]


@pytest.fixture(scope="module")
def served_schema(api_server: Server):
    return schemathesis.openapi.from_url(f"{api_server.url}/openapi.json")


@pytest.mark.parametrize(
    ("method", "path", "mode"), OPERATIONS, ids=[f"{m} {p} {g}" for m, p, g in OPERATIONS]
)
def test_no_request_makes_the_server_fail(
    served_schema, method: str, path: str, mode: GenerationMode
) -> None:
    operation = served_schema[path][method]

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def requests_do_not_fail(case) -> None:
        case.call_and_validate(checks=[not_a_server_error])

    requests_do_not_fail()


def test_listing_the_operations_leaves_the_users_data_folder_alone(tmp_path: Path) -> None:
    """This module builds an app when it is imported (to list the operations): that must not
    create the user's data folder or a games.db in it."""
    data = tmp_path / "data"
    env = {**os.environ, "RUMMI_DATA_DIR": str(data)}
    env.pop("RUMMI_DATABASE_URL", None)
    subprocess.run([sys.executable, "-c", "import tests.test_api_schema"], cwd=ROOT, env=env, check=True)
    assert not data.exists()
