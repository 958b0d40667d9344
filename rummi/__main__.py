"""``python -m rummi``: the same as the ``rummi`` command."""

import sys

from rummi.api.cli import main

sys.exit(main())
