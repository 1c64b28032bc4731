"""isobench correctness probe through toyllm's offline entry point (LLM.generate).

Used as `correctness.offline_command` in demo-suite.yaml. isobench runs it in the arm's
environment (the engine's git worktree is the working folder) without a shell:

    python3 {suite_dir}/eval/offline_probe.py --prompts-file {prompts_file} --max-tokens {max_tokens} --model {model}

It reads one JSON string per line from --prompts-file, generates greedily (temperature 0),
and prints one JSON object per prompt, in order: {"index", "text", "token_ids"}.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.getcwd())  # the arm's worktree: its toyllm, not this folder's

from toyllm import LLM, SamplingParams  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prompts-file", required=True)
    ap.add_argument("--max-tokens", type=int, required=True)
    ap.add_argument("--model", default="toy-1m")
    args = ap.parse_args()
    with open(args.prompts_file, encoding="utf-8") as f:
        prompts = [json.loads(line) for line in f if line.strip()]
    llm = LLM(model=args.model, seed=0)
    params = SamplingParams(temperature=0.0, max_tokens=args.max_tokens)
    outputs = llm.generate(prompts, params)
    for i, out in enumerate(outputs):
        c = out.outputs[0]
        print(json.dumps({"index": i, "text": c.text, "token_ids": list(c.token_ids)}), flush=True)
    llm.llm_engine.shutdown()


if __name__ == "__main__":
    main()
