"""Giving memory back to the system after a big photo job.

A 40-megapixel photo takes a few hundred megabytes to decode and scan. Python and NumPy free
them, but glibc's allocator keeps freed memory inside the process for reuse: the large buffers
of decoders (Pillow's image blocks, zlib's windows) land in per-thread arenas below the mmap
threshold, so after six big scans at once a server stayed at 1.29 GB instead of shrinking back.
``malloc_trim(0)`` hands every arena's free pages back. It costs a few milliseconds, little
next to a scan, so the scan workers call it after each job (``RUMMI_TRIM_MEMORY``).

On a C library without ``malloc_trim`` (musl, macOS) :func:`give_back_memory` does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable


def _find_malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_MALLOC_TRIM = _find_malloc_trim()


def give_back_memory() -> bool:
    """Return freed heap memory to the system now; ``True`` if some was given back."""
    return bool(_MALLOC_TRIM(0)) if _MALLOC_TRIM is not None else False
