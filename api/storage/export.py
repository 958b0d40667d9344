"""A game record as files people keep: the whole record as JSON, the scores as a CSV sheet.

The CSV is the paper score sheet: one row per game, one column per player, then the totals
(and games won, where the preset decides the match by that), as :class:`engine.scoring.ScoreSheet`
computes them.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence

from rummi.engine.game import Game, score_sheet
from rummi.engine.rules import MatchEnd

#: Bumped when the JSON layout changes in a way a reader must know about. Version 2 writes
#: tables and racks in the JSON form (lists of tiles); version 1 wrote notation text, and is
#: still read.
EXPORT_FORMAT = "rummi-game/2"
READABLE_FORMATS = ("rummi-game/1", EXPORT_FORMAT)


def game_to_json(game: Game) -> str:
    """The complete record: players, rules, every turn's tables and verdict, the ending."""
    payload = {"format": EXPORT_FORMAT, **game.to_dict()}
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


def game_from_json(text: str) -> Game:
    """Read back what :func:`game_to_json` wrote."""
    data = json.loads(text)
    found = data.get("format") if isinstance(data, dict) else type(data).__name__
    if found not in READABLE_FORMATS:
        raise ValueError(f"not a {EXPORT_FORMAT} export (format {found!r})")
    return Game.from_dict(data)


def _cell(text: str) -> str:
    """A player's name as a spreadsheet shows it: never run as a formula (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def score_sheet_csv(games: Sequence[Game]) -> str:
    """The score sheet of finished games with the same players, as CSV text."""
    sheet = score_sheet(games)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["game", "started_at", "ending", "winner", *map(_cell, sheet.players)])
    for game in games:
        assert game.ending is not None  # score_sheet() refused unfinished games
        writer.writerow(
            [
                game.id if game.id is not None else "",
                game.started_at or "",
                game.ending.end.value,
                _cell(game.ending.winner),
                *(game.ending.scores[p] for p in sheet.players),
            ]
        )
    writer.writerow(["total", "", "", _cell(sheet.match_winner or ""), *sheet.totals.values()])
    if sheet.rules.match_end is MatchEnd.MOST_GAMES_WON:
        writer.writerow(["games won", "", "", "", *sheet.games_won.values()])
    return out.getvalue()
