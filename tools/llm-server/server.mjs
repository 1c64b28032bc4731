// OpenAI-compatible server on a real LLM engine (llama.cpp through node-llama-cpp, CPU) for isobench loadgen tests.
// Usage: node server.mjs --model PATH [--port 8000] [--host 127.0.0.1] [--sequences 4] [--context 1024]
//                        [--threads 1] [--served-model-name NAME] [--engine-dir DIR]
// --engine-dir: load node-llama-cpp from DIR/node_modules (a prefix an isobench artifact arm installed a release
// into) instead of the copy next to this script; GET /health then reports the version it loaded.
// Endpoints: GET /health, GET /v1/models, POST /v1/completions, POST /v1/chat/completions (SSE or not),
// POST /tokenize. One streamed chunk per generated token; usage counted with the model's own tokenizer;
// honours max_tokens, ignore_eos, stream_options.include_usage, temperature (0 = greedy), top_p, top_k, seed.
import http from "node:http";
import {createRequire} from "node:module";
import {join} from "node:path";
import {pathToFileURL} from "node:url";
import {readFileSync} from "node:fs";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
if (!args.model) {
  console.error("usage: node server.mjs --model PATH.gguf [--port 8000] [--host 127.0.0.1] [--sequences 4]");
  process.exit(2);
}
const host = args.host ?? "127.0.0.1";
const port = Number(args.port ?? 8000);
const nSeq = Number(args.sequences ?? 4);
const servedName = args["served-model-name"] ?? "tiny-llama";
const t0 = Date.now();

// ES modules ignore NODE_PATH: an engine installed elsewhere is resolved from its own folder
let engineModule = "node-llama-cpp";
let engineVersion = null;
if (args["engine-dir"]) {
  const req = createRequire(pathToFileURL(join(args["engine-dir"], "noop.js")));
  engineModule = pathToFileURL(req.resolve("node-llama-cpp")).href;
  engineVersion = JSON.parse(readFileSync(join(args["engine-dir"], "node_modules", "node-llama-cpp", "package.json"),
    "utf8")).version;
}
const {getLlama} = await import(engineModule);

const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const model = await llama.loadModel({modelPath: args.model});
// threads: 1 — on a 2-core machine the default thread count is ~1000x slower
const context = await model.createContext({contextSize: Number(args.context ?? 1024) * nSeq, sequences: nSeq,
  threads: Number(args.threads ?? 1)});
const maxModelLen = Number(args.context ?? 1024);
const free = [];
for (let i = 0; i < nSeq; i++) free.push(context.getSequence());
const waiters = [];
const acquire = () => free.length ? Promise.resolve(free.pop()) : new Promise(r => waiters.push(r));
const release = s => { s.clearHistory().finally(() => { waiters.length ? waiters.shift()(s) : free.push(s); }); };

const json = (res, code, obj) => {
  const b = JSON.stringify(obj);
  res.writeHead(code, {"Content-Type": "application/json", "Content-Length": Buffer.byteLength(b)});
  res.end(b);
};
const readBody = async req => { let b = ""; for await (const c of req) b += c; return b; };

function chatPrompt(messages) {
  return messages.map(m => `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}\n`).join("")
    + "assistant:";
}

