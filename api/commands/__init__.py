"""One module per `rummi` sub-command.

Each module defines ``register(subparsers) -> None``, which adds its parser and sets
``func=handler`` where ``handler(args) -> int`` returns the exit code. `api.cli` finds the
modules by itself, so adding a command never means editing a shared list.
"""
