"""Who may call the service, from where: the organiser's token, per-game join codes, the Host
and Origin checks, and the security headers of every answer.

On loopback (the default `rummi serve`) only this machine can connect, so nothing is asked. On
any other address anyone on the venue's Wi-Fi could, so the service gets a token (``--token``,
``RUMMI_TOKEN``, or one made up and printed at start) and every call that reads or writes
games, scans or corrections must carry ``Authorization: Bearer <token>``: 401 without it.

A game's *join code* lets a phone post turns to that game and read it, watch it (a watch
session recording into that game), and use the stateless questions (scan, table check, hint,
verdict, score); anything else with it is 403. The code is
an HMAC of the game id under the organiser's token, so it needs no storage and every service
process behind one database computes the same code.

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
from urllib.parse import urlsplit

from rummi.api.asgi_answers import send_json
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


class Access:
    """The organiser's token (``None``: open, as on loopback) and the join codes it signs."""

    def __init__(self, token: str | None) -> None:
        self.token = token

    @property
    def required(self) -> bool:
        return self.token is not None

    def join_code(self, game_id: int) -> str | None:
        if self.token is None:
            return None
        mac = hmac.new(self.token.encode(), f"game:{game_id}".encode(), hashlib.sha256).hexdigest()
        return f"g{game_id}-{mac[:20]}"

    def game_of(self, credential: str) -> int | None:
        """The game a join code belongs to, or ``None`` when it is no join code of ours."""
        match = re.fullmatch(r"g(\d{1,19})-[0-9a-f]{20}", credential)
        if match is None:
            return None
        game_id = int(match.group(1))
        expected = self.join_code(game_id)
        return game_id if expected is not None and hmac.compare_digest(expected, credential) else None

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
        refusal = self._refusal(scope["method"], path, host, headers)
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

    def _refusal(self, method: str, path: str, host: str, headers: dict[str, str]) -> tuple | None:
        if not self._trusted_host(host):
            return 400, f"untrusted Host header {host[:100]!r}: use the service's IP address", {}
        origin = headers.get("origin")
        if method in UNSAFE_METHODS and origin is not None and urlsplit(origin).netloc.lower() != host.lower():
            return 403, f"cross-site request from {origin[:100]!r} refused", {}
        if not path.startswith(self.prefix + "/") or not self.access.required:
            return None
        route = path[len(self.prefix):]
        if route.rstrip("/") in PUBLIC_PATHS:
            return None
        scheme, _, credential = headers.get("authorization", "").partition(" ")
        credential = credential.strip()
        challenge = {"www-authenticate": 'Bearer realm="rummi"'}
        if scheme.lower() != "bearer" or not credential:
            return 401, "this service needs its token: Authorization: Bearer <token> (see rummi serve)", challenge
        if self.access.is_organiser(credential):
            return None
        game_id = self.access.game_of(credential)
        if game_id is None:
            return 401, "the token is not this service's (nor a game's join code)", challenge
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
