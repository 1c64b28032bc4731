"""A named fake of vLLM's Prometheus exporter: the server's /metrics with vLLM's real metric names and types.

The toy engine has no GPU, no KV-cache blocks, no preemption and no speculative decoding, so some families are
modelled (said below) and some stay at zero, but every name, type, unit, label (model_name, engine) and histogram
bucket layout is vLLM's (V1 engine, vllm/v1/metrics/loggers.py), written in the text format prometheus_client
writes (counters declared as ``x_total``). isobench's scraper and its tests read it.
"""
import threading
import time

# vLLM's bucket bounds (seconds)
TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
                10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0)
E2E_BUCKETS = (0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0,
               240.0, 480.0, 960.0, 1920.0, 7680.0)
# the modelled KV cache: this many token slots, in blocks of BLOCK tokens (prefix caching reuses whole blocks)
KV_TOKENS = 16384
BLOCK = 16


def _num(v):
    if v == float("inf"):
        return "+Inf"
    return repr(float(v))


def _esc(v):
    return str(v).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


class _Histogram:
    def __init__(self, bounds):
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0

    def observe(self, v):
        self.sum += v
        for i, b in enumerate(self.bounds):
            if v <= b:
                self.counts[i] += 1
                return
        self.counts[-1] += 1

    def lines(self, name, labels):
        out = []
        acc = 0
        for b, c in zip(self.bounds + (float("inf"),), self.counts):
            acc += c
            out.append('%s_bucket{%s,le="%s"} %s' % (name, labels, _num(b), _num(acc)))
        out.append("%s_sum{%s} %s" % (name, labels, _num(self.sum)))
        out.append("%s_count{%s} %s" % (name, labels, _num(acc)))
        return out


class Metrics:
    """Thread-safe counters and histograms; gauges are read from the engine when /metrics is rendered."""

    def __init__(self, model_name):
        self.model_name = model_name
        self.lock = threading.Lock()
        self.ttft = _Histogram(TTFT_BUCKETS)
        self.e2e = _Histogram(E2E_BUCKETS)
        self.prefix_queries = 0
        self.prefix_hits = 0
        self.prompt_tokens = 0
        self.generation_tokens = 0
        self.success = 0
        self.seen_blocks = set()
        self.created = time.time()

    def on_prompt(self, token_ids):
        """Prefix cache model: a prompt's leading full blocks already seen are hits (vLLM counts tokens)."""
        with self.lock:
            self.prefix_queries += len(token_ids)
            self.prompt_tokens += len(token_ids)
            hit = True
            for end in range(BLOCK, len(token_ids) + 1, BLOCK):
                key = tuple(token_ids[:end])
                if hit and key in self.seen_blocks:
                    self.prefix_hits += BLOCK
                else:
                    hit = False
                self.seen_blocks.add(key)

    def on_first_token(self, seconds):
        with self.lock:
            self.ttft.observe(seconds)

    def on_finished(self, seconds, output_tokens):
        with self.lock:
            self.e2e.observe(seconds)
            self.generation_tokens += output_tokens
            self.success += 1

    def render(self, scheduler):
        running = list(scheduler.running)
        waiting = list(scheduler.waiting)
        used = sum(len(s.prompt_token_ids) + len(s.output_token_ids) for s in running)
        kv = min(1.0, used / KV_TOKENS)
        labels = 'engine="0",model_name="%s"' % _esc(self.model_name)
        out = []

        def family(name, mtype, help_text):
            out.append("# HELP %s %s" % (name, help_text))
            out.append("# TYPE %s %s" % (name, mtype))

        def counter(name, help_text, value):
            family(name + "_total", "counter", help_text)
            out.append("%s_total{%s} %s" % (name, labels, _num(value)))
            out.append("%s_created{%s} %s" % (name, labels, _num(self.created)))

        with self.lock:
            family("vllm:num_requests_running", "gauge", "Number of requests in model execution batches.")
            out.append("vllm:num_requests_running{%s} %s" % (labels, _num(len(running))))
            family("vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.")
            out.append("vllm:num_requests_waiting{%s} %s" % (labels, _num(len(waiting))))
            family("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.")
            out.append("vllm:kv_cache_usage_perc{%s} %s" % (labels, _num(kv)))
            counter("vllm:num_preemptions", "Cumulative number of preemption from the engine.", 0)
            counter("vllm:prefix_cache_queries",
                    "Prefix cache queries, in terms of number of queried tokens.", self.prefix_queries)
            counter("vllm:prefix_cache_hits",
                    "Prefix cache hits, in terms of number of cached tokens.", self.prefix_hits)
            counter("vllm:prompt_tokens", "Number of prefill tokens processed.", self.prompt_tokens)
            counter("vllm:generation_tokens", "Number of generation tokens processed.", self.generation_tokens)
            counter("vllm:request_success", "Count of successfully processed requests.", self.success)
            counter("vllm:spec_decode_num_drafts", "Number of spec decoding drafts.", 0)
            counter("vllm:spec_decode_num_draft_tokens", "Number of draft tokens.", 0)
            counter("vllm:spec_decode_num_accepted_tokens", "Number of accepted tokens.", 0)
            family("vllm:time_to_first_token_seconds", "histogram", "Histogram of time to first token in seconds.")
            out.extend(self.ttft.lines("vllm:time_to_first_token_seconds", labels))
            family("vllm:e2e_request_latency_seconds", "histogram",
                   "Histogram of e2e request latency in seconds.")
            out.extend(self.e2e.lines("vllm:e2e_request_latency_seconds", labels))
        return ("\n".join(out) + "\n").encode("utf-8")
