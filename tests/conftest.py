"""Shared fixtures: `api_server` and `api_server_postgres` (a real `rummi serve`) come from
tests/api_server.py.

numba's cache goes where the command line puts it (the user cache folder), so the tests load
the hint solver that `make venv` compiled instead of compiling it again beside the source.
"""

from rummi.places import use_numba_cache

use_numba_cache()

pytest_plugins = ["tests.api_server"]
