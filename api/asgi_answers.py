"""The one way a raw ASGI middleware answers by itself: a JSON body, its length, extra headers.

The body limit, the rate limits and the access guard all refuse a request before the
application sees it, so FastAPI's error handlers never run for them; each answers through
:func:`send_json` instead of spelling out the ASGI messages again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from starlette.types import Send


async def send_json(
    send: Send, status: int, payload: dict[str, Any], headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    """Send ``payload`` as the whole JSON answer with ``status`` and any ``headers`` after the
    content type and length."""
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
