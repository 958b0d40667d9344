"""`rummi watch SOURCE`: a camera over the table finds each turn by itself and referees it.

    rummi watch 0 --players Ann,Bob,Cy --preset pl_wikipedia_tournament       # the first camera
    rummi watch game.mp4 --players Ann,Bob --opened Ann,Bob --json            # one event per line
    rummi watch rtsp://10.0.0.5/stream --game 12 --draw annotated.mp4        # record into game 12

SOURCE is whatever OpenCV's VideoCapture opens: a camera index, a video file or a stream URL.
Each turn is printed as it happens; with ``--json`` every event is one JSON object per line,
``{"event": "settled"|"disturbed"|"turn"|"uncertain", "time": seconds into the source, ...}``
(docs/watch.md has every field). A player who draws changes nothing the camera can see: type
``d`` and Enter (when stdin is a terminal), or give the draws' times with ``--drew-at``. ``q``
and Enter stops. A camera or stream is read at its own pace and frames the reader has no time
for are skipped; a video file is read frame by frame (``--paced``: at its own speed, as a camera).
Exit codes: 0 watched to the end, 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Any

from rummi.api.commands._common import add_rules_arguments, rules_from_args
from rummi.engine.errors import RummiError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "watch", help="watch a whole game through a camera: find each turn and referee it",
        description=__doc__.splitlines()[0],
    )
    parser.add_argument("source", metavar="SOURCE", help="camera index (0), video file, or stream URL")
    parser.add_argument("--players", help="names in seating order, comma separated: Ann,Bob,Cy")
    add_rules_arguments(parser)
    parser.add_argument("--opened", default="", help="players who made their opening before watching began")
    parser.add_argument("--first", help="who plays the first turn watched (default: the first player)")
    parser.add_argument("--game", type=int, help="record every turn into this stored game (players and "
                        "rules come from its record)")
    parser.add_argument("--db", help="database URL for --game (default $RUMMI_DATABASE_URL, else games.db in the user's data folder)")
    parser.add_argument("--json", action="store_true", help="one JSON object per event, one per line")
    parser.add_argument("--draw", type=Path, metavar="OUT.mp4", help="write the video with tiles outlined and verdicts shown")
    parser.add_argument("--drew-at", type=float, action="append", default=[], metavar="SECONDS",
                        help="the player whose turn it is drew at this time into the source (repeatable)")
    parser.add_argument("--paced", action="store_true", help="play a video file at its own speed, as a camera")
    parser.add_argument("--settle", type=float, default=None, metavar="SECONDS",
                        help="how long the table must stay still before a reading counts (default 0.5)")
    parser.add_argument("--no-amend", action="store_true",
                        help="every settled change is a turn of its own (where two players in a row sit on one "
                        "side of the table); by default a change by the same hand after a pause amends the turn")
    parser.add_argument("--models", type=Path, default=None, help="folder with tile-finder/ and tile-reader/")
    parser.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from rummi.vision.watch.sources import FrameSource

    players, rules, opened, first, record = _game_setup(args)
    if any(t < 0 for t in args.drew_at):
        raise RummiError("--drew-at takes seconds into the source (0 or more)")
    source = FrameSource(args.source, paced=args.paced)
    try:
        return _watch(args, source, players, rules, opened, first, record)
    finally:
        source.close()
        if record is not None:
            record.close()


def _watch(args: argparse.Namespace, source: Any, players: tuple[str, ...], rules: Any, opened: list[str],
           first: str | None, record: _GameRecorder | None) -> int:
    from rummi.datasets.progress import Progress
    from rummi.vision.scanner import Scanner
    from rummi.vision.watch import TurnTracker, WatchSettings
    from rummi.vision.watch.drawing import WatchVideo

    scanner = Scanner.load(args.models)
    settings = WatchSettings(amend_same_side=not args.no_amend,
                             **({} if args.settle is None else {"settle_seconds": args.settle}))
    tracker = TurnTracker(
        scanner, players, rules, opened=opened, first_player=first,
        settings=settings, on_turn=record.add if record is not None else None, clock=time.perf_counter,
    )
    keys = _Keys() if sys.stdin is not None and sys.stdin.isatty() else None
    draws = sorted(args.drew_at)
    video = None
    show_progress = source.frame_count is not None and not source.paced
    progress = Progress(source.frame_count or 0, f"watching {Path(args.source).name}", enabled=show_progress)
    started = time.perf_counter()
    last_index = -1
    last_time = 0.0
    turns = 0
    try:
        with progress:
            for frame in source.frames():
                if video is None and args.draw is not None:
                    video = WatchVideo(args.draw, frame.image.shape[1], frame.image.shape[0], source.fps or 10.0)
                events = []
                while draws and draws[0] <= frame.time:
                    events += _draw(tracker, draws.pop(0))
                if keys is not None:
                    key = keys.take()
                    if key == "q":
                        break
                    if key == "d":
                        events += _draw(tracker, frame.time)
                events += tracker.process(frame.image, frame.time)
                for event in events:
                    turns += event.is_turn and "amends" not in event.data  # an amended turn is the same turn
                    _show(event, args.json)
                if video is not None:
                    video.write(frame.image, tracker, frame.time)
                progress.advance(frame.index - last_index)
                last_index, last_time = frame.index, frame.time
            for at in draws:  # draws given after the last frame still count
                for event in _draw(tracker, max(at, last_time)):
                    turns += 1
                    _show(event, args.json)
    finally:
        if video is not None:
            video.close()  # a watch stopped with Ctrl-C still leaves a playable video
    elapsed = time.perf_counter() - started
    counters = tracker.counters
    print(
        f"rummi watch: {last_time:.1f} s of {args.source}: {counters.frames} frames processed"
        f" ({source.skipped} skipped), {counters.scans} scans, {turns} turns; "
        f"{counters.frames / elapsed if elapsed else 0:.1f} frames/s",
        file=sys.stderr,
    )
    return 0


def _draw(tracker: Any, at: float) -> list[Any]:
    """The operator's draw as a turn event; before any table was read, a note and no turn."""
    try:
        return [tracker.record_draw(at)]
    except RummiError as error:
        print(f"rummi watch: draw at {at:.1f} s not recorded: {error}", file=sys.stderr)
        return []


