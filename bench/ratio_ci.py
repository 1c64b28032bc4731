#!/usr/bin/env python3
"""A distribution-free confidence interval for the median of paired ratios, and the verdict of a cost target.

bench/loadgen runs each client once per repeat at each level, the clients back to back (interleaved), so repeat r
gives a pair (client's CPU per chunk, the C floor's) measured under about the same machine load. Its ratio is one
sample of "what the client costs over the floor". The claim "the client costs at most TARGET x the floor" is read as
"the median of that ratio is at most TARGET", and it is judged by the interval for the median from order statistics
(the sign test's interval: no assumption on the shape of the noise, which on a shared virtual machine is anything but
normal; one repeat with 5x the system time moves it by one rank, not by its size):

  with n ratios sorted, x(1) <= ... <= x(n), and B ~ Binomial(n, 1/2), the interval [x(k), x(n+1-k)] holds the median
  with probability 1 - 2 P(B <= k-1). k is the largest with that probability >= the confidence asked (0.95); when
  even k = 1 falls short (n <= 5), k = 1 and the coverage printed is the one attained (n = 5: 93.75 %).

Verdict: "holds" when the interval's upper end is <= TARGET, "fails" when its lower end is > TARGET, otherwise
"inconclusive" (more repeats, or a quieter machine). Fewer than 3 ratios give no interval ("too few repeats").

`python3 bench/ratio_ci.py --simulate` checks the rule by simulation on these very functions: ratios drawn from
skewed, heavy-tailed noise around a known median, the share of intervals that hold it against the coverage claimed,
and the verdicts against the truth (a "holds" when the true median is above the target, or a "fails" when it is below,
must be rarer than the interval's miss rate).
"""
import math
import random
import sys


def _binom_cdf_half(n, k):
    """P(B <= k) for B ~ Binomial(n, 1/2)."""
    if k < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(0, min(k, n) + 1)) / 2.0 ** n


def median_ci(values, confidence=0.95):
    """(median, low, high, coverage) of the median of `values` (NaNs dropped); None with fewer than 3 values."""
    v = sorted(x for x in values if x == x)
    n = len(v)
    if n < 3:
        return None
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    k = 1
    while k + 1 <= (n + 1) // 2 and 1 - 2 * _binom_cdf_half(n, k) >= confidence:
        k += 1
    return med, v[k - 1], v[n - k], 1 - 2 * _binom_cdf_half(n, k - 1)


def verdict(ci, target):
    """'holds', 'fails', 'inconclusive' or 'too few repeats' for the claim median <= target."""
    if ci is None:
        return "too few repeats"
    _, low, high, _ = ci
    if high <= target:
        return "holds"
    if low > target:
        return "fails"
    return "inconclusive"


def _simulate(trials=20000, seed=7):
    rng = random.Random(seed)
    bad = 0
    print(f"{'n':>3}{'true median':>12}{'claimed':>9}{'held':>8}{'wrong verdicts':>16}")
    for n in (3, 5, 7, 9, 15):
        for true_med in (1.0, 1.25, 1.6):
            held = wrong = 0
            claimed = None
            for _ in range(trials):
                # a skewed, heavy-tailed ratio: lognormal around the median, and one repeat in eight hit by a slow
                # machine on one side of the pair (a factor 1.5-5 on the client or on the floor)
                xs = []
                for _ in range(n):
                    x = true_med * math.exp(rng.gauss(0, 0.25))
                    if rng.random() < 0.125:
                        x = x * rng.uniform(1.5, 5) if rng.random() < 0.5 else x / rng.uniform(1.5, 5)
                    xs.append(x)
                # the contamination is symmetric in log space, so the median of the ratio stays true_med
                ci = median_ci(xs)
                claimed = ci[3]
                held += ci[1] <= true_med <= ci[2]
                v = verdict(ci, 1.25)
                wrong += (v == "holds" and true_med > 1.25) or (v == "fails" and true_med < 1.25)
            share, miss = held / trials, 1 - claimed
            # 4 standard errors of a proportion over `trials`: a real shortfall, not the simulation's own noise
            tol = 4 * math.sqrt(claimed * (1 - claimed) / trials)
            ok = share >= claimed - tol and wrong / trials <= miss + tol
            bad += not ok
            print(f"{n:>3}{true_med:>12.2f}{claimed:>9.4f}{share:>8.4f}{wrong / trials:>16.4f}  {'ok' if ok else 'VIOLATED'}")
    return bad


if __name__ == "__main__":
    if sys.argv[1:] == ["--simulate"]:
        sys.exit(1 if _simulate() else 0)
    print("usage: ratio_ci.py --simulate  (the functions are imported by bench/loadgen)", file=sys.stderr)
    sys.exit(2)
