"""A tiny exact-answer eval for the toy engine (the demo's accuracy hook).

isobench runs it once per arm, in the arm's environment (the engine's worktree is the working
folder), after the benchmark rounds:

    python3 {suite_dir}/eval/accuracy.py --model {model}

Each item of accuracy_set.json is a prompt and the answer the engine must give greedily
(temperature 0, max_tokens from the item). The answers are toyllm's own deterministic greedy
outputs at the baseline commit, so a correct optimisation scores 1.0 and an engine that drops
spaces or repeats tokens scores less. Prints `accuracy: <score>` and one JSON line
{"accuracy": score, "correct": n, "total": n}.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.getcwd())  # the arm's worktree

from toyllm import LLM, SamplingParams  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="toy-1m")
    ap.add_argument("--set", default=os.path.join(HERE, "accuracy_set.json"))
    ap.add_argument("--write-answers", action="store_true",
                    help="regenerate the answers from the engine in the working folder (run at the baseline)")
    args = ap.parse_args()
    with open(args.set, encoding="utf-8") as f:
        items = json.load(f)
    llm = LLM(model=args.model, seed=0)
    outs = []
    for it in items:
        params = SamplingParams(temperature=0.0, max_tokens=it["max_tokens"])
        outs.append(llm.generate([it["prompt"]], params)[0].outputs[0].text)
    llm.llm_engine.shutdown()
    if args.write_answers:
        for it, text in zip(items, outs):
            it["answer"] = text
        with open(args.set, "w", encoding="utf-8") as f:
            json.dump(items, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote {len(items)} answers to {args.set}")
        return
    correct = sum(1 for it, text in zip(items, outs) if text == it["answer"])
    score = correct / len(items)
    for it, text in zip(items, outs):
        if text != it["answer"]:
            print(f"wrong: {it['prompt']!r}: expected {it['answer']!r} got {text!r}")
    print(f"accuracy: {score:.4f}")
    print(json.dumps({"accuracy": score, "correct": correct, "total": len(items)}))


if __name__ == "__main__":
    main()
