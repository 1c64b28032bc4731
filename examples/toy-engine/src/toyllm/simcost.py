"""Simulated compute time.

Work that would burn GPU or CPU time in a real engine charges its cost here; the engine
pays the accumulated cost with one sleep per step. Sleeping once instead of per call keeps
the simulated costs accurate (each time.sleep overshoots by tens of microseconds) and stable
on a busy machine.
"""
import threading
import time

_ledger = threading.local()


def charge(seconds: float) -> None:
    _ledger.owed = getattr(_ledger, "owed", 0.0) + seconds


def settle() -> None:
    owed = getattr(_ledger, "owed", 0.0)
    _ledger.owed = 0.0
    if owed > 0:
        time.sleep(owed)
