"""Pausing Python's cyclic garbage collector while millions of long-lived objects are built."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a large structure is built (none of its objects
    in cycles that need it). Each full collection walks every tracked object, and building
    hundreds of thousands of them triggers several: measured on 100,000 printings, the import
    took 10.7 s with the collector running and 8.1 s paused, and a game's card pool 6.0–7.3 s
    CPU against 3.5–4.2 s. Nested pauses are fine: only the outermost one turns it back on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
