from toyllm.engine.sequence import Sequence
from toyllm.tokenizer import Tokenizer


class Detokenizer:
    """Turns a sequence's generated token ids into text, one step at a time."""

    def __init__(self, tokenizer: Tokenizer):
        self.tokenizer = tokenizer

    def decode_sequence(self, seq: Sequence) -> str:
        """Updates seq.output_text after a new token was appended; returns the new text."""
        text = self.tokenizer.decode(seq.output_token_ids)
        delta = text[len(seq.output_text):]
        seq.output_text = text
        return delta
