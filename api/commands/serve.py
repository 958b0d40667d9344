"""`rummi serve`: the web service and its page, on uvicorn.

    rummi serve                       # http://127.0.0.1:8000/ (this machine only, no token)
    rummi serve --lan                 # https on the LAN address, a token, a QR code to join
    rummi serve --host 0.0.0.0 --token T --ssl-certfile cert.pem --ssl-keyfile key.pem
    rummi serve --workers 4           # four processes (games in PostgreSQL: RUMMI_DATABASE_URL)
    rummi serve --host 0.0.0.0 --forwarded-allow-ips 10.0.0.2   # behind a reverse proxy at 10.0.0.2

On loopback nothing is asked of the caller. On any other address every call that reads or
writes games, scans or corrections needs ``Authorization: Bearer <token>``: the token is
``--token``, else ``RUMMI_TOKEN``, else one made up on first start, kept in the data folder and
printed. The page takes it from the URL it was opened with (``https://<lan-ip>:<port>/#token=...``,
also shown as a QR code). The games' join codes are signed with a secret kept there too
(:mod:`api.kept_secrets`), so a restart leaves the organiser's page and every phone's code working.

Limits and storage come from the environment (``RUMMI_*``, see :mod:`api.settings`). A phone
browser only opens the camera on ``https://`` or ``localhost``: ``--lan`` makes a self-signed
certificate on first use (kept in the user's data folder), or give ``--ssl-certfile``/``--ssl-keyfile``.
"""

from __future__ import annotations

import argparse
import os
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("serve", help="start the web service and the camera page")
    parser.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1; --lan: 0.0.0.0)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument(
        "--lan",
        action="store_true",
        help="serve the venue's network: https with a self-signed certificate, a token, a QR code to join",
    )
    parser.add_argument("--token", default=None, help="the organiser's token (default $RUMMI_TOKEN, else made up)")
    parser.add_argument("--workers", type=int, default=1, help="service processes (needs PostgreSQL for > 1)")
    parser.add_argument("--ssl-certfile", default=None, help="TLS certificate (phones need https)")
    parser.add_argument("--ssl-keyfile", default=None, help="TLS private key")
    parser.add_argument(
        "--forwarded-allow-ips",
        default=None,
        metavar="IPS",
        help="behind a reverse proxy: its address(es), comma-separated, trusted to name the client in "
        "X-Forwarded-For, so rate limits count each client (default $FORWARDED_ALLOW_IPS, else 127.0.0.1)",
    )
    parser.add_argument(
        "--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"]
    )
    parser.set_defaults(func=handler)


def handler(args: argparse.Namespace) -> int:
    # Imported here so that `rummi validate` and friends do not pay for loading the web stack.
    import uvicorn
    from rummi.api.access import is_loopback
    from rummi.api.app import create_app
    from rummi.api.game_records import GameRecords
    from rummi.api.kept_secrets import stored_join_secret, stored_organiser_token
    from rummi.api.routers.meta import join_url
    from rummi.api.settings import Settings
    from rummi.api.slow_clients import GuardedH11Protocol
    from rummi.api.tls import ensure_certificate, lan_address

    from rummi.places import data_dir, tls_dir

    if not 0 < args.port < 65536:
        raise ValueError(f"--port {args.port}: not a TCP port (1-65535)")
    if not 1 <= args.workers <= 32:
        raise ValueError(f"--workers {args.workers}: give 1 to 32 processes")
    if (args.ssl_certfile is None) != (args.ssl_keyfile is None):
        raise ValueError("--ssl-certfile and --ssl-keyfile go together")
    settings = Settings()
    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    certfile, keyfile = args.ssl_certfile, args.ssl_keyfile
    # 0.0.0.0 listens on every address; a phone needs the LAN one.
    shown_host = lan_address() if host in ("0.0.0.0", "::") else host
    if args.lan:
        if certfile is None:
            cert, key = ensure_certificate(tls_dir(), shown_host)
            certfile, keyfile = str(cert), str(key)
    token = args.token or settings.token
    if token is None and not is_loopback(host):
        token = stored_organiser_token(data_dir())  # the organiser's page outlives a restart
    if token is not None and len(token) < 8:
        raise ValueError("--token: use at least 8 characters")
    scheme = "https" if certfile else "http"
    url = join_url(f"{scheme}://{_url_host(shown_host)}:{args.port}/", token)
    join_secret = settings.join_secret
    if token is not None and join_secret is None:
        join_secret = stored_join_secret(data_dir())  # the codes outlive a restart with a new token
    settings = settings.model_copy(
        update={"token": token, "join_secret": join_secret, "public_url": settings.public_url or url.split("#")[0]}
    )
    if args.workers > 1 and settings.database_url.startswith("sqlite"):
        print("rummi serve: note: several workers on SQLite write one at a time; use PostgreSQL", file=sys.stderr)
    # Open the game store once here, so a wrong database URL is one clear line (StorageError),
    # not a start-up traceback from inside the server.
    GameRecords.open(settings.database_url).close()
    _announce(url, host, token, qr=args.lan)
    common = dict(
        host=host,
        port=args.port,
        log_level=args.log_level,
        ssl_certfile=certfile,
        ssl_keyfile=keyfile,
        # Between requests an idle connection closes after this; stalled requests: slow_clients.
        timeout_keep_alive=max(1, round(settings.keep_alive_s)),
        http=GuardedH11Protocol,
        # Rate limits key on the client's address; only a trusted proxy may say what it is.
        forwarded_allow_ips=args.forwarded_allow_ips,
    )
    if args.workers == 1:
        uvicorn.run(create_app(settings), **common)
    else:
        # Each worker builds its app from the environment: hand it what was decided here.
        os.environ["RUMMI_DATABASE_URL"] = settings.database_url
        os.environ["RUMMI_PUBLIC_URL"] = settings.public_url or ""
        if token is not None:
            os.environ["RUMMI_TOKEN"] = token
        if join_secret is not None:
            os.environ["RUMMI_JOIN_SECRET"] = join_secret
        uvicorn.run("rummi.api.app:create_app", factory=True, workers=args.workers, **common)
    return 0


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def _announce(url: str, host: str, token: str | None, *, qr: bool) -> None:
    """Tell the organiser where the page is and, with a token, how a phone joins."""
    print(f"rummi serve: the page is at {url}", flush=True)
    if token is not None:
        print(f"rummi serve: listening on {host}; calls need the token (Authorization: Bearer {token})")
    if qr:
        import segno

        print("rummi serve: scan this with a phone on the same network to open the page:")
        segno.make(url, error="m").terminal(out=sys.stdout, compact=True)
    sys.stdout.flush()
