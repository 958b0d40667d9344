"""The examples in the engine's docstrings run and stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "engine.tiles",
    "engine.editions",
    "engine.notation",
    "engine.melds",
    "engine.twist",
    "engine.table",
    "engine.rules",
    "engine.scoring",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0
