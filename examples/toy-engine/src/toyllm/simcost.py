"""Simulated compute time.

Work that would burn GPU or CPU time in a real engine charges its cost here; the engine
pays the accumulated cost once per step (settle).

The costs run on a simulated device clock, as kernels queued on a GPU do: a step's work
starts when the previous step's work ends, even when the host thread wakes up a little late,
so scheduling jitter of a busy machine (up to MAX_HOST_LAG_S in all) is absorbed instead of
added. The engine restarts the clock (restart()) when it leaves idle; after a longer lag the
clock also restarts at "now".
"""
import threading
import time

MAX_HOST_LAG_S = 0.05

_ledger = threading.local()


def charge(seconds: float) -> None:
    _ledger.owed = getattr(_ledger, "owed", 0.0) + seconds


def restart() -> None:
    _ledger.busy_until = 0.0


def settle() -> None:
    owed = getattr(_ledger, "owed", 0.0)
    _ledger.owed = 0.0
    if owed <= 0:
        return
    now = time.perf_counter()
    busy_until = getattr(_ledger, "busy_until", 0.0)
    start = busy_until if now - busy_until <= MAX_HOST_LAG_S else now
    _ledger.busy_until = start + owed
    delay = _ledger.busy_until - now
    if delay > 0:
        time.sleep(delay)
