"""Who may call the service, from where: the organiser's token, per-game join codes, the Host
and Origin checks, and the security headers of every answer.

On loopback (the default `rummi serve`) only this machine can connect, so nothing is asked (a
request that came through a proxy, which says so in ``X-Forwarded-For`` or ``Forwarded``, is
refused there: the proxy lets anyone in, so it needs ``--token``). On any other address anyone on the venue's Wi-Fi could, so the service gets a token (``--token``,
``RUMMI_TOKEN``, or one made up on the first start, kept and printed: :mod:`api.kept_secrets`) and every call that reads or writes
games, scans or corrections must carry ``Authorization: Bearer <token>``: 401 without it.

A game's *join code* lets a phone post turns to that game and read it, watch it (a watch
session recording into that game), and use the stateless questions (scan, table check, hint,
verdict, score); anything else with it is 403. Each player has a code of their own too, which
posts that player's turns only. A code is an HMAC of the game id (and seat) under the join
secret, so it needs no storage and every service process that shares the secret computes the
same code.

Two browser attacks are closed here too, token or not:

* DNS rebinding (a web page whose host name is made to point at this machine): the ``Host``
  header must be an IP address, ``localhost`` or a name in ``RUMMI_TRUSTED_HOSTS``; 400 else.
* cross-site requests (a page elsewhere posting a "simple" multipart form from the organiser's
  own browser): a write whose ``Origin`` is not this service's own is 403. With a token it
  would fail anyway (a browser never adds the Bearer header by itself).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from rummi.api.asgi_answers import send_json
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: Paths under the API prefix that anyone may ask (nothing about games, photos or corrections).
PUBLIC_PATHS = frozenset({"/health", "/editions", "/presets"})
#: Stateless questions a join code may ask besides its own game.
JOIN_CODE_PATHS = frozenset({"/scan", "/table/check", "/hint", "/turns/judge", "/score"})
_GAME_PATH = re.compile(r"^/games/(\d{1,19})(/turns)?/?$")
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

#: Headers on every answer: no framing (clickjacking), no MIME sniffing, no referrer (the
#: token travels in the page's URL fragment, which is never sent, but no need to try).
SECURITY_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)
#: The page loads only its own scripts and styles; photos are blob:/data: URLs.
PAGE_CSP = (
    b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    b"media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    b"form-action 'self'; frame-ancestors 'none'"
)
#: The OpenAPI pages (/docs, /redoc) run FastAPI's inline bootstrap script.
DOCS_CSP = b"frame-ancestors 'none'; object-src 'none'; base-uri 'none'"
DOCS_PATHS = ("/docs", "/redoc")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the service to this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class JoinCode:
    """What a join code lets its holder be: a phone of ``game_id``, and with ``seat`` (the
    player's index in the game's seating order) that one player's phone."""

    game_id: int
    seat: int | None = None


#: Where :class:`GuardMiddleware` leaves the join code a request came with (``request.state``).
JOIN_STATE_KEY = "join_code"


def join_code_of(request: HTTPConnection) -> JoinCode | None:
    """The join code a request came with; ``None`` for the organiser's token or open access."""
    return getattr(request.state, JOIN_STATE_KEY, None)
_JOIN_CODE = re.compile(r"g(\d{1,19})(?:s(\d{1,2}))?-[0-9a-f]{20}")


class Access:
    """The organiser's token (``None``: open, as on loopback) and the join codes.

    Join codes are signed with ``join_secret`` when there is one (kept in the data folder, so
    they survive a restart with a new token), else with the token.
    """

    def __init__(self, token: str | None, join_secret: str | None = None) -> None:
        self.token = token
        self._join_key = (join_secret or token or "").encode()

    @property
    def required(self) -> bool:
        return self.token is not None

    def join_code(self, game_id: int, seat: int | None = None) -> str | None:
        """The code of a game's phone (any player), or with ``seat`` of one player's phone."""
        if self.token is None:
            return None
        message = f"game:{game_id}" if seat is None else f"game:{game_id}:seat:{seat}"
        mac = hmac.new(self._join_key, message.encode(), hashlib.sha256).hexdigest()
        return f"g{game_id}-{mac[:20]}" if seat is None else f"g{game_id}s{seat}-{mac[:20]}"

    def player_codes(self, game_id: int, players: Iterable[str]) -> dict[str, str] | None:
        """Each player's own join code, by name."""
        if self.token is None:
            return None
        return {player: str(self.join_code(game_id, seat)) for seat, player in enumerate(players)}

    def join_of(self, credential: str) -> JoinCode | None:
        """What a join code lets its holder do, or ``None`` when it is no join code of ours."""
        match = _JOIN_CODE.fullmatch(credential)
        if match is None:
            return None
        game_id = int(match.group(1))
        seat = None if match.group(2) is None else int(match.group(2))
        expected = self.join_code(game_id, seat)
        if expected is None or not hmac.compare_digest(expected, credential):
            return None
        return JoinCode(game_id, seat)

    def is_organiser(self, credential: str) -> bool:
        return self.token is not None and hmac.compare_digest(self.token.encode(), credential.encode())


