"""The user-facing edge: the command line `rummi`, the FastAPI service and its web page."""
