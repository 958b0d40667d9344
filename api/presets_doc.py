"""The rule presets as Markdown, for ``rummi score --list-presets`` and docs/rules-presets.md.

Rendering text for people is presentation, so it lives here and not in the engine, which only
knows what each preset decides.
"""

from __future__ import annotations

import dataclasses
import enum

from rummi.engine.rules import DEFAULT_PRESET, PRESETS, MatchEnd, Rules

_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Rules)}


def _cell(rules: Rules, name: str) -> str:
    value = getattr(rules, name)
    if name == "never_opened_penalty":
        return (
            "-"
            if value is None
            else f"{value[0]}/{value[1]}" + (" (waiver)" if rules.never_opened_waiver else "")
        )
    if name == "turn_seconds":
        if value is None and rules.clock_seconds:
            return f"clock {rules.clock_seconds // 60} min + {rules.clock_increment_seconds} s"
        return "-" if value is None else f"{value} s"
    if name == "overtime_draw":
        return f"{value}" + (" + restore" if rules.overtime_restores_table else "")
    if name == "joker_replacement_from_table":
        return "rack or table" if value else "rack"
    if name == "match_end" and value is MatchEnd.TARGET_SCORE:
        return f"target {rules.target_score}"
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


_TABLE_COLUMNS = (
    ("opening_threshold", "opening"),
    ("joker_in_opening", "joker in opening"),
    ("table_play_in_opening_turn", "table play in opening turn"),
    ("joker_penalty", "joker on rack"),
    ("never_opened_penalty", "never opened"),
    ("bank_empty_scoring", "bank empty"),
    ("turn_seconds", "turn time"),
    ("overtime_draw", "over time: draw"),
    ("failed_manipulation_draw", "failed turn: draw"),
    ("joker_replacement_from_table", "joker replaced from"),
    ("joker_free_by_rearranging", "free joker by rearranging"),
    ("freed_joker_min_own_tiles", "own tiles with freed joker"),
    ("strict_joker_group", "strict 3-tile group"),
    ("locked_joker_sets", "joker sets locked"),
    ("match_end", "match end"),
    ("edition", "edition"),
)


def presets_markdown() -> str:
    """The presets as Markdown: one table of the disputed rules, then each preset's sources and notes.

    docs/rules-presets.md embeds this text; a test keeps the two in step.
    """
    head = "| preset | " + " | ".join(label for _, label in _TABLE_COLUMNS) + " |"
    rule = "|" + "---|" * (len(_TABLE_COLUMNS) + 1)
    rows = [
        f"| `{r.name}` | " + " | ".join(_cell(r, name) for name, _ in _TABLE_COLUMNS) + " |"
        for r in PRESETS.values()
    ]
    lines = [head, rule, *rows, ""]
    for r in PRESETS.values():
        default = " (default)" if r.name == DEFAULT_PRESET else ""
        lines.append(f"### `{r.name}`{default}: {r.title}")
        lines.append("")
        lines.append(f"Source: {r.source}.")
        extra = [
            f"{name} = {_cell(r, name)}"
            for name in (
                "players",
                "clockwise",
                "bank_empty_last_round",
                "deal_one_joker_each",
                "reshuffle_on_three_pairs",
                "freed_joker_in_new_set",
                "overtime_restores_table",
            )
            if getattr(r, name) != _DEFAULTS[name]
        ]
        if extra:
            lines.append("Also: " + "; ".join(extra) + ".")
        for note in r.notes:
            lines.append(f"- {note}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
