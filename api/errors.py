"""Every error becomes an HTTP answer here, and only here.

* what the user sent was wrong (:class:`engine.RummiError`): 422 when a field's content is
  (malformed notation, an impossible state, an unknown preset: :class:`FieldError`), 400 when
  the engine refuses the request as a whole (the winner still holds tiles, the game is over);
* a photo that cannot be read (:class:`vision.image_io.ImageError`): 400, 413 or 415;
* recognition models missing (:class:`vision.onnx_model.ModelError`): 503;
* a turn out of order in a game that enforces it: 422 naming whose turn it is; a player's
  join code posting another player's turn: 403;
* an unknown game: 404; a game another process changed under us: 409; the database or the
  corrections folder failing: 503 (the driver's message goes to the log, not to the client);
  too many photos waiting: 503 with Retry-After; the corrections quota used up: 507;
* anything else: 500 with a short message and no traceback (the traceback goes to the log).

Every answer is JSON with a ``detail`` string a person can read, as FastAPI's own errors have.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from rummi.api.storage import DatabaseFailureError
from rummi.engine.errors import ImpossibleStateError, NotationError, RummiError
from rummi.vision.image_io import ImageError
from rummi.vision.onnx_model import ModelError
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("rummi.api")


class GameNotFoundError(LookupError):
    """A game id that the storage does not hold."""

    def __init__(self, game_id: object) -> None:
        self.game_id = game_id
        super().__init__(f"no game with id {game_id}")


class GameConflictError(RummiError):
    """The game changed between reading it and writing to it (another process wrote first)."""

    def __init__(self, game_id: object, reason: str) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id} changed meanwhile ({reason}); load it again and retry")


class TurnNotAmendableError(GameConflictError):
    """A watched turn asked to be judged again when it is no longer the game's last (or not the
    asker's): 409 like any conflict, but no retry can succeed, so it does not say "retry"."""

    def __init__(self, game_id: object, number: int, player: str, last: str) -> None:
        self.game_id = game_id
        RummiError.__init__(
            self,
            f"game {game_id}: turn {number} by {player} is not the game's last ({last}), "
            "so it can no longer be amended; nothing was changed",
        )


class OutOfTurnError(RummiError):
    """A turn by anyone but the next player, in a game that enforces its order: 422, nothing
    recorded. Not a 409: retrying the same request can never succeed (it is someone else's
    turn), and a client that retries 409s by itself must not loop on it."""

    def __init__(self, game_id: object, player: str, next_player: str, number: int) -> None:
        self.next_player = next_player
        super().__init__(
            f"game {game_id}: turn {number} is {next_player}'s, not {player}'s "
            "(this game enforces the turn order); nothing was recorded"
        )


class NotYourSeatError(RummiError):
    """A player's join code used to post another player's turn: 403."""

    def __init__(self, holder: str, player: str) -> None:
        super().__init__(f"this join code is {holder}'s; it cannot post a turn for {player}")


class FieldError(RummiError):
    """A request field whose content the engine refused; names the field."""

    def __init__(self, field: str, error: RummiError) -> None:
        self.field = field
        self.error = error
        super().__init__(f"{field}: {error}")


class UnsupportedMediaError(RummiError):
    """An upload that is not a photo by its declared content type."""


class CorrectionsUnavailableError(RummiError):
    """The corrections folder cannot be written or read (full disk, no permission, a damaged
    manifest): the service's trouble, answered 503, never the user's request."""


class ScansBusyError(Exception):
    """More photos wait for the scan workers than ``max_queued_scans``: 503 with Retry-After."""

    def __init__(self, waiting: int) -> None:
        super().__init__(f"{waiting} photos are already waiting to be read; try again in a moment")


class CorrectionsFullError(RummiError):
    """The corrections folder holds its quota of photos or bytes: answered 507."""


