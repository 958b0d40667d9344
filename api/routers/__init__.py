"""One module per area of the JSON API; each holds a thin ``router`` and no game logic."""
