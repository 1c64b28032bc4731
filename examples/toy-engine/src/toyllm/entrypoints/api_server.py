"""OpenAI-compatible HTTP server (the /v1/completions subset vLLM's benchmarks use).

    python3 -m toyllm.entrypoints.api_server --host 127.0.0.1 --port 8000 --model toy-1m
"""
import argparse
import json
import logging
import os
import queue
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from toyllm import __version__, config
from toyllm.engine.llm_engine import LLMEngine
from toyllm.metrics import Metrics
from toyllm.sampling_params import SamplingParams

logger = logging.getLogger("toyllm.api_server")


class BadRequest(Exception):
    def __init__(self, message, status=400, kind="BadRequestError"):
        super().__init__(message)
        self.status = status
        self.kind = kind


def _error_body(message, kind, status):
    return {"object": "error", "message": message, "type": kind, "param": None, "code": status}


def _usage(prompt_tokens, completion_tokens):
    return {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens + completion_tokens,
            "completion_tokens": completion_tokens, "prompt_tokens_details": None}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "toyllm/" + __version__
    engine: LLMEngine = None
    metrics: Metrics = None
    served_model = config.DEFAULT_MODEL

    def setup(self):
        super().setup()
        # Small SSE writes must leave at once (Nagle + delayed ACK would add ~40 ms gaps).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, fmt, *args):
        if not self.server.quiet:
            sys.stderr.write("INFO:     %s - %s\n" % (self.client_address[0], fmt % args))

    # ---- helpers -------------------------------------------------------------------------
    def _send_json(self, status, body):
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _write_chunk(self, payload: bytes):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))

    def _sse(self, obj):
        data = obj if isinstance(obj, str) else json.dumps(obj)
        self._write_chunk(("data: " + data + "\n\n").encode("utf-8"))

    # ---- routes --------------------------------------------------------------------------
    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/health":
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/metrics":
            data = self.metrics.render(self.engine.scheduler)
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif path == "/version":
            self._send_json(200, {"version": __version__})
        elif path == "/v1/models":
            self._send_json(200, {"object": "list", "data": [{
                "id": self.served_model, "object": "model", "created": int(self.server.started),
                "owned_by": "toyllm", "root": self.served_model, "parent": None,
                "max_model_len": self.engine.max_model_len}]})
        else:
            self._send_json(404, _error_body(f"Not Found: {path}", "NotFoundError", 404))

    def do_POST(self):
        path = self.path.split("?", 1)[0]
        try:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if path not in ("/v1/completions", "/tokenize", "/detokenize"):
                raise BadRequest(f"Not Found: {path}", 404, "NotFoundError")
            try:
                body = json.loads(raw or b"{}")
            except ValueError as e:
                raise BadRequest(f"invalid JSON body: {e}")
            if path == "/tokenize":
                self._tokenize(body)
            elif path == "/detokenize":
                self._detokenize(body)
            else:
                self._completions(body)
        except BadRequest as e:
            self._send_json(e.status, _error_body(str(e), e.kind, e.status))
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _tokenize(self, body):
        prompt = body.get("prompt")
        if not isinstance(prompt, str):
            raise BadRequest("'prompt' must be a string")
        tokens = self.engine.tokenizer.encode(prompt)
        self._send_json(200, {"count": len(tokens), "max_model_len": self.engine.max_model_len,
                              "tokens": tokens})

    def _detokenize(self, body):
        tokens = body.get("tokens")
        vocab = self.engine.tokenizer.vocab_size
        if not isinstance(tokens, list) or not all(isinstance(t, int) and 0 <= t < vocab
                                                   for t in tokens):
            raise BadRequest(f"'tokens' must be a list of token ids below {vocab}")
        self._send_json(200, {"prompt": self.engine.tokenizer.decode(tokens)})

    def _parse(self, body):
        model = body.get("model", self.served_model)
        if model != self.served_model:
            raise BadRequest(f"The model `{model}` does not exist.", 404, "NotFoundError")
        prompt = body.get("prompt")
        if isinstance(prompt, str):
            prompts = [(prompt, None)]
        elif isinstance(prompt, list) and prompt and all(isinstance(p, int) for p in prompt):
            vocab = self.engine.tokenizer.vocab_size
            if not all(0 <= p < vocab for p in prompt):
                raise BadRequest(f"token ids in 'prompt' must be in 0..{vocab - 1}")
            prompts = [(None, prompt)]
        elif isinstance(prompt, list) and prompt and all(isinstance(p, str) for p in prompt):
            prompts = [(p, None) for p in prompt]
        else:
            raise BadRequest("'prompt' must be a string, a list of strings or a list of token ids")
        try:
            params = SamplingParams(
                n=int(body.get("n", 1)),
                temperature=float(body.get("temperature", 1.0)),
                top_p=float(body.get("top_p", 1.0)),
                seed=body.get("seed"),
                max_tokens=int(body.get("max_tokens") or 16),
                ignore_eos=bool(body.get("ignore_eos", False)),
            )
        except (TypeError, ValueError) as e:
            raise BadRequest(str(e))
        return model, prompts, params

    def _completions(self, body):
        t0 = time.monotonic()
        model, prompts, params = self._parse(body)
        stream = bool(body.get("stream", False))
        if stream and len(prompts) != 1:
            raise BadRequest("streaming supports exactly one prompt")
        request_id = "cmpl-" + self.engine.next_request_id()
        created = int(time.time())
        outq = queue.Queue()
        seqs = []
        try:
            for i, (text, ids) in enumerate(prompts):
                seqs.append(self.engine.add_request(f"{request_id}-{i}", text, params, ids,
                                                    on_output=outq.put))
        except ValueError as e:
            raise BadRequest(str(e))
        for seq in seqs:
            self.metrics.on_prompt(seq.prompt_token_ids)
        if stream:
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._stream(seqs[0], outq, request_id, created, model, include_usage, t0)
            return
        for seq in seqs:
            seq.done.wait()
            if seq.error is not None:
                self._send_json(500, _error_body(f"engine error: {seq.error!r}",
                                                 "InternalServerError", 500))
                return
        for seq in seqs:
            self.metrics.on_finished(time.monotonic() - t0, len(seq.output_token_ids))
        choices = [{"index": i, "text": s.output_text, "logprobs": None,
                    "finish_reason": s.finish_reason, "stop_reason": None,
                    "prompt_logprobs": None} for i, s in enumerate(seqs)]
        usage = _usage(sum(len(s.prompt_token_ids) for s in seqs),
                       sum(len(s.output_token_ids) for s in seqs))
        self._send_json(200, {"id": request_id, "object": "text_completion", "created": created,
                              "model": model, "choices": choices, "usage": usage})

    def _stream(self, seq, outq, request_id, created, model, include_usage, t0):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        first = True
        try:
            while True:
                try:
                    out = outq.get(timeout=0.5)
                except queue.Empty:
                    if seq.done.is_set() and outq.empty():
                        break
                    continue
                finish = out.outputs[0].finish_reason if out.finished else None
                if first and (out.delta_text or finish):
                    first = False
                    self.metrics.on_first_token(time.monotonic() - t0)
                if out.finished and seq.error is None:
                    self.metrics.on_finished(time.monotonic() - t0, len(seq.output_token_ids))
                if out.delta_text or finish:
                    self._sse({"id": request_id, "object": "text_completion", "created": created,
                               "model": model,
                               "choices": [{"index": 0, "text": out.delta_text, "logprobs": None,
                                            "finish_reason": finish, "stop_reason": None}]})
                if out.finished:
                    break
            if seq.error is not None:
                self._sse({"error": _error_body(f"engine error: {seq.error!r}",
                                                "InternalServerError", 500)})
            elif include_usage:
                self._sse({"id": request_id, "object": "text_completion", "created": created,
                           "model": model, "choices": [],
                           "usage": _usage(len(seq.prompt_token_ids), len(seq.output_token_ids))})
            self._sse("[DONE]")
            self._write_chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            self.engine.abort_request(seq.request_id)
            self.close_connection = True


