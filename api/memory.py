"""Giving memory back to the system after a big photo job.

A 40-megapixel photo takes a few hundred megabytes to decode and scan. Python and NumPy free
them, but glibc's allocator keeps freed memory inside the process for reuse: the large buffers
of decoders (Pillow's image blocks, zlib's windows) land in per-thread arenas below the mmap
threshold, so after six big scans at once a server stayed at 1.29 GB instead of shrinking back.
``malloc_trim(0)`` hands every arena's free pages back. It costs a few milliseconds, little
next to a scan, so the scan workers call it after each job (``RUMMI_TRIM_MEMORY``).

That alone left a server 10-100 MB up after four 40 MP scans, by chance: glibc raises its mmap
threshold to the size of the largest block freed so far (up to 32 MB), so after the first big
photo every image-sized buffer is carved from a worker thread's arena instead of being mapped
on its own, and the top of a thread's arena is given back only when it passes a trim threshold
that glibc raised to twice that size; ``malloc_trim`` never shrinks it (only the main arena's).
:func:`keep_big_blocks_apart` fixes both thresholds at 16 MB, so a block that big (a 40 MP
photo at half size is 30 MB) is mapped on its own and unmapped when freed, and an arena's free
top is given back past 16 MB. Measured with the test of four 40 MP scans at once, five runs each:
left over after them +12 to +33 MB (before, six runs: +3 to +62 MB, and once +103 MB in CI). At 4 MB
almost nothing was left over, but a 12 MP scan took some 40 ms longer (every image-sized buffer
mapped and faulted in afresh); at 16 MB its time is the same as without.

On a C library without these calls (musl, macOS) both functions do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

#: ``mallopt`` parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: Blocks at least this big are mapped on their own; an arena's free top past it is given back.
BIG_BLOCK_BYTES = 16 * 1024 * 1024
MAX_BIG_BLOCK_BYTES = 32 * 1024 * 1024


def _find_libc_call(name: str, *argtypes: type) -> Callable[..., int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    call = getattr(libc, name, None)
    if call is None:
        return None
    call.argtypes = list(argtypes)
    call.restype = ctypes.c_int
    return call


_MALLOC_TRIM = _find_libc_call("malloc_trim", ctypes.c_size_t)
_MALLOPT = _find_libc_call("mallopt", ctypes.c_int, ctypes.c_int)


def keep_big_blocks_apart(big_bytes: int = BIG_BLOCK_BYTES) -> bool:
    """Fix glibc's mmap and trim thresholds at ``big_bytes`` for the rest of the process (see
    the module's docstring); ``True`` if the C library took both. ``big_bytes`` is at most
    glibc's own ceiling for the mmap threshold (32 MB on 64-bit)."""
    if not 0 < big_bytes <= MAX_BIG_BLOCK_BYTES:
        raise ValueError(f"big_bytes must be 1 to {MAX_BIG_BLOCK_BYTES} bytes, not {big_bytes}")
    if _MALLOPT is None:
        return False
    mapped = bool(_MALLOPT(_M_MMAP_THRESHOLD, big_bytes))
    trimmed = bool(_MALLOPT(_M_TRIM_THRESHOLD, big_bytes))
    return mapped and trimmed


def give_back_memory() -> bool:
    """Return freed heap memory to the system now; ``True`` if some was given back."""
    return bool(_MALLOC_TRIM(0)) if _MALLOC_TRIM is not None else False
