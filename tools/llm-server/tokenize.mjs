// Tokenizes a text corpus with llama.cpp (node-llama-cpp, vocabulary-only load) and writes the token ids as JSON:
//   node tokenize.mjs --model VOCAB.gguf --corpus corpus.txt --out ids.json [--engine-dir DIR]
// The corpus is cut at '\n' only; {"lines": [[ids of line 1], ...], "whole": [ids of the whole file]}, no BOS
// (llama_tokenize with add_special = false, parse_special = false). The reference behind
// src/test/resources/tokenizers/llama2 (see its README.md).
import {createRequire} from "node:module";
import {join} from "node:path";
import {pathToFileURL} from "node:url";
import {readFileSync, writeFileSync} from "node:fs";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
if (!args.model || !args.corpus || !args.out) {
  console.error("usage: node tokenize.mjs --model VOCAB.gguf --corpus FILE --out FILE.json [--engine-dir DIR]");
  process.exit(2);
}
let engineModule = "node-llama-cpp";
if (args["engine-dir"]) {
  const req = createRequire(pathToFileURL(join(args["engine-dir"], "noop.js")));
  engineModule = pathToFileURL(req.resolve("node-llama-cpp")).href;
}
const {getLlama} = await import(engineModule);
const llama = await getLlama({gpu: false, build: "never", logLevel: "error"});
const model = await llama.loadModel({modelPath: args.model, vocabOnly: true});
const text = readFileSync(args.corpus, "utf8");
const ids = (s) => Array.from(model.tokenize(s, false));
let body = text.endsWith("\n") ? text.slice(0, -1) : text;
const out = {lines: body.split("\n").map(ids), whole: ids(text)};
writeFileSync(args.out, JSON.stringify(out) + "\n");
await model.dispose();
await llama.dispose();
