"""`rummi serve`: the web service and its page, on uvicorn.

    rummi serve                       # http://127.0.0.1:8000/
    rummi serve --host 0.0.0.0        # reachable from a phone on the same network

Limits and storage come from the environment (``RUMMI_*``, see :mod:`api.settings`). A phone
browser only opens the camera on ``https://`` or ``localhost``: serve behind a TLS proxy, or
give ``--ssl-certfile``/``--ssl-keyfile``.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("serve", help="start the web service and the camera page")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--ssl-certfile", default=None, help="TLS certificate (phones need https)")
    parser.add_argument("--ssl-keyfile", default=None, help="TLS private key")
    parser.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    parser.set_defaults(func=handler)


def handler(args: argparse.Namespace) -> int:
    # Imported here so that `rummi validate` and friends do not pay for loading the web stack.
    import uvicorn
    from rummi.api.app import create_app
    from rummi.api.game_records import GameRecords
    from rummi.api.settings import Settings

    if not 0 < args.port < 65536:
        raise ValueError(f"--port {args.port}: not a TCP port (1-65535)")
    settings = Settings()
    # Open the game store once here, so a wrong database URL is one clear line (StorageError),
    # not a start-up traceback from inside the server.
    GameRecords.open(settings.database_url).close()
    app = create_app(settings)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ssl_certfile=args.ssl_certfile,
        ssl_keyfile=args.ssl_keyfile,
        # A stalled client must not hold a worker slot for ever.
        timeout_keep_alive=5,
    )
    return 0
