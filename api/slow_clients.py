"""Time limits for slow and stalled clients, and a cap on open connections.

uvicorn times out a keep-alive connection between requests, but not a request that is being
sent: a client that opens a connection and sends half a header, or a header and a few bytes of
body, and then nothing, holds a socket and a file descriptor for ever. A thousand of them took
the service offline. So:

* :class:`GuardedH11Protocol` (uvicorn's HTTP/1.1 protocol, plus): a request's headers must
  arrive within ``header_timeout_s`` of its first byte (or of the connection), else the
  connection is closed; and beyond ``max_connections`` open ones a new connection is closed at
  once, so the descriptors a stalled crowd may hold are capped;
* :class:`BodyTimeoutMiddleware`: a body must arrive within ``body_timeout_s`` in all, with no
  silence longer than ``body_idle_timeout_s``; else 408 and the connection closes.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass

import anyio
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol


@dataclass
class ConnectionLimits:
    header_timeout_s: float = 10.0
    max_connections: int = 256


#: Set by :func:`api.app.create_app` in each server process (uvicorn workers import this
#: module afresh, so the limits cannot travel as class attributes from the parent).
LIMITS = ConnectionLimits()


class GuardedH11Protocol(H11Protocol):
    """Closes a connection whose request headers stall, and any connection over the cap."""

    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > LIMITS.max_connections:
            transport.close()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.transport.is_closing():
            self._disarm()
        elif self.cycle is None or self.cycle.response_complete:
            self._arm()  # bytes of a request whose headers are not complete yet
        else:
            self._disarm()  # headers are in; the body has its own limits (middleware)

    def on_response_complete(self) -> None:
        self._disarm()  # uvicorn's keep-alive timeout takes over
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(LIMITS.header_timeout_s, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()


class BodyTimeoutError(HTTPException):
    def __init__(self, detail: str) -> None:
        super().__init__(status_code=408, detail=detail, headers={"Connection": "close"})


class BodyTimeoutMiddleware:
    """408 when a request body stalls (``idle_s``) or takes too long in all (``total_s``)."""

    def __init__(self, app: ASGIApp, total_s: float, idle_s: float) -> None:
        self.app = app
        self.total_s = total_s
        self.idle_s = idle_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        deadline = anyio.current_time() + self.total_s
        complete = False

        async def timed() -> Message:
            nonlocal complete
            if complete:
                return await receive()  # after the body: a disconnect may take as long as it likes
            left = deadline - anyio.current_time()
            wait = min(self.idle_s, left)
            if wait <= 0:
                raise BodyTimeoutError(f"request body not received within {math.ceil(self.total_s)} s")
            try:
                with anyio.fail_after(wait):
                    message = await receive()
            except TimeoutError:
                why = (
                    f"no data for {self.idle_s:g} s"
                    if wait == self.idle_s
                    else f"not received within {math.ceil(self.total_s)} s"
                )
                raise BodyTimeoutError(f"request body {why}") from None
            if message["type"] != "http.request" or not message.get("more_body", False):
                complete = True
            return message

        await self.app(scope, timed, send)
