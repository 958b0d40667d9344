"""Figures of `rummi watch`: turns found exactly, false turns, delay to the verdict, frames/s.

    .venv/bin/python benchmarks/watch.py                       # 6 seeded games at 1280x720, 5 fps
    .venv/bin/python benchmarks/watch.py --videos 12 --turns 10 --paced 1
    nice .venv/bin/python benchmarks/watch.py --minutes 60 --idle 0.15 --paced 0   # an hour of video
    .venv/bin/python benchmarks/watch.py --videos 8 --pauses 0.3 --paced 0   # players who pause mid-turn

``--minutes M`` watches seeded games (``--first-seed``, the next, ...) until M minutes of video
have been seen, instead of ``--videos``; ``--idle P`` makes a player think for 30 to 120 s
before a turn with chance P (long still stretches, with their own flicker and shake: where a
false turn would be invented); ``--pauses P`` makes a player lay part of a turn, take their
hands off the table for 1.5 to 5 s and go on, with chance P (still one turn: the tracker must
amend the turn it judged at the pause, not report two). A progress line after every video says how far it is; the
machine's load average is printed at the start and the end (the frame rate depends on it).

Each video is a seeded scripted game (datasets/videos.py): real tile crops from the bundled
photos on a generated table, hands over the table between turns, hands that pass without
playing, light flicker, camera shake and one knock that moves the camera for good, motion
blur, dropped frames; illegal plays (a set that is no set, a tile taken back, a turn over
time) and draws the operator records. Videos are written to a temporary folder and deleted.

The watch is the command's own pipeline (FrameSource -> TurnTracker -> Scanner), in process:

* **turns found exactly**: player, tiles played, verdict status and violation codes all right;
* **false turns per hour** of video: reported turns no true turn explains;
* **delay**: from the moment the table is still again (the truth) to the verdict, in seconds of
  video, plus the wall time the frame that gave the verdict took to process;
* **frames per second** processed at the video's size, reading every frame as fast as the
  machine goes (decoding included); and, for ``--paced N`` videos played at their own speed as
  a camera, the share of frames skipped and the wall-clock delay to the verdict.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rummi.datasets.videos import render_video, sample_tile_bank, score_watch, script_game  # noqa: E402
from rummi.vision.scanner import Scanner  # noqa: E402
from rummi.vision.watch import TurnTracker  # noqa: E402
from rummi.vision.watch.sources import FrameSource  # noqa: E402

TARGETS = {"exact": 0.98, "false_per_hour": 1.0, "delay_s": 2.0, "fps": 4.0}


def watch(scanner: Scanner, video, paced: bool) -> dict:
    """Play one video through the tracker; events as JSON, timings."""
    script = video.script
    tracker = TurnTracker(scanner, script.players, script.rules(),
                          opened=script.opened, clock=time.perf_counter)
    draws = sorted(video.draws)
    events, frame_seconds, verdict_walls = [], [], []
    started = time.perf_counter()
    with FrameSource(str(video.path), paced=paced) as source:
        for frame in source.frames():
            begun = time.perf_counter()
            new = []
            while draws and draws[0] <= frame.time:
                new.append(tracker.record_draw(draws.pop(0)))
            new += tracker.process(frame.image, frame.time)
            done = time.perf_counter()
            frame_seconds.append(done - begun)
            for event in new:
                data = event.to_json()
                events.append(data)
                if event.is_turn and not data.get("drew"):
                    verdict_walls.append((data, done - begun, done - started))
        skipped = source.skipped
    wall = time.perf_counter() - started
    return {"events": events, "frames": tracker.counters.frames, "skipped": skipped, "wall": wall,
            "frame_seconds": frame_seconds, "verdicts": verdict_walls, "scans": tracker.counters.scans}


def _load() -> str:
    try:
        return " ".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--videos", type=int, default=6, help="seeded games to watch (default 6)")
    parser.add_argument("--first-seed", type=int, default=100)
    parser.add_argument("--turns", type=int, default=10, help="turns per game (default 10)")
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--fps", type=float, default=5.0, help="frame rate of the videos (default 5)")
    parser.add_argument("--paced", type=int, default=1, help="of these, how many also play in real time (default 1)")
    parser.add_argument("--minutes", type=float, default=None,
                        help="watch games until this many minutes of video (instead of --videos)")
    parser.add_argument("--idle", type=float, default=0.0,
                        help="chance of a long think (30-120 s of still table) before a turn (default 0)")
    parser.add_argument("--pauses", type=float, default=0.0,
                        help="chance that a player makes a turn in two parts, pausing between (default 0)")
    parser.add_argument("--no-set-rules", action="store_true",
                        help="an unsure tile that breaks its set left as read (the scanner before "
                             "vision/set_rules.py, to compare)")
    args = parser.parse_args()
    if (args.minutes is not None and args.minutes <= 0 or not 0 <= args.idle <= 1 or args.videos < 1
            or not 0 <= args.pauses <= 1):
        parser.error("--minutes must be positive, --idle and --pauses between 0 and 1, --videos 1 or more")
    width, height = (int(v) for v in args.size.lower().split("x"))

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"load average {_load()}", flush=True)
    began = time.monotonic()
    scanner = Scanner.load()
    scanner.set_rules = not args.no_set_rules
    bank = sample_tile_bank()
    exact = turns = false = paused = overturned = overturned_illegal = 0
    hours = 0.0
    delays, verdict_frames, frame_times, busy, paced_runs = [], [], [], [], []
    failures = []
    slowest: list[tuple[float, int, int]] = []  # (delay, seed, turn)
    with tempfile.TemporaryDirectory(prefix="rummi-watch-bench-") as folder:
        n = 0
        while (hours * 60 < args.minutes) if args.minutes is not None else (n < args.videos):
            seed = args.first_seed + n
            script = script_game(seed, turns=args.turns, bank=bank, idle=args.idle, pauses=args.pauses)
            video = render_video(script, Path(folder) / f"game-{seed}.avi", seed=seed, size=(width, height),
                                 fps=args.fps, bank=bank)
            run = watch(scanner, video, paced=False)
            score = score_watch(run["events"], video.turns)
            exact += len(score.exact)
            turns += score.turns
            false += len(score.false)
            overturned += len(score.overturned)
            overturned_illegal += sum((shown.get("verdict") or {}).get("status") == "illegal"
                                      for shown, _ in score.overturned)
            hours += video.seconds / 3600
            paused += video.effects["pause"]
            frame_times += run["frame_seconds"]
            busy += [s for s in run["frame_seconds"] if s > 0.05]
            delays += score.delays
            slowest += [(delay, seed, number) for number, delay in score.delayed]
            verdict_frames += [spent for _, spent, _ in run["verdicts"]]
            failures += [f"seed {seed} turn {number}: {why}" for number, why in score.wrong]
            failures += [f"seed {seed} turn {number}: missed" for number in score.missed]
            failures += [f"seed {seed}: false turn at {e['time']} s ({e['player']}, {e.get('played')})"
                         for e in score.false]
            print(f"seed {seed}: {video.seconds:5.1f} s, {len(video.turns)} turns, {len(score.exact)} exact, "
                  f"{len(score.false)} false; {run['frames'] / run['wall']:.1f} frames/s, {run['scans']} scans; "
                  f"effects {dict(video.effects)}, {video.passes} passing hands", flush=True)
            if n < args.paced:
                live = watch(scanner, video, paced=True)
                live_score = score_watch(live["events"], video.turns)
                walls = []
                for data, _, at in live["verdicts"]:
                    near = min(video.turns, key=lambda t: abs(t.settled_at - data["settled_at"]))
                    walls.append(at - near.settled_at)
                paced_runs.append((seed, live, live_score, walls))
                print(f"  paced: {live['frames']} frames processed, {live['skipped']} skipped; "
                      f"{len(live_score.exact)}/{live_score.turns} exact; verdict after "
                      f"{max(walls) if walls else float('nan'):.2f} s at worst (wall clock)", flush=True)
            video.path.unlink()  # an hour of 1280x720 video would fill the disk
            n += 1
            goal = f"{args.minutes:g} min" if args.minutes is not None else f"{args.videos} videos"
            print(f"  progress: {n} videos, {hours * 60:.1f} min of video of {goal}; {turns} turns, "
                  f"{exact} exact, {false} false; {(time.monotonic() - began) / 60:.1f} min elapsed, "
                  f"load {_load()}", flush=True)

    fps = len(frame_times) / sum(frame_times)
    share = exact / turns if turns else 0.0
    per_hour = false / hours if hours else 0.0
    median_delay = statistics.median(delays) if delays else float("nan")
    worst_delay = max(delays) if delays else float("nan")
    print()
    print(f"load average at the end: {_load()}")
    print(f"{n} videos (seeds {args.first_seed}-{args.first_seed + n - 1}, idle {args.idle:g}, pauses {args.pauses:g}), "
          f"{hours * 60:.1f} min of video at {width}x{height}, {args.fps:g} fps, {turns} turns ({paused} made in two parts)")
    print("| | measured | target |")
    print("|---|---|---|")
    print(f"| turns found exactly | {exact}/{turns} = {share:.1%} | >= {TARGETS['exact']:.0%} |")
    print(f"| false turns | {false} in {hours:.2f} h = {per_hour:.1f} per hour | <= {TARGETS['false_per_hour']:g} per hour |")
    print(f"| verdicts shown at a pause, then overturned by the amend | {overturned} "
          f"({overturned_illegal} shown ILLEGAL) | |")
    print(f"| delay, table still -> verdict (video time) | median {median_delay:.2f} s, worst {worst_delay:.2f} s "
          f"| <= {TARGETS['delay_s']:g} s |")
    if verdict_frames:
        print(f"| processing of the frame that gives the verdict | median {statistics.median(verdict_frames):.2f} s, "
              f"worst {max(verdict_frames):.2f} s | |")
    print(f"| frames processed per second, every frame | {fps:.1f} | >= {TARGETS['fps']:g} |")
    if busy:
        print(f"| frames/s while scanning (frames that ran a scan) | {len(busy) / sum(busy):.1f} | |")
    for seed, live, _score, walls in paced_runs:
        print(f"| paced seed {seed}: frames skipped | {live['skipped']} of {live['frames'] + live['skipped']} | |")
        if walls:
            print(f"| paced seed {seed}: delay to verdict (wall clock) | median {statistics.median(walls):.2f} s, "
                  f"worst {max(walls):.2f} s | <= {TARGETS['delay_s']:g} s |")
    if slowest:
        print("\nslowest verdicts: " + ", ".join(f"seed {seed} turn {number} {delay:.1f} s"
                                               for delay, seed, number in sorted(slowest, reverse=True)[:5]))
    if failures:
        print("\nnot exact:")
        for line in failures:
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
