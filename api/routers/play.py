"""Questions about one moment of a game: is this table valid, what should I play, was that turn
legal, what does this game score. Stateless: every answer depends only on the request.

The engine answers in microseconds to milliseconds, except the solver on a crowded table, which
runs in a worker thread so it never stalls other requests.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from rummi.api.deps import InferenceDep
from rummi.api.schemas import (
    ERRORS,
    GameResultOut,
    HintOut,
    HintRequest,
    ScoreRequest,
    TableRequest,
    TableVerdictOut,
    TurnRequest,
    TurnVerdictOut,
    parse_field_racks,
    parse_field_sets,
    parse_field_tiles,
)
from rummi.engine.referee import judge_turn
from rummi.engine.scoring import score_game
from rummi.engine.solver import solve
from rummi.engine.table import validate_table

router = APIRouter(responses=ERRORS)


@router.post(
    "/table/check",
    response_model=TableVerdictOut,
    tags=["table"],
    summary="Check every set on a table",
    description="Each set is a group, a run or invalid (with the reason); the tiles are counted "
    "against the edition's box.",
)
async def check_table(request: TableRequest) -> TableVerdictOut:
    edition, _ = request.resolved()
    sets = parse_field_sets("table", request.table, edition)
    racks = parse_field_racks(request.racks, edition)
    return TableVerdictOut(**validate_table(sets, edition, racks).to_dict())


@router.post(
    "/hint",
    response_model=HintOut,
    tags=["hint"],
    summary="The best move for a rack",
    description="The play that puts the most tiles (or points) from the rack on the table, "
    "rearranging the table as the rules allow, with the whole new table; or a draw and why.",
)
async def hint(request: HintRequest, inference: InferenceDep, http: Request) -> HintOut:
    edition, rules = request.resolved()
    table = parse_field_sets("table", request.table, edition)
    rack = parse_field_tiles("rack", request.rack, edition)
    # Until the compiled kernel is ready (api/solver_warmup.py), the solver's other routes answer.
    compiled = http.app.state.warmup.ready

    def work() -> HintOut:
        answer = solve(
            table,
            rack,
            opened=request.opened,
            edition=edition,
            rules=rules,
            objective=request.objective,
            compiled=compiled,
        )
        return HintOut(**answer.to_dict())

    return await inference.quick(work)


@router.post(
    "/turns/judge",
    response_model=TurnVerdictOut,
    tags=["referee"],
    summary="Judge one turn from the table before and after it",
    description="Says which tiles were played, every rule broken with the reason and the tiles "
    "involved, and the consequence (penalty draw, table restored) under the rule preset.",
)
async def judge(request: TurnRequest, inference: InferenceDep) -> TurnVerdictOut:
    edition, rules = request.resolved()
    before = parse_field_sets("before", request.before, edition)
    after = parse_field_sets("after", request.after, edition)
    rack = parse_field_tiles("rack", request.rack, edition) if request.rack is not None else None

    def work() -> TurnVerdictOut:
        # Off the event loop: with many unsure tiles the referee tries their other readings,
        # which can take a second or two.
        verdict = judge_turn(
            before,
            after,
            opened=request.opened,
            rack=rack,
            rules=rules,
            edition=edition,
            seconds=request.seconds,
            drew=request.drew,
            uncertain=[spot.spot() for spot in request.uncertain],
        )
        return TurnVerdictOut(**verdict.to_dict())

    return await inference.quick(work)


@router.post(
    "/score",
    response_model=GameResultOut,
    tags=["score"],
    summary="Score one game from the racks left at its end",
    description="Jokers cost the preset's penalty; the winner collects what the others lose "
    "(or the preset's formula when the pool ran dry).",
)
async def score(request: ScoreRequest) -> GameResultOut:
    edition, rules = request.resolved()
    racks = parse_field_racks(request.racks, edition)
    result = score_game(
        racks, rules, winner=request.winner, bank_empty=request.bank_empty, not_opened=request.not_opened
    )
    return GameResultOut(**result.to_dict())