def make_parser():
    p = argparse.ArgumentParser(description="toyllm OpenAI-compatible API server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--model", default=config.DEFAULT_MODEL)
    p.add_argument("--served-model-name", default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-model-len", type=int, default=config.MAX_MODEL_LEN)
    p.add_argument("--quiet", action="store_true", help="do not log each HTTP request")
    # Accepted for command-line compatibility with vLLM; they change nothing here.
    for flag in ("--disable-log-requests", "--disable-log-stats", "--enforce-eager",
                 "--trust-remote-code"):
        p.add_argument(flag, action="store_true", help=argparse.SUPPRESS)
    for flag in ("--dtype", "--gpu-memory-utilization", "--tensor-parallel-size",
                 "--tokenizer", "--max-num-seqs", "--max-num-batched-tokens"):
        p.add_argument(flag, default=None, help=argparse.SUPPRESS)
    return p


def main(argv=None):
    args = make_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s:     %(message)s")
    engine = LLMEngine(model=args.model, seed=args.seed, max_model_len=args.max_model_len)
    Handler.engine = engine
    Handler.served_model = args.served_model_name or args.model
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    server.daemon_threads = True
    Handler.metrics = Metrics(Handler.served_model)
    server.started = time.time()
    server.quiet = args.quiet or args.disable_log_requests
    print(f"INFO:     Started server process [{os.getpid()}]", flush=True)
    print(f"INFO:     toyllm {__version__} serving model {Handler.served_model}", flush=True)
    print(f"INFO:     API server running on http://{args.host}:{args.port} "
          f"(Press CTRL+C to quit)", flush=True)
    print("INFO:     Application startup complete.", flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        engine.shutdown()


if __name__ == "__main__":
    main()
