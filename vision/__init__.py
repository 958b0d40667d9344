"""Photo -> tiles -> layout -> game state. Inference uses onnxruntime, OpenCV and numpy only."""
