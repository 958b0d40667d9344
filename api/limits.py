"""Request body limits, enforced while the body streams in.

A declared ``Content-Length`` over the limit is refused before a byte is read; a body sent
without one (chunked) is counted as it arrives and refused the moment it passes the limit, so
an oversized upload never fills memory or the disk. JSON routes get the small limit, the routes
that take a photo the large one. The refusal is a 413 with a JSON ``detail`` like every other
error of the service.

(Starlette's own ``max_body_size`` does the counting too, but answers in plain text.)
"""

from __future__ import annotations

from collections.abc import Mapping

from rummi.api.asgi_answers import send_json
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLargeError(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(status_code=413, detail=f"request body larger than the limit of {limit} bytes")


class BodyLimitMiddleware:
    """``default`` bytes for every request, ``per_path`` for the paths named there."""

    def __init__(self, app: ASGIApp, default: int, per_path: Mapping[str, int]) -> None:
        self.app = app
        self.default = default
        self.per_path = dict(per_path)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.per_path.get(scope["path"].rstrip("/"), self.default)
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _refuse(send, limit)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    # Raised inside the route's body parsing; FastAPI passes HTTPExceptions on
                    # to the error handlers, which answer 413.
                    raise BodyTooLargeError(limit)
            return message

        await self.app(scope, counted, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(send: Send, limit: int) -> None:
    detail = f"request body larger than the limit of {limit} bytes"
    await send_json(send, 413, {"detail": detail}, [(b"connection", b"close")])
