"""rummi: a camera assistant for Rummikub.

One import namespace over the repository's top-level folders (see ``pyproject.toml``):

* :mod:`rummi.engine` -- pure game logic (``engine/``);
* :mod:`rummi.vision` -- photo -> tiles -> sets and rack (``vision/``);
* :mod:`rummi.models` -- the shipped ONNX weights (``models/``);
* :mod:`rummi.datasets` -- scene generator and dataset tools (``datasets/``);
* :mod:`rummi.api` -- the command line, the service and the page (``api/``).

Beside the version, :mod:`rummi.places` says where every part keeps its files (the user's data
and cache folders). Importing ``rummi`` imports none of the parts, so ``rummi --version`` stays
instant.
"""

__version__ = "0.2.0"
