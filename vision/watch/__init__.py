"""Watching a whole game: a camera over the table finds each turn by itself and referees it.

:class:`TurnTracker` (``tracker.py``) takes frames and gives events (``events.py``); it reads
tiles only when cheap frame statistics (``motion.py``) say the table is still and may have
changed, and trusts a reading only when several scans agree (``consensus.py``). ``sources.py``
opens cameras, streams and video files and never queues frames. The command line
(`rummi watch`) and the service (``/api/v1/watch``) both use this one tracker.
"""

from rummi.vision.watch.events import KINDS, WatchEvent
from rummi.vision.watch.tracker import TurnTracker, WatchSettings

__all__ = ["KINDS", "TurnTracker", "WatchEvent", "WatchSettings"]
