from dataclasses import dataclass
from typing import Optional


@dataclass
class SamplingParams:
    """Subset of vLLM's SamplingParams. temperature == 0 means greedy decoding."""

    n: int = 1
    temperature: float = 1.0
    top_p: float = 1.0
    seed: Optional[int] = None
    max_tokens: int = 16
    ignore_eos: bool = False

    def __post_init__(self):
        if self.n != 1:
            raise ValueError(f"n ({self.n}) must be 1: toyllm has no parallel sampling")
        if self.temperature < 0:
            raise ValueError(f"temperature ({self.temperature}) must be >= 0")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens ({self.max_tokens}) must be >= 1")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0
