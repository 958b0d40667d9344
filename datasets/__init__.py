"""Training data: a scene generator and converters for the real labelled photos."""
