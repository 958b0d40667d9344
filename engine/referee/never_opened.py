"""Could a player who never opened have opened? The tournament presets' 100/200 question.

Under PL-WIKI and MSO-2019 (rules.md 5.3) a player who has not laid their opening when someone
goes out pays 100 if they could not have opened and 200 if they could have. Whether they could
is a question about their rack alone, which the exact solver (:func:`engine.solver.can_open`)
answers, with one opening as proof.

    >>> from rummi.engine.notation import parse_tiles
    >>> check = could_have_opened(parse_tiles("k10 b10 r10 o2"), rules="pl_wikipedia_tournament")
    >>> check.could_open, check.penalty, check.not_opened.value
    (True, 200, 'could_have')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rummi.engine.editions import Edition
from rummi.engine.notation import format_sets
from rummi.engine.rules import Rules, get_rules
from rummi.engine.scoring import NotOpened
from rummi.engine.solver import Hint, can_open
from rummi.engine.tiles import Tile


@dataclass(frozen=True)
class OpeningCheck:
    """The answer: could the rack open, one opening that shows it, and the preset's penalty.

    ``penalty`` is ``None`` when the preset has no never-opened rule (the rack is counted as usual).
    """

    could_open: bool
    hint: Hint
    threshold: int
    penalty: int | None
    rules: str

    @property
    def not_opened(self) -> NotOpened:
        """The value :func:`engine.scoring.score_game` takes for this player."""
        return NotOpened.COULD_HAVE if self.could_open else NotOpened.COULD_NOT

    @property
    def text(self) -> str:
        if self.could_open:
            line = (
                f"could have opened: {format_sets(self.hint.table)} is worth "
                f"{self.hint.opening_value} (the opening needs {self.threshold})"
            )
        else:
            line = f"could not have opened: {self.hint.reason}"
        if self.penalty is not None:
            line += f"; never-opened penalty {self.penalty}"
        return line

    def to_dict(self) -> dict[str, Any]:
        return {
            "could_open": self.could_open,
            "opening": format_sets(self.hint.table) if self.could_open else None,
            "opening_value": self.hint.opening_value if self.could_open else None,
            "threshold": self.threshold,
            "reason": self.hint.reason,
            "not_opened": self.not_opened.value,
            "penalty": self.penalty,
            "rules": self.rules,
            "text": self.text,
        }


def could_have_opened(
    rack: Sequence[Tile], *, rules: Rules | str | None = None, edition: Edition | str | None = None
) -> OpeningCheck:
    """Say whether ``rack`` alone holds an opening under the preset, and show one."""
    preset = get_rules(rules)
    hint = can_open(rack, edition=edition if edition is not None else preset.edition, rules=preset)
    could = not hint.is_draw
    penalty = None
    if preset.never_opened_penalty is not None:
        could_not, could_have = preset.never_opened_penalty
        penalty = could_have if could else could_not
    return OpeningCheck(
        could_open=could, hint=hint, threshold=preset.opening_threshold, penalty=penalty, rules=preset.name
    )
