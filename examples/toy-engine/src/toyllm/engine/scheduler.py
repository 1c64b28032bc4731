from collections import deque
from typing import Deque, List

from toyllm.engine.sequence import Sequence


class Scheduler:
    """Decides which sequences run in the next forward pass."""

    def __init__(self):
        self.waiting: Deque[Sequence] = deque()
        self.running: Deque[Sequence] = deque()

    def add_sequence(self, seq: Sequence) -> None:
        self.waiting.append(seq)

    def has_unfinished_seqs(self) -> bool:
        return bool(self.waiting or self.running)

    def abort(self, request_id: str) -> List[Sequence]:
        gone = [s for s in list(self.waiting) + list(self.running) if s.request_id == request_id]
        for s in gone:
            if s in self.waiting:
                self.waiting.remove(s)
            if s in self.running:
                self.running.remove(s)
        return gone

    def schedule(self) -> List[Sequence]:
        while self.waiting:
            self.running.append(self.waiting.popleft())
        if not self.running:
            return []
        # One sequence per forward pass, round-robin over the running sequences.
        seq = self.running[0]
        self.running.rotate(-1)
        return [seq]

    def free_finished(self, seqs: List[Sequence]) -> None:
        for seq in seqs:
            if seq.finished and seq in self.running:
                self.running.remove(seq)
