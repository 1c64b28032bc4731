import itertools
import logging
import threading
import time
from collections import deque
from typing import Callable, List, Optional

from toyllm import config, simcost
from toyllm.detokenizer import Detokenizer
from toyllm.engine.scheduler import Scheduler
from toyllm.engine.sequence import RequestOutput, Sequence
from toyllm.model import ToyModel
from toyllm.sampling_params import SamplingParams
from toyllm.tokenizer import Tokenizer

logger = logging.getLogger("toyllm.engine")


class LLMEngine:
    """Owns tokenizer, scheduler, model and detokenizer; runs the step loop in a thread.

    Callers (the offline LLM class, the API server) add requests from any thread and get
    their outputs through a callback and the sequence's `done` event.
    """

    def __init__(self, model: str = config.DEFAULT_MODEL, seed: int = 0,
                 max_model_len: int = config.MAX_MODEL_LEN):
        self.model_name = model
        self.seed = seed
        self.max_model_len = max_model_len
        self.tokenizer = Tokenizer()
        self.model = ToyModel(self.tokenizer)
        self.scheduler = Scheduler()
        self.detokenizer = Detokenizer(self.tokenizer)
        self._counter = itertools.count()
        self._lock = threading.Lock()
        self._new_seqs: deque = deque()
        self._aborted: deque = deque()
        self._thread: Optional[threading.Thread] = None
        self._stopped = False
        self._idle = True

    # ---- API used by callers -------------------------------------------------------------
    def next_request_id(self) -> str:
        return str(next(self._counter))

    def add_request(self, request_id: str, prompt: Optional[str], params: SamplingParams,
                    prompt_token_ids: Optional[List[int]] = None,
                    on_output: Optional[Callable[[RequestOutput], None]] = None) -> Sequence:
        if prompt_token_ids is None:
            prompt_token_ids = self.tokenizer.encode(prompt or "")
        if not prompt_token_ids:
            raise ValueError("the prompt must contain at least one token")
        if len(prompt_token_ids) + params.max_tokens > self.max_model_len:
            raise ValueError(f"prompt ({len(prompt_token_ids)} tokens) + max_tokens "
                             f"({params.max_tokens}) exceeds max_model_len ({self.max_model_len})")
        seq = Sequence(request_id, prompt, prompt_token_ids, params, self.seed, on_output)
        with self._lock:
            self._new_seqs.append(seq)
        self._ensure_started()
        return seq

    def abort_request(self, request_id: str) -> None:
        with self._lock:
            self._aborted.append(request_id)

    def shutdown(self) -> None:
        self._stopped = True
        if self._thread is not None:
            self._thread.join(timeout=5)

    # ---- engine loop ---------------------------------------------------------------------
    def _ensure_started(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run_loop, name="toyllm-engine",
                                                daemon=True)
                self._thread.start()

    def _drain_inputs(self) -> None:
        with self._lock:
            new, self._new_seqs = list(self._new_seqs), deque()
            aborted, self._aborted = list(self._aborted), deque()
        for seq in new:
            self.scheduler.add_sequence(seq)
        for request_id in aborted:
            for seq in self.scheduler.abort(request_id):
                seq.finish_reason = "abort"
                seq.done.set()

    def _run_loop(self) -> None:
        try:
            while not self._stopped:
                self._drain_inputs()
                if not self.scheduler.has_unfinished_seqs():
                    time.sleep(config.POLL_INTERVAL_S)
                    continue
                self.step()
        except BaseException as e:  # surface engine failures to every waiting caller
            logger.exception("engine loop died")
            self._fail_all(e)

    def _fail_all(self, error: BaseException) -> None:
        self._drain_inputs()
        for seq in list(self.scheduler.waiting) + list(self.scheduler.running):
            seq.error = error
            seq.finish_reason = "error"
            seq.done.set()

    def step(self) -> List[RequestOutput]:
        seqs = self.scheduler.schedule()
        if not seqs:
            return []
        if self._idle:  # the simulated device was idle: its clock starts now
            simcost.restart()
            self._idle = False
        next_tokens = self.model.execute_model(seqs)
        outputs = []
        for seq, token in zip(seqs, next_tokens):
            seq.append_token(token)
            self._check_stop(seq, token)
            delta = self.detokenizer.decode_sequence(seq)
            outputs.append((seq, seq.to_output(delta)))
        # Pay the simulated cost of the forward pass and the detokenization in one sleep.
        simcost.settle()
        self.scheduler.free_finished(seqs)
        self._idle = not self.scheduler.has_unfinished_seqs()
        for seq, out in outputs:
            if seq.on_output is not None:
                seq.on_output(out)
            if seq.finished:
                seq.final_output = out
                seq.done.set()
        return [out for _, out in outputs]

    def _check_stop(self, seq: Sequence, token: int) -> None:
        if token == self.tokenizer.eos_token_id and not seq.params.ignore_eos:
            seq.finish_reason = "stop"
        elif len(seq.output_token_ids) >= seq.params.max_tokens:
            seq.finish_reason = "length"
        elif len(seq.prompt_token_ids) + len(seq.output_token_ids) >= self.max_model_len:
            seq.finish_reason = "length"
