"""schemathesis against the served OpenAPI schema: no request it can think of makes a 5xx.

Hypothesis generates requests from the schema itself (valid ones, and ones that break it at
every place the schema allows), sends them to a real `rummi serve`, and fails on any server
error. One test per operation; the examples per operation are bounded so the whole run stays
well under a minute.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from api.app import create_app
from tests.api_server import Server, api_server  # noqa: F401

#: Examples per operation.
EXAMPLES = 25

# The operations, listed from the app's own schema so each gets its own test id; the requests
# then go to the served schema on the real server.
OPERATIONS = [
    (method.upper(), path)
    for path, methods in create_app().openapi()["paths"].items()
    for method in methods
]


@pytest.fixture(scope="module")
def served_schema(api_server: Server):
    return schemathesis.openapi.from_url(f"{api_server.url}/openapi.json")


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_no_request_makes_the_server_fail(served_schema, method: str, path: str) -> None:
    operation = served_schema[path][method]

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
              database=None)
    def requests_do_not_fail(case) -> None:
        case.call_and_validate(checks=[not_a_server_error])

    requests_do_not_fail()
