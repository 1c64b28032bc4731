import random
import threading
from dataclasses import dataclass, field
from typing import Callable, List, Optional

from toyllm.sampling_params import SamplingParams


@dataclass
class CompletionOutput:
    index: int
    text: str
    token_ids: List[int]
    finish_reason: Optional[str] = None


@dataclass
class RequestOutput:
    request_id: str
    prompt: Optional[str]
    prompt_token_ids: List[int]
    outputs: List[CompletionOutput]
    finished: bool
    # Text added by the step that produced this output (what a streaming server sends).
    delta_text: str = ""


class Sequence:
    def __init__(self, request_id: str, prompt: Optional[str], prompt_token_ids: List[int],
                 params: SamplingParams, engine_seed: int,
                 on_output: Optional[Callable[[RequestOutput], None]] = None):
        from toyllm.model import context_state

        self.request_id = request_id
        self.prompt = prompt
        self.prompt_token_ids = list(prompt_token_ids)
        self.params = params
        self.output_token_ids: List[int] = []
        self.output_text = ""
        self.prefilled = False
        self.finish_reason: Optional[str] = None
        self.state = context_state(self.prompt_token_ids)
        seed = params.seed if params.seed is not None else f"{engine_seed}:{request_id}"
        self.rng = random.Random(seed)
        self.on_output = on_output
        self.done = threading.Event()
        self.final_output: Optional[RequestOutput] = None
        self.error: Optional[BaseException] = None

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    def append_token(self, token_id: int) -> None:
        from toyllm.model import context_state

        self.output_token_ids.append(token_id)
        self.state = context_state([token_id], self.state)

    def to_output(self, delta_text: str) -> RequestOutput:
        return RequestOutput(
            request_id=self.request_id,
            prompt=self.prompt,
            prompt_token_ids=self.prompt_token_ids,
            outputs=[CompletionOutput(0, self.output_text, list(self.output_token_ids),
                                      self.finish_reason)],
            finished=self.finished,
            delta_text=delta_text,
        )
