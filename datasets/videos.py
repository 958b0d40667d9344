"""Test videos of a whole game, built from real tile photos, with the truth of every turn.

A camera on a stand looks down at a table; players take turns. Each video here is a scripted
game (:func:`script_game`, seeded): the table after every turn is drawn with tiles cut out of
the bundled labelled photos (``vision/samples``, the generator's real-tile paste of
:mod:`datasets.synth.real_tiles`), on a generated table surface. Between turns a skin-coloured
hand and arm reach over the table from the player's side, and the film has what a real one
has: light that flickers, a camera that shakes (and once is bumped for good), motion blur,
frames the camera dropped (repeated), hands that pass without playing, and players who put
an illegal play back. :func:`render_video` writes it (MJPG in .avi, or mp4) and returns the
truth: for every turn the player, the tiles played, the verdict the referee gives on the
scripted tables, and when the table settled. Nothing is ever downloaded or committed; a seed
makes the same video again.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from rummi.datasets.errors import DatasetError
from rummi.datasets.synth import textures
from rummi.datasets.synth.compose import Canvas, Placement
from rummi.datasets.synth.real_tiles import RealTile, cut_photo_tiles
from rummi.engine.notation import parse_tile
from rummi.engine.referee import judge_turn
from rummi.engine.rules import get_rules
from rummi.engine.tiles import Tile

SAMPLES = Path(__file__).resolve().parents[1] / "vision" / "samples"
#: The sample photos the tiles are cut from, by name: a sample added for another test (the
#: gappy rack) must not change every seeded video, and the watch's figures with them.
BANK_PHOTOS = ("loose-rummy3-29", "rack-rummy4-87", "scatter-rummy-42", "sets-rummy-11")
#: Tile width as a share of the frame width: 64 px at 1280x720, as in the real photos (a
#: phone on a stand over a small table).
TILE_WIDTH_SHARE = 0.05
SLOT_COLUMNS, SLOT_ROWS = 3, 5
#: How long a player who thinks for a long while keeps the table still (seconds).
IDLE_SECONDS = (30.0, 120.0)
#: How long a player who stops mid-turn keeps their hands off the table (seconds): long enough
#: for the table to settle and be judged, as short as a real pause to think.
PAUSE_SECONDS = (1.5, 5.0)
#: A still stretch this long or longer (an idle one) is filmed in pieces of a few seconds, each
#: with its own chance of a flicker and a shake, so a long idle table meets as many as a busy
#: one. (Shorter stretches are filmed as before, so the seeded videos stay the same.)
LONG_STILL = IDLE_SECONDS[0]
MAX_SET = 5
SKIN_BGR = (120, 150, 205)
SLEEVE_BGR = (90, 60, 40)

Slots = dict[int, tuple[str, ...]]


def sample_tile_bank(source: Path = SAMPLES, photos: Sequence[str] | None = BANK_PHOTOS) -> dict[str, list[RealTile]]:
    """Every whole tile of the labelled photos under ``source`` named in ``photos`` (file
    names without ``.jpg``; ``None``: all of them), by notation."""
    from rummi.datasets.real import read_class_names

    names = read_class_names(source)
    bank: dict[str, list[RealTile]] = {}
    for image_path in sorted((source / "images").glob("*.jpg")):
        if photos is not None and image_path.stem not in photos:
            continue
        image = cv2.imread(str(image_path))
        label = source / "labels" / f"{image_path.stem}.txt"
        if image is None or not label.is_file():
            continue
        for tile in cut_photo_tiles(image, label, names, image_path.stem):
            bank.setdefault(tile.notation, []).append(tile)
    if not bank:
        raise DatasetError(f"no labelled tiles under {source}")
    return bank


# --- the script -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One thing that happens at the table, after ``wait`` seconds of a still table.

    ``kind``: ``turn`` (a hand changes the table to ``after``), ``restore`` (a player puts an
    illegal play back), ``draw`` (the player draws; the operator records it at ``draw_at``
    seconds into the wait), ``pass`` (a hand passes over and changes nothing).
    """

    kind: str
    after: Slots
    wait: float
    player: str | None = None
    hand_seconds: float = 2.0
    #: A turn the player makes in two parts, hands off the table this many seconds between (0: one go).
    pause: float = 0.0


