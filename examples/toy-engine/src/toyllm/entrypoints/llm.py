from typing import List, Optional, Sequence as Seq, Union

from toyllm import config
from toyllm.engine.llm_engine import LLMEngine
from toyllm.engine.sequence import RequestOutput
from toyllm.sampling_params import SamplingParams


class LLM:
    """Offline entry point, shaped like vllm.LLM."""

    def __init__(self, model: str = config.DEFAULT_MODEL, seed: int = 0, **engine_kwargs):
        self.llm_engine = LLMEngine(model=model, seed=seed, **engine_kwargs)

    def get_tokenizer(self):
        return self.llm_engine.tokenizer

    def generate(self, prompts: Union[None, str, Seq[str]] = None,
                 sampling_params: Union[None, SamplingParams, Seq[SamplingParams]] = None,
                 prompt_token_ids: Optional[List[List[int]]] = None,
                 use_tqdm: bool = False) -> List[RequestOutput]:
        if isinstance(prompts, str):
            prompts = [prompts]
        if prompt_token_ids is not None:
            items = [(None, ids) for ids in prompt_token_ids]
        else:
            items = [(p, None) for p in (prompts or [])]
        if sampling_params is None:
            sampling_params = SamplingParams()
        if isinstance(sampling_params, SamplingParams):
            sampling_params = [sampling_params] * len(items)
        if len(sampling_params) != len(items):
            raise ValueError(f"sampling_params ({len(sampling_params)}) and prompts "
                             f"({len(items)}) must have the same length")
        engine = self.llm_engine
        seqs = [engine.add_request(engine.next_request_id(), prompt, params, ids)
                for (prompt, ids), params in zip(items, sampling_params)]
        outputs = []
        for seq in seqs:
            seq.done.wait()
            if seq.error is not None:
                raise RuntimeError(f"engine failed: {seq.error!r}") from seq.error
            outputs.append(seq.final_output)
        return outputs
