"""The examples in the engine's docstrings run and stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "rummi.engine.tiles",
    "rummi.engine.editions",
    "rummi.engine.notation",
    "rummi.engine.melds",
    "rummi.engine.twist",
    "rummi.engine.table",
    "rummi.engine.rules",
    "rummi.engine.scoring",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