@dataclass
class GameScript:
    players: tuple[str, ...]
    preset: str
    overrides: dict[str, Any]
    start: Slots
    steps: list[Step]
    opened: tuple[str, ...] = ()

    def rules(self):
        return get_rules(self.preset, **self.overrides)


def _candidate_sets(available: Sequence[str]) -> list[tuple[str, ...]]:
    """Valid runs and groups (3 or 4 tiles) made only of tiles the bank has pictures of."""
    have = set(available)
    out: list[tuple[str, ...]] = []
    for colour in "kbor":
        for start in range(1, 12):
            for length in (3, 4):
                run = tuple(f"{colour}{n}" for n in range(start, start + length))
                if start + length - 1 <= 13 and all(t in have for t in run):
                    out.append(run)
    for number in range(1, 14):
        colours = [c for c in "bkor" if f"{c}{number}" in have]
        for size in (3, 4):
            for chosen in itertools.combinations(colours, size):
                out.append(tuple(f"{c}{number}" for c in chosen))
    return out


def script_game(seed: int, turns: int = 10, players: Sequence[str] = ("Ann", "Bob", "Cy"),
                bank: dict[str, list[RealTile]] | None = None, turn_seconds: int = 20,
                idle: float = 0.0, pauses: float = 0.0) -> GameScript:
    """A seeded game of ``turns`` turns: legal plays, an invalid set, a tile taken back, a slow
    turn, a draw, passing hands; every illegal play is then put back, as the referee says.

    With 6 turns or more each kind appears at least once. Everyone has opened (``opened``),
    so a turn's verdict depends on that turn alone. ``idle`` is the chance that a player thinks
    for a long while (:data:`IDLE_SECONDS`) before the turn, as real games have: the long still
    stretches where a false turn would be invented if flicker or shake could make one. (With
    ``idle=0`` a seed makes the same game as before the option existed.) ``pauses`` is the
    chance that a player makes a turn in two parts, hands off the table for a moment between
    (:data:`PAUSE_SECONDS`): still one turn (``pauses=0``: the same game as without it).
    """
    rng = np.random.default_rng(seed)
    bank = bank if bank is not None else sample_tile_bank()
    candidates = _candidate_sets(sorted(bank))
    used: Counter[str] = Counter()
    slots: Slots = {}
    free = list(range(SLOT_COLUMNS * SLOT_ROWS))

    def take_set() -> tuple[str, ...] | None:
        order = rng.permutation(len(candidates))
        for i in order:
            tiles = candidates[int(i)]
            if all(used[t] + 1 <= 2 for t in tiles):
                return tiles
        return None

    def place(tiles: tuple[str, ...]) -> int:
        slot = free.pop(int(rng.integers(len(free))))
        slots[slot] = tiles
        used.update(tiles)
        return slot

    for _ in range(2):
        tiles = take_set()
        if tiles is not None:
            place(tiles)
    start = dict(slots)
    kinds = ["invalid", "take_back", "slow", "draw", "legal", "extend"]
    while len(kinds) < turns:
        kinds.append(str(rng.choice(["legal", "extend", "legal", "invalid", "draw", "take_back"])))
    kinds = kinds[:turns]
    rng.shuffle(kinds)
    steps: list[Step] = []
    seat = 0
    for kind in kinds:
        player = players[seat % len(players)]
        seat += 1
        wait = float(rng.uniform(2.6, 3.4))
        if idle and rng.random() < idle:
            wait = float(rng.uniform(*IDLE_SECONDS))
        if rng.random() < 0.35:
            steps.append(Step("pass", dict(slots), wait=float(rng.uniform(2.6, 3.0))))
        before = dict(slots)
        if kind == "draw":
            steps.append(Step("draw", dict(slots), wait=wait + 1.0, player=player))
            continue
        if kind == "slow":
            wait = turn_seconds + float(rng.uniform(4, 7))
        if kind == "extend":
            extended = _extension(slots, bank, used)
            if extended is None:
                kind = "legal"
            else:
                slot, tiles = extended
                slots[slot] = tiles
                used[tiles[-1]] += 1
        if kind in ("legal", "slow"):
            tiles = take_set()
            if tiles is None or not free:
                steps.append(Step("draw", dict(slots), wait=wait + 1.0, player=player))
                continue
            place(tiles)
        if kind == "invalid":
            pair = _invalid_pair(bank, used, rng)
            place(pair)
        if kind == "take_back":
            # a tile taken back from a long set if there is one (else the set left is a pair)
            long_sets = [s for s, tiles in slots.items() if len(tiles) >= 4] or sorted(slots)
            slot = long_sets[int(rng.integers(len(long_sets)))]
            removed = slots[slot][-1]
            slots[slot] = slots[slot][:-1]
            used[removed] -= 1
            tiles = take_set()
            if tiles is not None and free:
                place(tiles)
        pause = float(rng.uniform(*PAUSE_SECONDS)) if pauses and rng.random() < pauses else 0.0
        steps.append(Step("turn", dict(slots), wait=wait, player=player, pause=pause))
        if kind == "take_back" and not Counter(_all_tiles(before)) - Counter(_all_tiles(slots)):
            # The new set took back the very tile taken from the long set: a legal rearrangement,
            # nothing to put back (putting it back would be the next player's turn).
            continue
        if kind in ("invalid", "take_back"):
            # the referee's consequence: the table goes back as it was
            for tile in Counter(_all_tiles(slots)) - Counter(_all_tiles(before)):
                used[tile] -= 1
            for tile in Counter(_all_tiles(before)) - Counter(_all_tiles(slots)):
                used[tile] += 1
            slots.clear()
            slots.update(before)
            free[:] = [s for s in range(SLOT_COLUMNS * SLOT_ROWS) if s not in slots]
            steps.append(Step("restore", dict(slots), wait=float(rng.uniform(2.6, 3.2)), player=player))
    return GameScript(players=tuple(players), preset="pressman_us_2009", overrides={"turn_seconds": turn_seconds},
                      start=start, steps=steps, opened=tuple(players))


