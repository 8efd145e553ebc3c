// Regenerates the reference cases in this folder with Hugging Face tokenizers' official
// Node binding (the library that produced the golden ids):
//
//   npm install tokenizers@0.23.2
//   node gen_cases.js <golden>/tokenizer/tokenizer.json
//
// qwen3_cases.json: edge-case and random strings encoded by the real Qwen3 tokenizer.
// tiny_cases.json: random strings for tiny/tokenizer.json, a small byte-level BPE with
// added tokens using every flag (lstrip, rstrip, single_word, normalized), legacy
// "a b" merges, and one added token that is also a vocabulary entry.
const { Tokenizer } = require("tokenizers");
const fs = require("fs");
const path = require("path");

// mulberry32: a small seeded PRNG so the strings are reproducible.
function rng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomStrings(seed, count, alphabet, maxLen) {
  const r = rng(seed);
  const out = [];
  for (let i = 0; i < count; i++) {
    const n = Math.floor(r() * maxLen);
    let s = "";
    for (let k = 0; k < n; k++) s += alphabet[Math.floor(r() * alphabet.length)];
    out.push(s);
  }
  return out;
}

const qwenAlphabet = [
  "a", "b", "z", "A", "Z", "s", "S", "t", "re", "RE", "ve", "ll", "LL", "d", "m", "\u017f", "'", "'s", "'S", "'ll", "'Re", "'t", "'D", "'M", "'VE",
  "0", "7", "42", "\u2460", "\u216b", "\u00b2", "\uff15", "\u0663",
  " ", " ", " ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u2028", "\u3000", "\u000b", "\u000c", "\u001c", "\u0085", "\u200b", "\u2009",
  ".", ",", "!", "?", "(", ")", "-", "_", "\"", "#", "@", "/", "\\", "~", "`", "<", ">", "|",
  "\u0301", "\u0308", "e\u0301", "\u1100\u1161", "\u1100", "\u1161", "\u11a8", "\uac00",
  "\u65e5", "\u672c", "\u8a9e", "\u306e", "\u30c6", "\u00e9", "\u00df", "\ufb01", "\u03a9", "\u03c9", "\u0416", "\u0436", "\u0639", "\u0645", "\u0915", "\u093f", "\u0902", "\u094d",
  "\u{1F3A8}", "\u{1F680}", "\u{1F469}\u200d\u{1F680}", "\u{1F3FD}", "\ufe0f", "\u200d", "\u{1F3F3}", "\u{E0041}",
  "<|im_end|>", "<|im_start|>", "<think>", "</think>", "<|endoftext|>", "<|im_", "<thin", "<tool_call>", "<|fim_prefix|>",
  "\u226e", "<\u0338", "\ufffd", "\u0000", "\x7f", "\u00ad", "\u2060",
];

const qwenFixed = [
  "", " ", "  ", "\n", "\n\n", " \n ", "a  b", "a   b", "a \n b", "a\u3000\u3000b", "x\t\ty",
  "don't", "DON'T", "we'VE", "it\u2019s", "'s'sss", "''s", "'\u017f", "O'Neil's",
  "3.14159", "1,000,000", "\u2460\u2461", "x\u00b2+y\u00b2",
  "<|im_end|><|im_end|>", "<|im_end|>x", "x<|im_end|>", " <|im_end|> ", "<|im_end", "<think></think>",
  "A\u0301", "\u212b", "\u1e9b\u0323", "\uac00\u11a8", "\u1100\u1161\u11a8",
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
  "hello world ".repeat(40),
  "\u{1F468}\u200d\u{1F469}\u200d\u{1F467}\u200d\u{1F466}",
];

const tinyAlphabet = [
  "<lst>", "<rst>", "<both>", "word", "wordy", "cafe\u0301", "caf\u00e9", "x y", "<|im", "<|im_end|>", "<|endoftext|>",
  " ", "  ", "\t", "\n", "a", "_", "1", "\u00e9", "\u0301", ".", "x", "y", "w", "or", "d", "hello", "'s", "\u00a0", "\u3000",
];

async function encodeAll(tok, texts) {
  const cases = [];
  for (const text of texts) {
    const enc = await tok.encode(text, null, { addSpecialTokens: false });
    const ids = Array.from(enc.getIds());
    cases.push({ text, ids, decoded: await tok.decode(ids, false) });
  }
  return cases;
}

async function write(file, tokenizerFile, texts, note) {
  const tok = Tokenizer.fromFile(tokenizerFile);
  const cases = await encodeAll(tok, texts);
  const doc = { generator: "tokenizers 0.23.2 (Node binding), encode(text, addSpecialTokens=false)", note, cases };
  fs.writeFileSync(path.join(__dirname, file), JSON.stringify(doc, null, 0) + "\n");
}

(async () => {
  const qwen = process.argv[2];
  if (!qwen) throw new Error("usage: node gen_cases.js <golden>/tokenizer/tokenizer.json");
  await write("qwen3_cases.json", qwen, qwenFixed.concat(randomStrings(1, 400, qwenAlphabet, 24)),
    "Qwen3 tokenizer.json from the golden data");
  await write("tiny_cases.json", path.join(__dirname, "tiny", "tokenizer.json"),
    randomStrings(2, 600, tinyAlphabet, 12), "tiny/tokenizer.json");
})();
