"""Benchmark offline inference throughput (vLLM's script, toy engine, random dataset)."""
import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from toyllm import LLM, SamplingParams  # noqa: E402


def sample_random_requests(vocab_size, num_prompts, input_len, output_len, seed):
    """(prompt_token_ids, prompt_len, expected_output_len) per request."""
    rng = random.Random(seed)
    return [([rng.randrange(2, vocab_size) for _ in range(input_len)], input_len, output_len)
            for _ in range(num_prompts)]


def run_toyllm(requests, args):
    llm = LLM(model=args.model, seed=args.seed)
    prompts = [ids for ids, _, _ in requests]
    sampling_params = [SamplingParams(n=args.n, temperature=1.0, top_p=1.0, ignore_eos=True,
                                      max_tokens=output_len) for _, _, output_len in requests]
    start = time.perf_counter()
    llm.generate(prompt_token_ids=prompts, sampling_params=sampling_params, use_tqdm=True)
    end = time.perf_counter()
    return end - start


def main(args: argparse.Namespace):
    print(args)
    random.seed(args.seed)
    if args.dataset_name != "random" or args.dataset_path is not None:
        sys.exit("error: toyllm's benchmark_throughput supports only --dataset-name random")
    from toyllm.tokenizer import Tokenizer
    requests = sample_random_requests(Tokenizer().vocab_size, args.num_prompts, args.input_len,
                                      args.output_len, args.seed)
    elapsed_time = run_toyllm(requests, args)
    total_prompt_tokens = sum(prompt_len for _, prompt_len, _ in requests)
    total_output_tokens = sum(output_len for _, _, output_len in requests)
    total_num_tokens = total_prompt_tokens + total_output_tokens
    print(f"Throughput: {len(requests) / elapsed_time:.2f} requests/s, "
          f"{total_num_tokens / elapsed_time:.2f} total tokens/s, "
          f"{total_output_tokens / elapsed_time:.2f} output tokens/s")
    print(f"Total num prompt tokens:  {total_prompt_tokens}")
    print(f"Total num output tokens:  {total_output_tokens}")

    if args.output_json:
        results = {"elapsed_time": elapsed_time, "num_requests": len(requests),
                   "total_num_tokens": total_num_tokens,
                   "requests_per_second": len(requests) / elapsed_time,
                   "tokens_per_second": total_num_tokens / elapsed_time}
        with open(args.output_json, "w") as f:
            json.dump(results, f, indent=4)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Benchmark the throughput.")
    parser.add_argument("--backend", type=str, choices=["vllm", "toyllm"], default="vllm")
    parser.add_argument("--dataset-name", type=str, choices=["random"], default="random")
    parser.add_argument("--dataset", "--dataset-path", dest="dataset_path", type=str, default=None)
    parser.add_argument("--input-len", type=int, default=None)
    parser.add_argument("--output-len", type=int, default=None)
    parser.add_argument("--n", type=int, default=1)
    parser.add_argument("--num-prompts", type=int, default=1000)
    parser.add_argument("--model", type=str, default="toy-1m")
    parser.add_argument("--tokenizer", type=str, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output-json", type=str, default=None)
    args = parser.parse_args()
    if args.input_len is None or args.output_len is None:
        parser.error("--input-len and --output-len are required for the random dataset")
    main(args)
