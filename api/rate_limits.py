"""Per-client rate limits on what costs the service: game writes, scans and corrections.

One token bucket per client address and kind of request, holding a minute's allowance and
refilled continuously: a phone may send a burst (live mode), nobody may keep sending more than
the allowance. Beyond it the answer is 429 with ``Retry-After`` (whole seconds until the next
request would be taken). Reads, hints and table checks are not limited here: they are cheap,
and they have their own workers (:class:`api.deps.Inference`).

On SQLite (one machine, usually one process) the buckets live in this process. On PostgreSQL
they live in the database (:class:`api.storage.rate_buckets.SharedBuckets`), so several
service processes behind it hold a client to one allowance, not one per process; while the
database does not answer, each process falls back to its own buckets (a flood is still held
back, by N allowances instead of one).

    >>> bucket = Bucket(per_minute=2, now=0.0)
    >>> bucket.take(0.0), bucket.take(0.0), bucket.take(0.0)
    (0.0, 0.0, 30.0)
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping

import anyio.to_thread
from rummi.api.asgi_answers import send_json
from rummi.api.storage import DatabaseFailureError
from rummi.api.storage.rate_buckets import SharedBuckets
from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("rummi.api")

#: Most client addresses remembered; the least recently seen is forgotten first.
MAX_CLIENTS = 10_000
_TURNS_OR_END = re.compile(r"^/games/\d{1,19}/(turns|end)/?$")
_WATCH_DRAW = re.compile(r"^/watch/[^/]{1,64}/draw$")


class Bucket:
    """``per_minute`` requests a minute, a burst of as many."""

    def __init__(self, per_minute: int, now: float) -> None:
        self.rate = per_minute / 60.0
        self.capacity = float(per_minute)
        self.level = self.capacity
        self.stamp = now

    def take(self, now: float) -> float:
        """Take one request: 0.0 if allowed, else the seconds until one would be."""
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.level >= 1.0:
            self.level -= 1.0
            return 0.0
        return (1.0 - self.level) / self.rate


def kind_of(method: str, route: str) -> str | None:
    """Which allowance a request draws on (``route`` is the path after the API prefix)."""
    if method != "POST":
        return None
    route = route.rstrip("/") or "/"
    if route == "/scan":
        return "scans"
    if route == "/corrections":
        return "corrections"
    if route == "/watch/frame":
        return "frames"  # a camera's stream: a few a second, so an allowance of its own
    if route in ("/games", "/watch") or _TURNS_OR_END.match(route) or _WATCH_DRAW.match(route):
        return "writes"
    return None


class LocalBuckets:
    """This process's buckets, the least recently seen client forgotten past :data:`MAX_CLIENTS`."""

    def __init__(self) -> None:
        self._buckets: OrderedDict[tuple[str, str], Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, client: str, kind: str, per_minute: int) -> float:
        now = time.monotonic()
        key = (client, kind)
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = Bucket(per_minute, now)
                if len(self._buckets) > MAX_CLIENTS:
                    self._buckets.popitem(last=False)
            else:
                self._buckets.move_to_end(key)
            return bucket.take(now)


class RateLimiter:
    """Each client's allowances: in this process, or shared through PostgreSQL once
    :meth:`share` is given the database (at start, when the store is PostgreSQL)."""

    def __init__(self, per_minute: Mapping[str, int]) -> None:
        self.per_minute = dict(per_minute)
        self._local = LocalBuckets()
        self._shared: SharedBuckets | None = None

    @property
    def shared(self) -> bool:
        return self._shared is not None

    def share(self, shared: SharedBuckets | None) -> None:
        self._shared = shared

    async def take(self, client: str, kind: str) -> float:
        """Take one request of ``kind``: 0.0 if allowed, else the seconds to wait."""
        per_minute = self.per_minute[kind]
        if self._shared is None:
            return self._local.take(client, kind, per_minute)
        try:
            return await anyio.to_thread.run_sync(self._shared.take, client, kind, per_minute)
        except DatabaseFailureError as error:
            log.warning("shared rate limits unavailable (%s); this process's own apply", error)
            return self._local.take(client, kind, per_minute)


class RateLimitMiddleware:
    """429 with Retry-After once a client has used its allowance of a kind."""

    def __init__(self, app: ASGIApp, api_prefix: str, limiter: RateLimiter) -> None:
        self.app = app
        self.prefix = api_prefix
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path.startswith(self.prefix + "/"):
            kind = kind_of(scope["method"], path[len(self.prefix):])
            if kind is not None:
                client = (scope.get("client") or ("?", 0))[0]
                wait = await self.limiter.take(client, kind)
                if wait > 0:
                    await _too_many(send, kind, wait)
                    return
        await self.app(scope, receive, send)


async def _too_many(send: Send, kind: str, wait: float) -> None:
    seconds = max(1, math.ceil(wait))
    payload = {"detail": f"too many {kind} from this address; try again in {seconds} s", "error": "RateLimited"}
    await send_json(send, 429, payload, [(b"retry-after", str(seconds).encode())])