class GuardMiddleware:
    """Host check, Origin check, token check, then the security headers on the answer."""

    def __init__(self, app: ASGIApp, access: Access, api_prefix: str, trusted_hosts: Iterable[str]) -> None:
        self.app = app
        self.access = access
        self.prefix = api_prefix
        self.trusted_hosts = frozenset(h.lower() for h in trusted_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        path: str = scope["path"]
        host = headers.get("host", "")
        refusal = self._refusal(scope, path, host, headers)
        if refusal is not None:
            await _answer(send, *refusal)
            return
        csp = DOCS_CSP if path.startswith(DOCS_PATHS) else PAGE_CSP

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS,
                                                  (b"content-security-policy", csp)]}
            await send(message)

        await self.app(scope, receive, with_headers)

    def _refusal(self, scope: Scope, path: str, host: str, headers: dict[str, str]) -> tuple | None:
        method: str = scope["method"]
        if not self._trusted_host(host):
            return 400, f"untrusted Host header {host[:100]!r}: use the service's IP address", {}
        origin = headers.get("origin")
        if method in UNSAFE_METHODS and origin is not None and urlsplit(origin).netloc.lower() != host.lower():
            return 403, f"cross-site request from {origin[:100]!r} refused", {}
        if not path.startswith(self.prefix + "/"):
            return None
        route = path[len(self.prefix):]
        if route.rstrip("/") in PUBLIC_PATHS:
            return None
        if not self.access.required:
            if "x-forwarded-for" in headers or "forwarded" in headers:
                # Open because only this machine can connect; a proxy in front breaks that.
                return 403, ("this service has no token, which is safe on this machine only: behind a "
                             "proxy start it with --token (rummi serve --host 127.0.0.1 --token T)"), {}
            return None
        scheme, _, credential = headers.get("authorization", "").partition(" ")
        credential = credential.strip()
        challenge = {"www-authenticate": 'Bearer realm="rummi"'}
        if scheme.lower() != "bearer" or not credential:
            return 401, "this service needs its token: Authorization: Bearer <token> (see rummi serve)", challenge
        if self.access.is_organiser(credential):
            return None
        join = self.access.join_of(credential)
        if join is None:
            return 401, "the token is not this service's (nor a game's join code)", challenge
        game_id = join.game_id
        # The route sees which phone this is: a player's own code posts that player's turns only.
        scope.setdefault("state", {})[JOIN_STATE_KEY] = join
        if route.rstrip("/") in JOIN_CODE_PATHS:
            return None
        if route == "/watch" or route.startswith("/watch/"):
            return None  # api/routers/watch.py lets a join code use its own game's sessions only
        match = _GAME_PATH.match(route)
        if match is None or (match.group(2) is None and method != "GET"):
            return 403, "a join code only posts turns to its own game and reads it", {}
        if int(match.group(1)) != game_id:
            return 403, f"this join code is for game {game_id}, not game {match.group(1)}", {}
        return None

    def _trusted_host(self, host: str) -> bool:
        name = _host_name(host)
        if name == "localhost" or name in self.trusted_hosts:
            return True
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True


def _host_name(host: str) -> str:
    """``[::1]:8000`` -> ``::1``; ``example.org:8000`` -> ``example.org``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    if host.count(":") == 1:
        return host.partition(":")[0]
    return host


def _headers(scope: Scope) -> dict[str, str]:
    return {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope.get("headers", ())}


async def _answer(send: Send, status: int, detail: str, extra: dict[str, str]) -> None:
    headers = [
        *SECURITY_HEADERS,
        (b"content-security-policy", PAGE_CSP),
        *((k.encode(), v.encode()) for k, v in extra.items()),
    ]
    await send_json(send, status, {"detail": detail}, headers)