async function generate(b, chat, res) {
  const promptText = chat ? chatPrompt(b.messages ?? []) : (Array.isArray(b.prompt) ? b.prompt.join("") : String(b.prompt ?? ""));
  const promptTokens = model.tokenize(promptText);
  const maxTokens = Number(b.max_completion_tokens ?? b.max_tokens ?? 16);
  if (promptTokens.length + maxTokens > maxModelLen) {
    return json(res, 400, {object: "error", type: "BadRequestError", code: 400,
      message: `prompt (${promptTokens.length} tokens) + max_tokens (${maxTokens}) exceeds the context (${maxModelLen})`});
  }
  const stream = !!b.stream;
  const includeUsage = !!(b.stream_options && b.stream_options.include_usage);
  const ignoreEos = !!b.ignore_eos;
  const id = (chat ? "chatcmpl-" : "cmpl-") + Math.random().toString(16).slice(2);
  const created = Math.floor(Date.now() / 1000);
  const name = b.model ?? servedName;
  const object = chat ? "chat.completion.chunk" : "text_completion";
  let closed = false;
  res.on("close", () => { closed = true; });
  const chunk = (text, finish) => chat
    ? {id, object, created, model: name, choices: [{index: 0, delta: {content: text}, logprobs: null, finish_reason: finish}]}
    : {id, object, created, model: name, choices: [{index: 0, text, logprobs: null, finish_reason: finish}]};

  const seq = await acquire();
  const generated = [];
  let emitted = "";
  let finish = "length";
  try {
    if (stream) {
      res.writeHead(200, {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"});
      if (chat) res.write(`data: ${JSON.stringify({id, object, created, model: name,
        choices: [{index: 0, delta: {role: "assistant", content: ""}, logprobs: null, finish_reason: null}]})}\n\n`);
    }
    const temperature = Number(b.temperature ?? 0);
    const opts = {temperature, yieldEogToken: true};
    if (temperature > 0) {
      if (b.top_p != null) opts.topP = Number(b.top_p);
      if (b.top_k != null && Number(b.top_k) > 0) opts.topK = Number(b.top_k);
      if (b.seed != null) opts.seed = Number(b.seed);
    }
    if (maxTokens > 0) {
      for await (const token of seq.evaluate(promptTokens, opts)) {
        if (closed) { finish = "abort"; break; }
        const eog = model.isEogToken(token);
        if (eog && !ignoreEos) { finish = "stop"; break; }
        generated.push(token);
        // one chunk per token; hold back an incomplete UTF-8 sequence until it completes
        let text = model.detokenize(generated);
        let safe = text.endsWith("\uFFFD") ? text.slice(0, text.lastIndexOf("\uFFFD")) : text;
        const delta = safe.startsWith(emitted) ? safe.slice(emitted.length) : "";
        if (delta) emitted = safe;
        const last = generated.length >= maxTokens;
        if (stream) res.write(`data: ${JSON.stringify(chunk(delta, last ? finish : null))}\n\n`);
        if (last) break;
      }
    }
    const usage = {prompt_tokens: promptTokens.length, completion_tokens: generated.length,
      total_tokens: promptTokens.length + generated.length};
    if (stream) {
      if (finish === "stop" && !closed) res.write(`data: ${JSON.stringify(chunk("", "stop"))}\n\n`);
      if (includeUsage) res.write(`data: ${JSON.stringify({id, object, created, model: name, choices: [], usage})}\n\n`);
      res.end("data: [DONE]\n\n");
    } else {
      const text = model.detokenize(generated);
      json(res, 200, chat
        ? {id, object: "chat.completion", created, model: name,
           choices: [{index: 0, message: {role: "assistant", content: text}, logprobs: null, finish_reason: finish}], usage}
        : {id, object: "text_completion", created, model: name,
           choices: [{index: 0, text, logprobs: null, finish_reason: finish}], usage});
    }
  } catch (e) {
    if (!res.headersSent) json(res, 500, {object: "error", message: String(e && e.message || e), code: 500});
    else res.end(`data: ${JSON.stringify({error: {message: String(e && e.message || e), code: 500}})}\n\n`);
  } finally {
    release(seq);
  }
}

const server = http.createServer(async (req, res) => {
  try {
    const url = req.url.split("?")[0];
    if (req.method === "GET" && url === "/health") {
      return json(res, 200, engineVersion ? {status: "ok", engine_version: engineVersion} : {status: "ok"});
    }
    if (req.method === "GET" && url === "/v1/models")
      return json(res, 200, {object: "list", data: [{id: servedName, object: "model", owned_by: "isobench",
        max_model_len: maxModelLen}]});
    if (req.method !== "POST") return json(res, 404, {object: "error", message: `no route ${req.method} ${url}`, code: 404});
    let b;
    try { b = JSON.parse(await readBody(req)); }
    catch { return json(res, 400, {object: "error", message: "request body is not JSON", code: 400}); }
    if (url === "/tokenize") {
      const text = b.prompt ?? chatPrompt(b.messages ?? []);
      const tokens = model.tokenize(String(text));
      return json(res, 200, {count: tokens.length, max_model_len: maxModelLen, tokens: Array.from(tokens)});
    }
    if (url === "/v1/completions") return await generate(b, false, res);
    if (url === "/v1/chat/completions") return await generate(b, true, res);
    return json(res, 404, {object: "error", message: `no route POST ${url}`, code: 404});
  } catch (e) {
    if (!res.headersSent) json(res, 500, {object: "error", message: String(e && e.message || e), code: 500});
    else res.end();
  }
});
server.keepAliveTimeout = 60_000;
server.listen(port, host, () => {
  console.log(`llm-server ready on http://${host}:${server.address().port} in ${Date.now() - t0} ms`
    + ` (model ${args.model}, ${nSeq} sequences)`);
});
const stop = () => { server.close(); process.exit(0); };
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