def _extension(slots: Slots, bank: dict[str, list[RealTile]], used: Counter[str]) -> tuple[int, tuple[str, ...]] | None:
    """A run on the table that the next number (in the bank, copies left) extends."""
    for slot, tiles in sorted(slots.items()):
        if len(tiles) >= MAX_SET:
            continue
        first, last = parse_tile(tiles[0]), parse_tile(tiles[-1])
        if first.is_joker or last.is_joker or first.colour != last.colour:
            continue
        nxt = f"{tiles[-1][0]}{last.number + 1}"
        if last.number < 13 and nxt in bank and used[nxt] < 2:
            return slot, tiles + (nxt,)
    return None


def _invalid_pair(bank: dict[str, list[RealTile]], used: Counter[str], rng: np.random.Generator) -> tuple[str, ...]:
    """Two tiles that are no set: what a player who gave up half-way leaves on the table."""
    names = [n for n in sorted(bank) if n != "J" and used[n] < 2]
    while True:
        a, b = (names[int(i)] for i in rng.choice(len(names), 2, replace=False))
        if a[0] != b[0] and a[1:] != b[1:]:
            return (a, b)


def halfway(before: Slots, after: Slots) -> Slots | None:
    """The table part-way through a turn from ``before`` to ``after``: the first changed set
    done, or the first tiles of a set laid (None when the change is a single tile)."""
    changed = sorted(s for s in set(before) | set(after) if before.get(s) != after.get(s))
    part = dict(before)
    if len(changed) >= 2:
        if changed[0] in after:
            part[changed[0]] = after[changed[0]]
        else:
            del part[changed[0]]
        return part
    if len(changed) == 1:
        old, new = before.get(changed[0], ()), after.get(changed[0], ())
        if new[:len(old)] == old and len(new) - len(old) >= 2:
            part[changed[0]] = new[: len(old) + (len(new) - len(old)) // 2]
            return part
    return None


def _all_tiles(slots: Slots) -> list[str]:
    return [t for tiles in slots.values() for t in tiles]


def table_of(slots: Slots) -> list[list[Tile]]:
    """The sets of a table state as the engine takes them."""
    return [[parse_tile(t) for t in slots[s]] for s in sorted(slots)]


# --- the truth --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TruthTurn:
    number: int
    player: str
    played: tuple[str, ...]
    status: str
    codes: tuple[str, ...]
    settled_at: float
    drew: bool


@dataclass
class RenderedVideo:
    path: Path
    width: int
    height: int
    fps: float
    frames: int
    turns: list[TruthTurn]
    draws: list[float]  # seconds into the video at which the operator records a draw
    script: GameScript
    passes: int = 0
    effects: Counter = field(default_factory=Counter)

    @property
    def seconds(self) -> float:
        return self.frames / self.fps


# --- the film ---------------------------------------------------------------------------------


class TableView:
    """Draws a table state: every set in its slot, tile by tile, from the real-tile bank."""

    def __init__(self, rng: np.random.Generator, size: tuple[int, int], bank: dict[str, list[RealTile]],
                 surface: str) -> None:
        self.width, self.height = size
        self.bank = bank
        self.tile_width = self.width * TILE_WIDTH_SHARE
        self.background = textures.surface(rng, (self.height, self.width), surface)
        self.tilt = {}  # (slot, position) -> small angle, fixed for the game
        self.rng = rng
        self._cache: dict[tuple, np.ndarray] = {}

    def slot_origin(self, slot: int) -> tuple[float, float]:
        column, row = slot % SLOT_COLUMNS, slot // SLOT_COLUMNS
        tile_height = self.tile_width * 4 / 3
        x = self.width * 0.05 + column * (self.width * 0.9 / SLOT_COLUMNS)
        y = self.height * 0.08 + row * tile_height * 1.55
        return x, y

    def draw(self, slots: Slots) -> np.ndarray:
        key = tuple(sorted(slots.items()))
        if key not in self._cache:
            canvas = Canvas(self.background)
            for slot, tiles in sorted(slots.items()):
                x, y = self.slot_origin(slot)
                for position, notation in enumerate(tiles):
                    angle = self.tilt.setdefault((slot, position), float(self.rng.normal(0, 1.5)))
                    centre = (x + (position + 0.5) * self.tile_width * 1.04, y + self.tile_width * 2 / 3)
                    placement = Placement(notation, centre, self.tile_width, angle)
                    sprites = self.bank[notation]
                    sprite = sprites[(slot + position) % len(sprites)].sprite
                    quad = placement.quad()
                    canvas.shadow(quad, (3.0, 3.0), 3.0, 0.3)
                    canvas.paste_tile(sprite, quad, 1, np.ones(3, np.float32), (2.0, 3.0),
                                      np.array([150, 170, 180], np.float32))
            self._cache[key] = np.clip(canvas.image, 0, 255).astype(np.uint8)
        return self._cache[key]


def draw_hand(frame: np.ndarray, entry: np.ndarray, tip: np.ndarray, scale: float,
          blur: np.ndarray | None = None) -> None:
    """An arm from the frame edge at ``entry`` to a hand at ``tip``, skin coloured, soft edged,
    smeared along ``blur`` (a motion-blur kernel) when it moves fast. Drawn in place."""
    height, width = frame.shape[:2]
    direction = tip - entry
    length = float(np.linalg.norm(direction)) or 1.0
    along, normal = direction / length, np.array([-direction[1], direction[0]]) / length
    arm_width = 55 * scale
    wrist = tip - along * 60 * scale
    arm = np.array([entry + normal * arm_width, wrist + normal * arm_width * 0.7,
                    wrist - normal * arm_width * 0.7, entry - normal * arm_width])
    reach = np.vstack([arm, tip + along * 100 * scale + normal * 80 * scale, tip - normal * 80 * scale,
                       tip - along * 80 * scale])
    x0, y0 = np.clip(np.floor(reach.min(axis=0)) - 12, 0, [width, height]).astype(int)
    x1, y1 = np.clip(np.ceil(reach.max(axis=0)) + 12, 0, [width, height]).astype(int)
    if x1 <= x0 or y1 <= y0:
        return
    offset = np.array([x0, y0])
    region = frame[y0:y1, x0:x1]
    paint = region.copy()
    cv2.fillConvexPoly(paint, np.round(arm - offset).astype(np.int32), SLEEVE_BGR, cv2.LINE_AA)
    angle = float(np.degrees(np.arctan2(direction[1], direction[0])))
    centre = tuple(int(v) for v in np.round(tip - offset))
    cv2.ellipse(paint, centre, (int(70 * scale), int(48 * scale)), angle, 0, 360, SKIN_BGR, -1, cv2.LINE_AA)
    for finger in (-1.2, -0.4, 0.4, 1.2):
        base = tip + along * 40 * scale + normal * finger * 22 * scale - offset
        end = base + along * 45 * scale
        cv2.line(paint, tuple(int(v) for v in base), tuple(int(v) for v in end), SKIN_BGR,
                 max(1, int(16 * scale)), cv2.LINE_AA)
    mask = np.any(paint != region, axis=2).astype(np.float32)
    if blur is not None:
        paint = cv2.filter2D(paint, -1, blur)
        mask = cv2.filter2D(mask, -1, blur)
    mask = cv2.GaussianBlur(mask, (0, 0), 1.5 * scale)[..., None]
    region[...] = (paint * mask + region * (1 - mask)).astype(np.uint8)


def render_video(script: GameScript, path: Path, *, seed: int, size: tuple[int, int] = (1280, 720),
                 fps: float = 5.0, bank: dict[str, list[RealTile]] | None = None,
                 surface: str | None = None) -> RenderedVideo:
    """Film ``script`` into ``path`` (.avi: MJPG, .mp4: mp4v) and return it with the truth."""
    rng = np.random.default_rng([seed, 1])
    bank = bank if bank is not None else sample_tile_bank()
    surface = surface or str(rng.choice(["wood", "cloth", "plain"]))
    width, height = size
    table = TableView(rng, size, bank, surface)
    fourcc = cv2.VideoWriter_fourcc(*("mp4v" if path.suffix.lower() == ".mp4" else "MJPG"))
    writer = cv2.VideoWriter(str(path), fourcc, fps, size)
    if not writer.isOpened():
        raise DatasetError(f"cannot write the video {path}")
    scale = width / 1280
    seat_edges = _seat_edges(len(script.players), width, height)
    effects: Counter[str] = Counter()
    noise = _sensor_noise(rng, size)
    bumped = np.zeros(2)
    bump_at = int(rng.integers(1, max(2, len(script.steps))))

    state = dict(script.start)
    frame_index = 0
    previous: np.ndarray | None = None

    def emit(image: np.ndarray) -> None:
        nonlocal frame_index, previous
        image = _camera(image, rng, bumped, noise)
        if previous is not None and rng.random() < 0.04:
            image = previous  # the camera dropped a frame: the last one again
            effects["dropped"] += 1
        writer.write(image)
        previous = image
        frame_index += 1

    def still(seconds: float) -> None:
        if seconds >= LONG_STILL:
            while seconds > 8.0:
                piece = float(rng.uniform(4.0, 8.0))
                still(piece)
                seconds -= piece
        count = max(1, round(seconds * fps))
        flicker_at = int(rng.integers(count)) if rng.random() < 0.5 else -1
        shake_at = int(rng.integers(count)) if rng.random() < 0.3 and count > 8 else -1
        for k in range(count):
            image = table.draw(state).copy()
            if flicker_at <= k < flicker_at + 2:
                image = cv2.convertScaleAbs(image, alpha=float(rng.uniform(0.8, 1.12)))
                effects["flicker"] += 1
            if shake_at <= k < shake_at + 2:
                image = _shake(image, rng)
                effects["shake"] += 1
            emit(image)

    def hand_over(target: np.ndarray, seat: int, seconds: float, change_to: Slots | None) -> None:
        nonlocal state
        count = max(3, round(seconds * fps))
        entry = seat_edges[seat]
        for k in range(count):
            t = (k + 0.5) / count
            reach = np.sin(np.pi * t)  # in and back out
            wiggle = np.array([np.sin(k * 2.1), np.cos(k * 1.7)]) * 25 * scale
            tip = entry + (target - entry) * min(1.0, reach * 1.25) + wiggle * reach
            if change_to is not None and t >= 0.5:
                state = change_to
            image = table.draw(state).copy()
            blur = _blur_kernel(rng) if rng.random() < 0.5 else None
            effects["blur"] += blur is not None
            draw_hand(image, entry, tip, scale, blur)
            emit(image)

    truth: list[TruthTurn] = []
    draws: list[float] = []
    rules = script.rules()
    opened = set(script.opened)
    passes = 0
    turn_number = 0
    still(2.5)
    last_settle = 0.0  # the first reading settles at once; the first turn counts from there
    for number, step in enumerate(script.steps):
        if number == bump_at:
            bumped[:] = rng.choice([-3, -2, 2, 3], 2)  # the camera is knocked and stays put somewhere else
            effects["bump"] += 1
        if step.kind == "draw":
            start = frame_index / fps
            still(step.wait)
            at = start + step.wait / 2
            draws.append(round(at, 2))
            turn_number += 1
            verdict = judge_turn(table_of(state), table_of(state), opened=True, rules=rules,
                                 seconds=round(at - last_settle, 1), drew=True)
            truth.append(TruthTurn(turn_number, step.player or "", (), verdict.status.value,
                                   tuple(verdict.codes()), at, True))
            last_settle = at
            continue
        still(step.wait)
        before = dict(state)
        target_slots = [s for s in set(before) | set(step.after) if before.get(s) != step.after.get(s)]
        slot = target_slots[0] if target_slots else int(rng.integers(SLOT_COLUMNS * SLOT_ROWS))
        x, y = table.slot_origin(slot)
        target = np.array([x + table.tile_width * 2, y + table.tile_width])
        seat = script.players.index(step.player) if step.player in script.players else int(rng.integers(len(script.players)))
        part = halfway(before, step.after) if step.kind == "turn" and step.pause else None
        if part is not None:
            # the player lays part of the turn, takes their hand away for a moment, goes on
            hand_over(target, seat, step.hand_seconds, part)
            still(step.pause)
            effects["pause"] += 1
        hand_over(target, seat, step.hand_seconds, step.after if step.kind in ("turn", "restore") else None)
        settled_at = frame_index / fps
        if step.kind == "pass":
            passes += 1
        if step.kind == "turn":
            turn_number += 1
            verdict = judge_turn(table_of(before), table_of(step.after), opened=step.player in opened, rules=rules,
                                 seconds=round(settled_at - last_settle, 1))
            truth.append(TruthTurn(turn_number, step.player or "", tuple(sorted(str(t) for t in verdict.played)),
                                   verdict.status.value, tuple(verdict.codes()), settled_at, False))
            last_settle = settled_at
        if step.kind == "restore":
            last_settle = settled_at  # the next player's time starts once the table is put back
    still(3.0)
    writer.release()
    return RenderedVideo(path=path, width=width, height=height, fps=fps, frames=frame_index, turns=truth,
                         draws=draws, script=script, passes=passes, effects=effects)


def _seat_edges(players: int, width: int, height: int) -> list[np.ndarray]:
    """Where each player's arm enters the picture: bottom, right, top, left edge."""
    edges = [np.array([width * 0.5, height + 40.0]), np.array([width + 40.0, height * 0.5]),
             np.array([width * 0.5, -40.0]), np.array([-40.0, height * 0.5])]
    return [edges[i % 4] for i in range(players)]


def _camera(image: np.ndarray, rng: np.random.Generator, bumped: np.ndarray, noise: list[np.ndarray]) -> np.ndarray:
    """The sensor: a fixed offset once the camera was bumped, and a little noise."""
    if np.any(bumped):
        image = np.roll(image, (int(bumped[1]), int(bumped[0])), axis=(0, 1))
    lighter, darker = noise[int(rng.integers(len(noise)))]
    return cv2.subtract(cv2.add(image, lighter), darker)


def _sensor_noise(rng: np.random.Generator, size: tuple[int, int], count: int = 4) -> list[tuple[np.ndarray, np.ndarray]]:
    """A few patterns of grainy noise (made once; a frame takes one at random)."""
    width, height = size
    patterns = []
    for _ in range(count):
        grain = rng.integers(-3, 4, size=(height // 2, width // 2), dtype=np.int16)
        grain = cv2.resize(grain.astype(np.float32), (width, height), interpolation=cv2.INTER_NEAREST)
        grain = np.repeat(grain[..., None], 3, axis=2)
        patterns.append((np.clip(grain, 0, None).astype(np.uint8), np.clip(-grain, 0, None).astype(np.uint8)))
    return patterns


def _shake(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The camera shaken: the picture moved by a few pixels and smeared."""
    dx, dy = rng.uniform(-12, 12, 2)
    matrix = np.float32([[1, 0, dx], [0, 1, dy]])
    shaken = cv2.warpAffine(image, matrix, (image.shape[1], image.shape[0]), borderMode=cv2.BORDER_REFLECT)
    return cv2.filter2D(shaken, -1, _blur_kernel(rng))


def _blur_kernel(rng: np.random.Generator) -> np.ndarray:
    """A straight motion-blur kernel, 5 to 12 pixels long, at any angle."""
    length = int(rng.integers(5, 13))
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    angle = float(rng.uniform(0, 180))
    rotation = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1.0)
    kernel = cv2.warpAffine(kernel, rotation, (length, length))
    return kernel / max(float(kernel.sum()), 1e-6)


# --- scoring a watch against the truth --------------------------------------------------------

#: A reported turn belongs to a true one when it settled within this many seconds of it.
MATCH_SECONDS = 2.5


@dataclass
class WatchScore:
    """How a watch of one video compares with its truth."""

    exact: list[int] = field(default_factory=list)  # truth turn numbers found exactly
    wrong: list[tuple[int, str]] = field(default_factory=list)  # found, but not exactly: (number, why)
    missed: list[int] = field(default_factory=list)
    false: list[dict] = field(default_factory=list)  # reported turns no true turn explains
    delays: list[float] = field(default_factory=list)  # seconds from the table settling to the verdict
    delayed: list[tuple[int, float]] = field(default_factory=list)  # (truth turn number, delay), for the slowest
    #: Verdicts shown at a pause and then replaced by an amend with another status: (shown, final
    #: event). Only the final one is scored, but the shown one was seen (a false ILLEGAL, say).
    overturned: list[tuple[dict, dict]] = field(default_factory=list)

    @property
    def turns(self) -> int:
        return len(self.exact) + len(self.wrong) + len(self.missed)


def score_watch(events: Sequence[dict], truth: Sequence[TruthTurn]) -> WatchScore:
    """Match the watch's turn events (``rummi watch --json`` objects) with the true turns.

    A turn is found *exactly* when the player, the tiles played, the verdict's status and its
    violation codes are all the truth's. A turn reported again with ``amends`` (the player went
    on after a pause) counts as the one turn it now is: its last report is the one scored, and
    each earlier report whose status it changed is counted in ``overturned``.
    """
    score = WatchScore()
    open_truth = list(truth)
    last_report: dict[int, dict] = {}
    replaced: dict[int, list[dict]] = {}
    for event in events:
        if event.get("event") in ("turn", "uncertain") and "number" in event:
            earlier = last_report.pop(event["number"], None)  # an amended turn takes its latest place
            if earlier is not None and "amends" in event:
                replaced.setdefault(event["number"], []).append(earlier)
            last_report[event["number"]] = event
    for number, shown in replaced.items():
        final = last_report[number]
        status = (final.get("verdict") or {}).get("status")
        score.overturned += [(e, final) for e in shown if (e.get("verdict") or {}).get("status") != status]
    for event in last_report.values():
        at = event["time"] if event.get("drew") else event["settled_at"]
        near = [t for t in open_truth if t.drew == bool(event.get("drew")) and abs(t.settled_at - at) <= MATCH_SECONDS]
        if not near:
            score.false.append(event)
            continue
        true = min(near, key=lambda t: abs(t.settled_at - at))
        open_truth.remove(true)
        verdict = event.get("verdict") or {}
        seen = (event["player"], tuple(sorted(event.get("played") or ())), verdict.get("status"),
                tuple(sorted(verdict.get("codes") or [v["code"] for v in verdict.get("violations", [])])))
        expected = (true.player, tuple(sorted(true.played)), true.status, tuple(sorted(true.codes)))
        if seen == expected:
            score.exact.append(true.number)
        else:
            score.wrong.append((true.number, f"saw {seen}, expected {expected}"))
        if not event.get("drew"):
            score.delays.append(event["time"] - true.settled_at)
            score.delayed.append((true.number, score.delays[-1]))
    score.missed = [t.number for t in open_truth]
    return score
