"""The pseudo-model: the next token is a hash of the whole context (prompt + output so far).

Greedy output therefore depends only on the prompt; sampled output on the prompt and seed.
The forward pass charges a simulated GPU time that grows with the tokens in the batch
(paid by the engine at the end of the step, see toyllm.simcost).
"""
import math
import struct
import zlib
from typing import List

from toyllm import config, simcost
from toyllm.engine.sequence import Sequence
from toyllm.tokenizer import EOS_ID, NUM_WORDS, Tokenizer

_NUM_CANDIDATES = 4
# One greedy step in EOS_ODDS ends the sequence (unless ignore_eos).
_EOS_ODDS = 997


def context_state(token_ids: List[int], state: int = 0) -> int:
    for t in token_ids:
        state = zlib.crc32(struct.pack("<I", t), state)
    return state


class ToyModel:
    def __init__(self, tokenizer: Tokenizer):
        self.first_punct_id = tokenizer.first_punct_id
        self.first_word_id = tokenizer.first_word_id

    def execute_model(self, seqs: List[Sequence]) -> List[int]:
        num_tokens = 0
        for seq in seqs:
            num_tokens += 1 if seq.prefilled else len(seq.prompt_token_ids)
            seq.prefilled = True
        simcost.charge(config.STEP_OVERHEAD_S + num_tokens * config.TOKEN_COST_S)
        return [self.sample(seq) for seq in seqs]

    def _candidates(self, state: int):
        out = []
        for i in range(_NUM_CANDIDATES):
            h = zlib.crc32(struct.pack("<II", state, i))
            if i == 0 and h % _EOS_ODDS == 0:
                token = EOS_ID
            elif h % 13 == 0:
                token = self.first_punct_id + (h >> 8) % 5
            else:
                token = self.first_word_id + (h >> 4) % NUM_WORDS
            score = (h >> 12) / float(1 << 20)
            out.append((score, token))
        return out

    def sample(self, seq: Sequence) -> int:
        cands = self._candidates(seq.state)
        if seq.params.greedy:
            return max(cands)[1]
        top = max(s for s, _ in cands)
        weights = [math.exp((s - top) / seq.params.temperature) for s, _ in cands]
        return seq.rng.choices([t for _, t in cands], weights=weights)[0]
