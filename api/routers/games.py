"""Games on record: create one, record its turns (each judged by the referee), score its end,
and put several games on one running score sheet. Storage is :mod:`api.storage`; the database
work runs in worker threads so it never blocks the event loop.
"""

from __future__ import annotations

from functools import partial
from typing import Annotated

import anyio.to_thread
from fastapi import APIRouter, Header, Path, Query, Request, Response
from pydantic import Field
from rummi.api.access import Access, join_code_of
from rummi.api.deps import AccessDep, GamesDep
from rummi.api.errors import FieldError
from rummi.api.schemas import (
    ERRORS,
    GameCreate,
    GameEndIn,
    GameOut,
    GameSummaryOut,
    ScoreSheetOut,
    TurnIn,
    TurnOut,
    parse_field_racks,
    parse_field_sets,
    parse_field_tiles,
)
from rummi.api.storage import StoredGame
from rummi.engine.errors import RummiError
from rummi.engine.game import Game, Turn
from rummi.engine.notation import sets_to_json

router = APIRouter(
    prefix="/games", tags=["games"], responses={**ERRORS, 404: {"description": "No such game."}}
)

#: Game ids are database integers; anything larger cannot name a game.
MAX_ID = 2**63 - 1
GameId = Annotated[int, Path(ge=1, le=MAX_ID, description="The game's id.")]


#: An Idempotency-Key as clients make them (a UUID, a counter, a hash): short printable text.
IdempotencyKey = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=200,
        pattern=r"^[\x21-\x7e]+$",
        description="Any unique text per turn (a UUID): a retry with the same key gets the first "
        "answer back instead of recording the turn twice.",
    ),
]


def game_out(record: StoredGame, access: Access, *, with_codes: bool = True) -> GameOut:
    """The game record; the join codes only for the organiser (``with_codes``): a phone that
    read the others' codes could post as any player."""
    game = record.game
    data = game.to_dict()
    with_codes = with_codes and game.id is not None
    return GameOut(
        **data,
        finished=game.finished,
        next_player=game.next_player,
        table=sets_to_json(game.table),
        enforce_order=record.enforce_order,
        join_code=access.join_code(game.id) if with_codes else None,
        player_codes=access.player_codes(game.id, game.players) if with_codes else None,
    )


@router.post("", response_model=GameOut, status_code=201, summary="Start a game")
async def create_game(request: GameCreate, games: GamesDep, access: AccessDep) -> GameOut:
    rules = request.rules.resolve()
    try:
        game = Game(players=tuple(request.players), rules=rules)
    except RummiError as error:
        raise FieldError("players", error) from None
    stored = await anyio.to_thread.run_sync(partial(games.create, game, enforce_order=request.enforce_order))
    return game_out(stored, access)


@router.get("", response_model=list[GameSummaryOut], summary="Games on record")
async def list_games(games: GamesDep) -> list[GameSummaryOut]:
    summaries = await anyio.to_thread.run_sync(games.list)
    return [
        GameSummaryOut(
            id=s.id,
            started_at=s.started_at,
            players=list(s.players),
            preset=s.preset,
            turns=s.turns,
            finished=s.finished,
        )
        for s in summaries
    ]


@router.get("/sheet", response_model=ScoreSheetOut, summary="The running score sheet of several games")
async def sheet(
    game_ids: Annotated[
        list[Annotated[int, Field(ge=1, le=MAX_ID)]], Query(alias="games", min_length=1, max_length=100)
    ],
    games: GamesDep,
) -> ScoreSheetOut:
    result = await anyio.to_thread.run_sync(games.sheet, game_ids)
    return ScoreSheetOut(**result.to_dict())


@router.get("/{game_id}", response_model=GameOut, summary="One game's whole record")
async def get_game(game_id: GameId, games: GamesDep, access: AccessDep, http: Request) -> GameOut:
    record = await anyio.to_thread.run_sync(games.load_record, game_id)
    return game_out(record, access, with_codes=join_code_of(http) is None)


@router.post(
    "/{game_id}/turns",
    response_model=TurnOut,
    summary="Judge and record the next turn",
    responses={
        403: {"description": "A player's join code posting another player's turn."},
        409: {"description": "Another service process recorded a turn meanwhile: retry."},
        422: {"description": "Malformed notation, or (a game that enforces its order) not this player's turn."},
    },
)
async def play_turn(
    game_id: GameId,
    request: TurnIn,
    games: GamesDep,
    access: AccessDep,
    response: Response,
    http: Request,
    idempotency_key: IdempotencyKey = None,
) -> TurnOut:
    edition = await anyio.to_thread.run_sync(games.edition_of, game_id)
    join = join_code_of(http)

    def record() -> tuple[StoredGame, Turn, bool]:
        return games.play(
            game_id,
            parse_field_sets("after", request.after, edition),
            player=request.player,
            before=None if request.before is None else parse_field_sets("before", request.before, edition),
            rack=None if request.rack is None else parse_field_tiles("rack", request.rack, edition),
            drew=request.drew,
            seconds=request.seconds,
            uncertain=[spot.spot() for spot in request.uncertain],
            request_key=idempotency_key,
            seat=None if join is None else join.seat,
        )

    game, turn, replayed = await anyio.to_thread.run_sync(record)
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return TurnOut(game=game_out(game, access, with_codes=join is None), turn=turn.to_dict())


@router.post("/{game_id}/end", response_model=GameOut, summary="Score the end of the game")
async def end_game(game_id: GameId, request: GameEndIn, games: GamesDep, access: AccessDep) -> GameOut:
    edition = await anyio.to_thread.run_sync(games.edition_of, game_id)
    racks = parse_field_racks(request.racks, edition)

    def finish() -> StoredGame:
        return games.finish(
            game_id,
            racks,
            winner=request.winner,
            bank_empty=request.bank_empty,
            # Not given: the engine decides who could have opened (the never-opened penalty);
            # given, even empty ("everyone opened"), it is what the players say.
            not_opened=request.not_opened,
        )

    return game_out(await anyio.to_thread.run_sync(finish), access)
