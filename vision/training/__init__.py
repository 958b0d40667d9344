"""Training code (torch, ultralytics): never imported by inference, which runs on onnxruntime.

Install with ``make train-venv`` (or ``pip install -e .[train]``); run through ``rummi train``.
"""
