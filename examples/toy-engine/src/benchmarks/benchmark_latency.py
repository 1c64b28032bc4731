"""Benchmark the latency of processing a single batch of requests (vLLM's script, toy engine)."""
import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from toyllm import LLM, SamplingParams  # noqa: E402


def percentile(values, q):
    """numpy.percentile with linear interpolation."""
    s = sorted(values)
    pos = (len(s) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def main(args: argparse.Namespace):
    print(args)
    llm = LLM(model=args.model, seed=args.seed)
    sampling_params = SamplingParams(n=args.n, temperature=1.0, top_p=1.0, ignore_eos=True,
                                     max_tokens=args.output_len)
    print(sampling_params)
    rng = random.Random(args.seed)
    vocab = llm.get_tokenizer().vocab_size
    dummy_prompt_token_ids = [[rng.randrange(2, vocab) for _ in range(args.input_len)]
                              for _ in range(args.batch_size)]

    def run_to_completion():
        start_time = time.perf_counter()
        llm.generate(prompt_token_ids=dummy_prompt_token_ids, sampling_params=sampling_params,
                     use_tqdm=False)
        end_time = time.perf_counter()
        return end_time - start_time

    print("Warming up...")
    for _ in range(args.num_iters_warmup):
        run_to_completion()

    latencies = []
    for _ in range(args.num_iters):
        latencies.append(run_to_completion())
    avg_latency = sum(latencies) / len(latencies)
    percentages = [10, 25, 50, 75, 90, 99]
    percentiles = [percentile(latencies, p) for p in percentages]
    print(f"Avg latency: {avg_latency} seconds")
    for percentage, value in zip(percentages, percentiles):
        print(f"{percentage}% percentile latency: {value} seconds")

    if args.output_json:
        results = {"avg_latency": avg_latency, "latencies": latencies,
                   "percentiles": dict(zip(percentages, percentiles))}
        with open(args.output_json, "w") as f:
            json.dump(results, f, indent=4)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description="Benchmark the latency of processing a single batch of requests till completion.")
    parser.add_argument("--model", type=str, default="toy-1m")
    parser.add_argument("--tokenizer", type=str, default=None)
    parser.add_argument("--input-len", type=int, default=32)
    parser.add_argument("--output-len", type=int, default=128)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--n", type=int, default=1, help="Number of generated sequences per prompt.")
    parser.add_argument("--num-iters-warmup", type=int, default=10,
                        help="Number of iterations to run for warmup.")
    parser.add_argument("--num-iters", type=int, default=30, help="Number of iterations to run.")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output-json", type=str, default=None,
                        help="Path to save the latency results in JSON format.")
    main(parser.parse_args())
