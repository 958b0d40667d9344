"""Shared fixtures: `api_server` and `api_server_postgres` (a real `rummi serve`) come from
tests/api_server.py."""

pytest_plugins = ["tests.api_server"]
