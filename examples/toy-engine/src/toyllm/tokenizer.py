"""A deterministic toy tokenizer in the SentencePiece style.

Word pieces carry a leading "▁" (a space); punctuation pieces do not. decode() strips the
space in front of the first piece, as SentencePiece does, so decoding a single token on its
own loses its leading space: incremental detokenization has to decode with some context.
"""
import re
import zlib
from typing import List

from toyllm import config, simcost

BOS_ID = 0
EOS_ID = 1
_SPECIAL = ["<s>", "</s>"]
_PUNCT = [",", ".", ";", "!", "?"]
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
NUM_WORDS = 2000


def _words() -> List[str]:
    syllables = [c + v for c in _CONSONANTS for v in _VOWELS]
    words = list(syllables)
    for a in syllables:
        for b in syllables:
            words.append(a + b)
    return words[:NUM_WORDS]


class Tokenizer:
    def __init__(self):
        self.pieces: List[str] = list(_SPECIAL) + list(_PUNCT) + ["\u2581" + w for w in _words()]
        self.piece_to_id = {p: i for i, p in enumerate(self.pieces)}
        self.first_punct_id = len(_SPECIAL)
        self.first_word_id = len(_SPECIAL) + len(_PUNCT)
        self.eos_token_id = EOS_ID
        self.bos_token_id = BOS_ID

    @property
    def vocab_size(self) -> int:
        return len(self.pieces)

    def encode(self, text: str) -> List[int]:
        """Known words and punctuation map to their piece; any other word is hashed onto a
        word piece (lossy, but one token per word, and deterministic)."""
        ids = []
        for word in re.findall(r"[^\s,.;!?]+|[,.;!?]", text):
            pid = self.piece_to_id.get(word)
            if pid is None:
                pid = self.piece_to_id.get("\u2581" + word)
            if pid is None:
                pid = self.first_word_id + zlib.crc32(word.encode("utf-8")) % NUM_WORDS
            ids.append(pid)
        return ids

    def convert_ids_to_tokens(self, ids: List[int]) -> List[str]:
        simcost.charge(len(ids) * config.DECODE_COST_PER_TOKEN_S)
        return [self.pieces[i] for i in ids]

    def decode(self, ids: List[int], skip_special_tokens: bool = True) -> str:
        # Simulated cost of a slow tokenizer: linear in the number of tokens decoded.
        simcost.charge(len(ids) * config.DECODE_COST_PER_TOKEN_S)
        pieces = []
        for i in ids:
            if skip_special_tokens and i < len(_SPECIAL):
                continue
            pieces.append(self.pieces[i])
        text = "".join(pieces).replace("\u2581", " ")
        if text.startswith(" "):
            text = text[1:]
        return text
