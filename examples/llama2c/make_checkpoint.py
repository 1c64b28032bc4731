#!/usr/bin/env python3
"""Writes a random-weight llama2.c checkpoint, deterministic from a seed (Python standard library only).

Format (llama2.c's legacy "version 0", read by run.c throughout its history): 7 little-endian int32 header
fields -- dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size (negative: the classifier is stored
apart from the token embedding), seq_len -- then float32 tensors in run.c's order:

  token_embedding_table (vocab, dim)    rms_att_weight (layers, dim)
  wq (layers, dim, dim)                  wk, wv (layers, kv_dim, dim)     wo (layers, dim, dim)
  rms_ffn_weight (layers, dim)           w1 (layers, hidden, dim)   w2 (layers, dim, hidden)   w3 (layers, hidden, dim)
  rms_final_weight (dim)                 freq_cis_real, freq_cis_imag (seq_len, head_size / 2)
  wcls (vocab, dim)                      only when vocab_size is negative in the header

Random tensors are uniform in [-scale, scale): each float's mantissa comes from
random.Random(seed).randbytes (Mersenne Twister: the same bytes for the same seed on every platform and
Python >= 3.9), mapped with IEEE float arithmetic, so the file is byte-identical wherever it is made.
RMS-norm weights are 1.0; the freq_cis tables hold the real RoPE values that older run.c versions read.

The classifier (--cls-scale) sets how peaked the next-token distribution is: see docs/llama2c.md.
When OUT exists and OUT.settings holds the same settings, nothing is written (a second session reuses it).
"""
import argparse
import array
import json
import math
import os
import random
import sys

MANTISSA = (1 << 23) - 1


def uniform(rng, count, scale):
    """count float32 values uniform in [-scale, scale), as an array('f')."""
    bits = array.array("I")
    bits.frombytes(rng.randbytes(4 * count))
    if sys.byteorder != "little":
        bits.byteswap()
    step = 2.0 * scale / (1 << 23)
    return array.array("f", [(b & MANTISSA) * step - scale for b in bits])


def constant(count, value):
    return array.array("f", [value]) * count


def rope(seq_len, head_size):
    real, imag = array.array("f"), array.array("f")
    for pos in range(seq_len):
        for i in range(0, head_size, 2):
            freq = 1.0 / (10000.0 ** (i / head_size))
            real.append(math.cos(pos * freq))
            imag.append(math.sin(pos * freq))
    return real, imag


def write(out, a):
    if sys.byteorder != "little":
        a = array.array(a.typecode, a)
        a.byteswap()
    out.write(a.tobytes())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the checkpoint file to write")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--hidden-dim", type=int, default=172)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=0, help="default: --heads")
    ap.add_argument("--vocab", type=int, default=32000, help="32000 for the repository's tokenizer.bin")
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--scale", type=float, default=0.1, help="range of the transformer weights")
    ap.add_argument("--cls-scale", type=float, default=0.1, help="range of the classifier weights")
    ap.add_argument("--shared", action="store_true",
                    help="no classifier of its own: the token embedding (range --cls-scale) is the classifier, as"
                         " in every run.c (before 2023-07-25 the only form)")
    args = ap.parse_args()
    kv_heads = args.kv_heads or args.heads
    if args.dim % args.heads or args.heads % kv_heads or (args.dim // args.heads) % 2:
        sys.exit("make_checkpoint.py: dim (%d) must split into heads (%d) of an even size, and heads into"
                 " kv-heads (%d)" % (args.dim, args.heads, kv_heads))
    settings = json.dumps(vars(args) | {"kv_heads": kv_heads, "format": "llama2.c-v0"}, sort_keys=True)
    marker = args.out + ".settings"
    if os.path.exists(args.out) and os.path.exists(marker) and open(marker).read() == settings:
        print("make_checkpoint.py: %s is up to date" % args.out)
        return
    rng = random.Random(args.seed)
    dim, hidden, layers, vocab = args.dim, args.hidden_dim, args.layers, args.vocab
    head_size = dim // args.heads
    kv_dim = head_size * kv_heads
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as out:
        header = array.array("i", [dim, hidden, layers, args.heads, kv_heads, vocab if args.shared else -vocab,
                                   args.seq_len])
        write(out, header)
        write(out, uniform(rng, vocab * dim, args.cls_scale if args.shared else args.scale))  # token embedding
        write(out, constant(layers * dim, 1.0))                       # rms_att_weight
        write(out, uniform(rng, layers * dim * dim, args.scale))     # wq
        write(out, uniform(rng, layers * kv_dim * dim, args.scale))  # wk
        write(out, uniform(rng, layers * kv_dim * dim, args.scale))  # wv
        write(out, uniform(rng, layers * dim * dim, args.scale))     # wo
        write(out, constant(layers * dim, 1.0))                       # rms_ffn_weight
        write(out, uniform(rng, layers * hidden * dim, args.scale))  # w1
        write(out, uniform(rng, layers * dim * hidden, args.scale))  # w2
        write(out, uniform(rng, layers * hidden * dim, args.scale))  # w3
        write(out, constant(dim, 1.0))                                # rms_final_weight
        real, imag = rope(args.seq_len, head_size)
        write(out, real)
        write(out, imag)
        if not args.shared:
            write(out, uniform(rng, vocab * dim, args.cls_scale))    # wcls
    os.replace(tmp, args.out)
    with open(marker, "w") as m:
        m.write(settings)
    print("make_checkpoint.py: wrote %s (%d bytes, seed %d)" % (args.out, os.path.getsize(args.out), args.seed))


if __name__ == "__main__":
    main()
