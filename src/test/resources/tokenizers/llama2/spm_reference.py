#!/usr/bin/env python3
"""Builds the Llama-2 SentencePiece tokenizer reference files from llama2.c's tokenizer.bin (standard library only).

tokenizer.bin (llama2.c's tokenizer.py export of Meta's Llama-2 tokenizer.model): int32 max_token_length, then per
token float32 score, int32 length, UTF-8 bytes; the export wrote '▁' as ' ' and BOS/EOS as '\\n<s>\\n'/'\\n</s>\\n',
which is undone here.

  spm_reference.py tokenizer.bin --tokenizer-json OUT [--style legacy|metaspace]
      a HuggingFace tokenizer.json as transformers' LlamaConverter writes it: BPE with byte_fallback, vocab = the
      SentencePiece ids, merges from the scores as SentencePieceExtractor/generate_merges derives them; 'legacy' is
      the Llama-2 normalizer (Prepend '▁' + Replace ' '->'▁'), 'metaspace' the newer Metaspace pre-tokenizer
      (prepend_scheme 'first', split false; the Mistral shape).
  spm_reference.py tokenizer.bin --gguf OUT
      a vocabulary-only GGUF (tokenizer.ggml.model = "llama": tokens, scores, token types; no tensors) that
      llama.cpp loads with vocabOnly to tokenize the corpus (the reference ids).
"""
import argparse
import json
import struct

UNKNOWN, NORMAL, CONTROL, BYTE = 2, 1, 3, 6


def read_bin(path):
    data = open(path, 'rb').read()
    off = 4
    pieces, scores = [], []
    while off < len(data):
        score, n = struct.unpack_from('<fi', data, off)
        off += 8
        pieces.append(data[off:off + n].decode('utf-8'))
        scores.append(score)
        off += n
    fixed = []
    for i, p in enumerate(pieces):
        if i == 1:
            p = '<s>'
        elif i == 2:
            p = '</s>'
        fixed.append(p.replace(' ', '\u2581'))
    return fixed, scores


def token_type(i, p):
    if i == 0:
        return UNKNOWN
    if i in (1, 2):
        return CONTROL
    if len(p) == 6 and p.startswith('<0x') and p.endswith('>'):
        return BYTE
    return NORMAL


def merges_of(vocab, scores):
    """transformers' generate_merges(vocab, vocab_scores): every split of a piece into two vocabulary pieces, ordered
    by the piece's score (highest first), then the left piece's length, then the right's (stable sort, reverse)."""
    merges = []
    for piece, score in scores.items():
        local = []
        for k in range(1, len(piece)):
            left, right = piece[:k], piece[k:]
            if left in vocab and right in vocab:
                local.append((left, right, score))
        local.sort(key=lambda x: (vocab[x[0]], vocab[x[1]]))
        merges.extend(local)
    merges.sort(key=lambda v: (v[2], len(v[0]), len(v[1])), reverse=True)
    return [[a, b] for a, b, _ in merges]


