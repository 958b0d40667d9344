#!/usr/bin/env bash
# Runs the whole test suite. Starts a throw-away PostgreSQL server for the storage tests
# when one is installed and none is given in RUMMI_TEST_POSTGRES_URL.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${RUMMI_TEST_POSTGRES_URL:-}" ]; then
  eval "$(bash scripts/start-postgres.sh)" || echo "PostgreSQL not started: its tests will fail" >&2
fi
exec .venv/bin/python -m pytest "$@"
