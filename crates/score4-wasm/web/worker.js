// The page's back end in the browser: the API of `score4 serve`, answered
// by score4's WebAssembly (score4.wasm, crates/score4-wasm), one question
// at a time. The page sends {id, op: "health" | "get" | "stream",
// endpoint, query}; each answer is {id, kind: "reply", status, body},
// after {id, kind: "state", body} for each state of a stream. The page
// stops a search by ending this worker.
"use strict";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let wasm = null;
// The question being answered, whose stream the states belong to.
let current = 0;

// A view of the module's memory (made anew: growing the memory detaches
// the old ones).
const bytes = (ptr, len) => new Uint8Array(wasm.exports.memory.buffer, ptr, len);

const imports = {
  score4: {
    now_ms: () => performance.now(),
    emit: (ptr, len) => self.postMessage({ id: current, kind: "state", body: decoder.decode(bytes(ptr, len)) }),
  },
};

async function load() {
  const url = new URL("score4.wasm", self.location);
  let module;
  try {
    module = await WebAssembly.instantiateStreaming(fetch(url), imports);
  } catch (_) {
    // A host that does not serve .wasm as application/wasm.
    module = await WebAssembly.instantiate(await (await fetch(url)).arrayBuffer(), imports);
  }
  wasm = module.instance;
  // The budgets and tables are the module's (crates/score4-wasm).
  wasm.exports.start(Math.random() * 2 ** 53);
}
const ready = load();

// Calls an export with strings written into the module's memory (each
// passed as its address and length); the reply's status and JSON text.
function call(f, ...texts) {
  const held = [];
  try {
    const args = [];
    for (const text of texts) {
      const b = encoder.encode(text);
      const ptr = wasm.exports.alloc(b.length);
      held.push([ptr, b.length]);
      bytes(ptr, b.length).set(b);
      args.push(ptr, b.length);
    }
    const status = f(...args);
    return { status, body: decoder.decode(bytes(wasm.exports.reply_ptr(), wasm.exports.reply_len())) };
  } finally {
    for (const [ptr, len] of held) wasm.exports.dealloc(ptr, len);
  }
}

self.onmessage = async (e) => {
  const { id, op, endpoint, query } = e.data;
  let r;
  try {
    await ready;
    current = id;
    const x = wasm.exports;
    r = op === "health" ? call(x.health) : op === "stream" ? call(x.stream, query) : call(x.get, endpoint, query);
  } catch (err) {
    r = { status: 500, body: JSON.stringify({ error: "the WebAssembly back end failed: " + err }) };
  }
  self.postMessage({ id, kind: "reply", status: r.status, body: r.body });
};
