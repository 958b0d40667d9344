"""Trained weights the code ships (ONNX), each folder with a MODEL_CARD.md."""