def tokenizer_json(pieces, scores, style):
    vocab = {p: i for i, p in enumerate(pieces)}
    merges = merges_of(vocab, {p: scores[i] for i, p in enumerate(pieces)})
    added = [{'id': i, 'content': pieces[i], 'single_word': False, 'lstrip': False, 'rstrip': False,
              'normalized': False, 'special': True} for i in (0, 1, 2)]
    if style == 'legacy':
        normalizer = {'type': 'Sequence', 'normalizers': [
            {'type': 'Prepend', 'prepend': '\u2581'},
            {'type': 'Replace', 'pattern': {'String': ' '}, 'content': '\u2581'}]}
        pre = None
    else:
        normalizer = None
        pre = {'type': 'Metaspace', 'replacement': '\u2581', 'prepend_scheme': 'first', 'split': False}
    return {
        'version': '1.0', 'truncation': None, 'padding': None, 'added_tokens': added,
        'normalizer': normalizer, 'pre_tokenizer': pre,
        'post_processor': {'type': 'TemplateProcessing',
                           'single': [{'SpecialToken': {'id': '<s>', 'type_id': 0}},
                                      {'Sequence': {'id': 'A', 'type_id': 0}}],
                           'pair': [{'SpecialToken': {'id': '<s>', 'type_id': 0}},
                                    {'Sequence': {'id': 'A', 'type_id': 0}},
                                    {'SpecialToken': {'id': '<s>', 'type_id': 1}},
                                    {'Sequence': {'id': 'B', 'type_id': 1}}],
                           'special_tokens': {'<s>': {'id': '<s>', 'ids': [1], 'tokens': ['<s>']}}},
        'decoder': {'type': 'Sequence', 'decoders': [
            {'type': 'Replace', 'pattern': {'String': '\u2581'}, 'content': ' '},
            {'type': 'ByteFallback'}, {'type': 'Fuse'},
            {'type': 'Strip', 'content': ' ', 'start': 1, 'stop': 0}]},
        'model': {'type': 'BPE', 'dropout': None, 'unk_token': '<unk>', 'continuing_subword_prefix': None,
                  'end_of_word_suffix': None, 'fuse_unk': True, 'byte_fallback': True, 'ignore_merges': False,
                  'vocab': vocab, 'merges': merges},
    }


def gguf(pieces, scores, out):
    def s(x):
        b = x.encode('utf-8')
        return struct.pack('<Q', len(b)) + b

    kv = []

    def put(key, typ, payload):
        kv.append(s(key) + struct.pack('<I', typ) + payload)

    def arr(key, typ, fmt, items):
        body = b''.join(s(v) for v in items) if typ == 8 else b''.join(struct.pack(fmt, v) for v in items)
        put(key, 9, struct.pack('<IQ', typ, len(items)) + body)

    put('general.architecture', 8, s('llama'))
    put('general.name', 8, s('llama2-tokenizer-vocab-only'))
    for key, v in (('llama.context_length', 4096), ('llama.embedding_length', 64), ('llama.block_count', 1),
                   ('llama.feed_forward_length', 128), ('llama.attention.head_count', 4),
                   ('llama.attention.head_count_kv', 4), ('llama.rope.dimension_count', 16)):
        put(key, 4, struct.pack('<I', v))
    put('llama.attention.layer_norm_rms_epsilon', 6, struct.pack('<f', 1e-5))
    put('tokenizer.ggml.model', 8, s('llama'))
    arr('tokenizer.ggml.tokens', 8, None, pieces)
    arr('tokenizer.ggml.scores', 6, '<f', scores)
    arr('tokenizer.ggml.token_type', 5, '<i', [token_type(i, p) for i, p in enumerate(pieces)])
    for key, v in (('tokenizer.ggml.unknown_token_id', 0), ('tokenizer.ggml.bos_token_id', 1),
                   ('tokenizer.ggml.eos_token_id', 2)):
        put(key, 4, struct.pack('<I', v))
    put('tokenizer.ggml.add_bos_token', 7, b'\x01')
    put('tokenizer.ggml.add_eos_token', 7, b'\x00')
    put('tokenizer.ggml.add_space_prefix', 7, b'\x01')
    body = b'GGUF' + struct.pack('<IQQ', 3, 0, len(kv)) + b''.join(kv)
    body += b'\x00' * (-len(body) % 32)
    open(out, 'wb').write(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('tokenizer_bin')
    ap.add_argument('--tokenizer-json')
    ap.add_argument('--style', choices=['legacy', 'metaspace'], default='legacy')
    ap.add_argument('--gguf')
    a = ap.parse_args()
    pieces, scores = read_bin(a.tokenizer_bin)
    if a.tokenizer_json:
        with open(a.tokenizer_json, 'w', encoding='utf-8') as f:
            json.dump(tokenizer_json(pieces, scores, a.style), f, ensure_ascii=False)
    if a.gguf:
        gguf(pieces, scores, a.gguf)


if __name__ == '__main__':
    main()