def _status_for_rummi_error(error: RummiError) -> int:
    if isinstance(error, CorrectionsFullError):
        return 507
    if isinstance(error, NotYourSeatError):
        return 403
    if isinstance(error, OutOfTurnError):
        return 422
    if isinstance(error, (DatabaseFailureError, CorrectionsUnavailableError)):
        return 503
    return 422 if isinstance(error, (FieldError, NotationError, ImpossibleStateError)) else 400


async def _rummi_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RummiError)
    if isinstance(error, DatabaseFailureError):
        # The driver's words (host names, SQL, constraint names) stay in the log.
        log.error("database failure on %s %s: %s", request.method, request.url.path, error)
        return JSONResponse(
            {"detail": "the database is unavailable; try again later", "error": "DatabaseUnavailable"},
            status_code=503,
            headers={"Retry-After": "5"},
        )
    if isinstance(error, CorrectionsUnavailableError):
        log.error("corrections unavailable: %s", error)
        return JSONResponse(
            {"detail": "corrections cannot be saved now (see the service's log)", "error": type(error).__name__},
            status_code=503,
        )
    body: dict[str, object] = {"detail": str(error), "error": type(error).__name__}
    if isinstance(error, OutOfTurnError):
        body["next_player"] = error.next_player
    if isinstance(error, FieldError):
        body["field"] = error.field
        body["error"] = type(error.error).__name__
        inner = error.error
        if isinstance(inner, NotationError) and inner.position is not None:
            body["position"] = inner.position
    return JSONResponse(body, status_code=_status_for_rummi_error(error))


async def _game_not_found(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error), "error": "GameNotFound"}, status_code=404)


async def _game_conflict(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error), "error": "GameConflict"}, status_code=409)


async def _http_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, StarletteHTTPException)
    return JSONResponse({"detail": error.detail}, status_code=error.status_code, headers=error.headers)


async def _validation_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
        problems.append({"field": where, "message": item.get("msg", "invalid")})
    summary = "; ".join(f"{p['field']}: {p['message']}" if p["field"] else p["message"] for p in problems)
    return JSONResponse({"detail": summary or "invalid request", "problems": problems}, status_code=422)


async def _scans_busy(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse({"detail": str(error), "error": "ScansBusy"}, status_code=503, headers={"Retry-After": "2"})


async def _unexpected(request: Request, error: Exception) -> JSONResponse:
    log.exception("unexpected error on %s %s", request.method, request.url.path, exc_info=error)
    return JSONResponse(
        {"detail": "internal error: the service could not answer this request (logged)"}, status_code=500
    )


def install_error_handlers(app: FastAPI) -> None:
    """Register the one mapping from exceptions to HTTP answers."""
    app.add_exception_handler(RummiError, _rummi_error)
    app.add_exception_handler(ImageError, _image_error)
    app.add_exception_handler(UnsupportedMediaError, _image_error)
    app.add_exception_handler(ModelError, _models_missing)
    app.add_exception_handler(GameNotFoundError, _game_not_found)
    app.add_exception_handler(GameConflictError, _game_conflict)
    app.add_exception_handler(ScansBusyError, _scans_busy)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(Exception, _unexpected)


def image_error_status(error: Exception) -> int:
    """413 for a photo too large to take, 415 for what is not a photo, 400 for a damaged one.

    :class:`ImageError` carries no kind, so its message decides; the API tests pin every case,
    so a reworded message shows up there.
    """
    if isinstance(error, UnsupportedMediaError):
        return 415
    message = str(error)
    if "too large" in message or "megapixels" in message:
        return 413
    if "not an image" in message:
        return 415
    return 400


async def _image_error(request: Request, error: Exception) -> JSONResponse:
    return JSONResponse(
        {"detail": str(error), "error": type(error).__name__}, status_code=image_error_status(error)
    )


async def _models_missing(request: Request, error: Exception) -> JSONResponse:
    log.error("scanner models unavailable: %s", error)
    return JSONResponse(
        {"detail": f"photo reading is not available: {error}", "error": "ModelError"}, status_code=503
    )
