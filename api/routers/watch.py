"""Automatic refereeing from a camera: post the frames, get the turns and verdicts as they happen.

The page (or any client) starts a session for a table, then posts camera frames to
``POST /watch/frame?session=ID``; each answer carries the events the frame caused
(``settled``, ``disturbed``, ``turn``, ``uncertain``: the same objects as
`rummi watch --json`) and the table's state. The tracker behind it is the one the command line
uses (:class:`vision.watch.TurnTracker`), kept per session in memory
(:mod:`api.watch_sessions`). A session started with a ``game`` records every turn into that
stored game. docs/watch.md describes every field.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any, NoReturn

import anyio.to_thread
from fastapi import APIRouter, File, Path, Query, Request, UploadFile
from pydantic import Field
from rummi.api.access import join_code_of
from rummi.api.deps import GamesDep, InferenceDep, SettingsDep
from rummi.api.errors import FieldError, UnsupportedMediaError
from rummi.api.routers.photos import PHOTO_ERRORS, PHOTO_TYPES, decode_for_scan
from rummi.api.schemas import ERRORS, Model, PlayerName, RulesChoice
from rummi.api.watch_records import WatchedGameGoneError, WatchedGameRecorder
from rummi.api.watch_sessions import (
    STALE_SECONDS,
    WatchSession,
    WatchSessionNotFoundError,
    WatchSessions,
    WatchSessionsFullError,
    check_time,
)
from rummi.engine.errors import RummiError
from rummi.engine.rules import get_rules
from starlette.exceptions import HTTPException

log = logging.getLogger("rummi.api")
router = APIRouter(prefix="/watch", tags=["watch"], responses={**ERRORS, 404: {"description": "No such session."}})
#: Paths (under the API prefix) whose body may be as large as ``max_upload_bytes``.
UPLOAD_PATHS = ("/watch/frame",)

SessionId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[0-9a-f]+$", description="The session's id.")]


class WatchCreate(Model):
    players: list[PlayerName] | None = Field(default=None, min_length=2, max_length=8,
                                             description="Names in seating order (not with `game`).")
    rules: RulesChoice = Field(default_factory=RulesChoice)
    opened: list[PlayerName] = Field(default_factory=list, max_length=8,
                                     description="Players who made their opening before watching began.")
    first: PlayerName | None = Field(default=None, description="Who plays the first watched turn.")
    game: int | None = Field(default=None, ge=1, le=2**63 - 1,
                             description="Record every turn into this stored game (players and rules come from it).")
    amend_pauses: bool = Field(default=True, description="A change by the same player's hand soon after their "
                               "turn settled amends that turn (a pause mid-turn). Off where two players in a "
                               "row sit at one side of the table: every settled change is then a turn.")


class WatchState(Model):
    session: str
    players: list[str]
    rules: str
    game: int | None
    amend_pauses: bool
    state: str = Field(description="starting, settled, disturbed or settling.")
    next_player: str
    turns: int
    turn_started: float | None = Field(description="When the next player's time began (seconds since the session "
                                      "started): the clock of the turn in progress counts from here.")
    table: list[list[str]] = Field(description="The settled table as last read, set by set.")


class FrameAnswer(WatchState):
    processed: bool = Field(description="False when the previous frame was still being read: this one was skipped.")
    time: float = Field(description="The frame's time, seconds since the session started.")
    events: list[dict[str, Any]] = Field(description="What this frame caused, oldest first.")


class SessionOut(WatchState):
    events: list[dict[str, Any]] = Field(description="Everything reported so far (the newest 500).")


def get_sessions(request: Request) -> WatchSessions:
    sessions = getattr(request.app.state, "watch_sessions", None)
    if sessions is None:
        sessions = request.app.state.watch_sessions = WatchSessions()
    return sessions


def joined_game(request: Request) -> int | None:
    """The game whose join code the caller holds; ``None`` for the organiser or an open service.

    api/access.py lets a join code through to these paths (and leaves what it is in the request's
    state); a phone that joined one game may watch that game, and only that game. A player's own
    code may not: a watch session records every player's turns, which that code must not post.
    """
    join = join_code_of(request)
    if join is None:
        return None
    if join.seat is not None:
        raise HTTPException(
            status_code=403,
            detail="a player's own join code posts that player's turns only; watching the table "
            "needs the game's join code (or the organiser's token)",
        )
    return join.game_id


def _check_join_code(request: Request, game_id: int | None) -> None:
    joined = joined_game(request)
    if joined is not None and game_id != joined:
        what = f"game {game_id}" if game_id is not None else "a table that is no stored game"
        raise HTTPException(status_code=403, detail=f"this join code is for game {joined}, not {what}")


def _session(request: Request, session_id: str) -> WatchSession:
    try:
        session = get_sessions(request).get(session_id)
    except WatchSessionNotFoundError as error:
        raise HTTPException(status_code=404, detail=str(error)) from None
    _check_join_code(request, session.game_id)
    return session


@router.post("", response_model=WatchState, status_code=201, summary="Start watching a table")
async def start(body: WatchCreate, request: Request, inference: InferenceDep, games: GamesDep) -> WatchState:
    _check_join_code(request, body.game)
    players, rules, opened, first = None, None, list(body.opened), body.first
    if body.game is not None:
        if body.players is not None or body.opened:
            raise FieldError("game", RummiError("with a game, the players and who opened come from its record"))
        game = await anyio.to_thread.run_sync(games.load, body.game)
        if game.finished:
            raise FieldError("game", RummiError(f"game {body.game} is over"))
        players, rules = game.players, game.preset
        opened = [p for p in game.players if game.has_opened(p)]
        if first is not None and first != game.next_player:
            raise FieldError("first", RummiError(f"game {body.game}'s next turn is {game.next_player}'s, not {first}'s"))
        first = game.next_player
    else:
        if body.players is None:
            raise FieldError("players", RummiError("give the players in seating order (or a game)"))
        players, rules = tuple(body.players), body.rules.resolve()

    edition = get_rules(rules).edition
    scanner = await inference.scan(inference.scanner.get)  # loads the models on first use

    record = WatchedGameRecorder(games, body.game, edition).add if body.game is not None else None

    try:
        session = get_sessions(request).create(scanner, players, rules, opened=opened, first=first,
                                               game_id=body.game, record=record, amend_pauses=body.amend_pauses)
    except RummiError as error:
        raise FieldError("players", error) from None
    except WatchSessionsFullError as error:
        raise HTTPException(status_code=503, detail=str(error), headers={"Retry-After": str(STALE_SECONDS)}) from None
    return WatchState(**session.summary())


@router.post("/frame", response_model=FrameAnswer, summary="Post one camera frame",
             description="Multipart field `frame` (a JPEG or PNG of the table). Answers at once with "
             "`processed: false` when the session is still reading the previous frame (frames are "
             "skipped, never queued).", responses=PHOTO_ERRORS)
async def frame(
    request: Request,
    frame: Annotated[UploadFile, File(description="One camera frame.")],
    inference: InferenceDep,
    settings: SettingsDep,
    session_id: Annotated[str, Query(alias="session", min_length=1, max_length=64, pattern=r"^[0-9a-f]+$")],
    at: Annotated[float | None, Query(alias="time", ge=0, le=86_400 * 7,
                                      description="Seconds since the session started (default: the server's clock).")] = None,
) -> FrameAnswer:
    session = _session(request, session_id)
    content_type = (frame.content_type or "").split(";")[0].strip().lower()
    if content_type not in PHOTO_TYPES:
        raise UnsupportedMediaError(f"the frame is {content_type or 'of no stated type'}, not a picture")
    data = await frame.read()
    when = check_time(session, at)
    if not session.busy.acquire(blocking=False):
        return FrameAnswer(**session.summary(), processed=False, time=when, events=[])
    def work() -> list[dict]:
        image = decode_for_scan(data, settings).image  # the same limits as a scan
        return [event.to_json() for event in session.tracker.process(image, when)]

    try:
        events = await inference.scan(work)
    except WatchedGameGoneError as error:
        _end_gone(request, session, error)
    finally:
        session.busy.release()
    session.keep(events)
    return FrameAnswer(**session.summary(), processed=True, time=when, events=events)


@router.post("/{session_id}/draw", response_model=FrameAnswer, summary="The player whose turn it is drew a tile")
async def draw(session_id: SessionId, request: Request,
               at: Annotated[float | None, Query(alias="time", ge=0, le=86_400 * 7)] = None) -> FrameAnswer:
    session = _session(request, session_id)
    when = check_time(session, at)

    def work() -> dict:
        with session.busy:
            return session.tracker.record_draw(when).to_json()

    try:
        event = await anyio.to_thread.run_sync(work)
    except WatchedGameGoneError as error:
        _end_gone(request, session, error)
    session.keep([event])
    return FrameAnswer(**session.summary(), processed=True, time=when, events=[event])


def _end_gone(request: Request, session: WatchSession, error: WatchedGameGoneError) -> NoReturn:
    """The game this session records into was deleted: nothing more can be recorded, so the
    session ends, and the frame (or draw) is answered 404 saying so, which stops the page."""
    log.warning("watch: %s", error)
    try:
        get_sessions(request).end(session.id)
    except WatchSessionNotFoundError:
        pass  # ended meanwhile
    raise HTTPException(status_code=404, detail=str(error))


@router.get("/{session_id}", response_model=SessionOut, summary="A session's state and every event so far")
async def show(session_id: SessionId, request: Request) -> SessionOut:
    session = _session(request, session_id)
    return SessionOut(**session.summary(), events=list(session.events))


@router.delete("/{session_id}", status_code=204, summary="Stop watching")
async def stop(session_id: SessionId, request: Request) -> None:
    _session(request, session_id)
    try:
        get_sessions(request).end(session_id)
    except WatchSessionNotFoundError as error:
        raise HTTPException(status_code=404, detail=str(error)) from None
