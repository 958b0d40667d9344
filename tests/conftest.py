"""Shared fixtures: `api_server` and `api_server_postgres` (a real `rummi serve`) come from
tests/api_server.py; `browser` and `page` (chromium with a fake camera) from tests/page_browser.py."""

pytest_plugins = ["tests.api_server", "tests.page_browser"]