def _show(event: Any, as_json: bool) -> None:
    if as_json:
        print(json.dumps(event.to_json(), ensure_ascii=False), flush=True)
        return
    text = describe_event(event.to_json())
    if text:
        print(text, flush=True)


def describe_event(data: dict[str, Any]) -> str | None:
    """An event for a person (None for the ones only a program needs: plain hand passes)."""
    at = f"{data['time']:7.1f} s  "
    kind = data["event"]
    if kind == "settled":
        if data.get("first"):
            return at + f"table seen: {data['tiles']} tiles, {_table_text(data['table'])}"
        if data.get("restored"):
            return at + "table put back as it was before the illegal turn"
        return None
    if kind == "disturbed":
        return at + f"tiles hidden ({data['lost']} tiles out of sight): waiting" if data["reason"] == "tiles hidden" else None
    verdict = data.get("verdict")
    # A turn recorded in a stored game goes by the game's own number (the game may have had
    # turns before this watch began); the tracker's count otherwise.
    number = data.get("game_turn", data["number"])
    head = at + f"turn {number}, {data['player']}" + (" (went on: amended)" if "amends" in data else "")
    if data.get("drew"):
        head += f" drew ({data['seconds']:g} s)"
    else:
        head += f" ({data['seconds']:g} s): played {' '.join(data.get('played') or []) or 'nothing'}"
    if verdict is None:
        return head + f"\n           uncertain: {data.get('reason')}"
    lines = [head + f" -> {verdict['status']}"]
    for violation in verdict["violations"]:
        lines.append(f"           - {violation['message']} [{violation['code']}]")
    if kind == "uncertain":
        unsure = ", ".join(f"{d['tile']} ({d['where']})" for d in data.get("depends_on", []))
        lines.append(f"           undecided: check {unsure} before any penalty")
    elif verdict["violations"]:
        lines.append(f"           consequence: {verdict['consequence']['text']}")
    if data.get("recorded") is False:
        lines.append(f"           not recorded in the game: {data.get('record_error')}")
    return "\n".join(lines)


def _table_text(table: list[list[str]]) -> str:
    return " | ".join(" ".join(s) for s in table) or "(empty table)"


class _Keys:
    """Lines typed on the terminal while watching: 'd' records a draw, 'q' stops."""

    def __init__(self) -> None:
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, name="watch-keys", daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            self._lines.put(line.strip().lower())

    def take(self) -> str | None:
        try:
            return self._lines.get_nowait()
        except queue.Empty:
            return None


class _GameRecorder:
    """Writes each judged turn into a stored game through the service's own
    :class:`api.watch_records.WatchedGameRecorder` (the game's lock; an amend replaces only the
    turn this watch recorded, and only while it is the game's last and its player's)."""

    def __init__(self, store: Any, game_id: int) -> None:
        from rummi.api.errors import GameNotFoundError
        from rummi.api.game_records import GameRecords
        from rummi.api.watch_records import WatchedGameRecorder

        self.records = GameRecords(store)
        self.game_id = game_id
        try:
            self.game = self.records.load(game_id)
        except GameNotFoundError as error:
            raise RummiError(f"{error} in the database (--db)") from None
        self._recorder = WatchedGameRecorder(self.records, game_id, self.game.edition)

    def add(self, event: Any) -> None:
        self._recorder.add(event)

    def close(self) -> None:
        self.records.close()


def _game_setup(args: argparse.Namespace) -> tuple[tuple[str, ...], Any, list[str], str | None, _GameRecorder | None]:
    """Players, rules, who opened and who plays first: from the arguments, or from ``--game``."""
    opened = [p.strip() for p in args.opened.split(",") if p.strip()]
    named = tuple(p.strip() for p in (args.players or "").split(",") if p.strip())
    if args.game is None:
        if len(named) < 2:
            raise RummiError("give the players in seating order: --players Ann,Bob,Cy (or --game ID)")
        return named, rules_from_args(args), opened, args.first, None
    from rummi.api.storage import GameStore

    if opened:
        raise RummiError("--opened cannot be used with --game: the game's record says who has opened")
    store = GameStore.open(args.db)
    try:
        record = _GameRecorder(store, args.game)
    except Exception:
        store.close()
        raise
    game = record.game
    if game.finished:
        record.close()
        raise RummiError(f"game {args.game} is over; start a new one")
    if named and named != game.players:
        record.close()
        raise RummiError(f"game {args.game} is played by {', '.join(game.players)}, not {', '.join(named)}")
    opened = [p for p in game.players if game.has_opened(p)]
    return game.players, game.preset, opened, args.first or game.next_player, record
