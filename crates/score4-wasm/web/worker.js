// The page's back end in the browser: the API of `score4 serve`, answered
// by score4's WebAssembly (crates/score4-wasm), one question at a time.
// The page sends {id, op: "health" | "get" | "stream", endpoint, query};
// each answer is {id, kind: "reply", status, body}, after {id, kind:
// "state", body} for each state of a stream. The page stops a search by
// ending this worker (and with it the threads it started).
//
// Where the page is cross-origin isolated (it may share memory with its
// workers), the module is score4-threads.wasm, whose searches take one
// thread a core (threads.js); elsewhere score4.wasm, on this one thread.
// `worker.js?threads=N` asks for N threads.
"use strict";
importScripts("threads.js");

// The most threads a search takes: more gain little, and each needs a
// stack and a near table in the module's memory.
const MAX_THREADS = 8;
// The threaded module's memory, in 64 KiB pages: its first and largest
// sizes (32 MiB, 1 GiB), as the build links it (.cargo/config.toml).
const MEMORY = { initial: 512, maximum: 16384, shared: true };

const encoder = new TextEncoder();
const decoder = new TextDecoder();
let wasm = null;
let memory = null;
// The question being answered, whose stream the states belong to.
let current = 0;

const asked = Math.floor(Number(new URL(self.location).searchParams.get("threads"))) || 0;
const threads = self.crossOriginIsolated
  ? Math.max(1, Math.min(asked || navigator.hardwareConcurrency || 1, MAX_THREADS))
  : 1;

// A view of the module's memory (made anew: growing the memory detaches
// the old ones).
const bytes = (ptr, len) => new Uint8Array(memory.buffer, ptr, len);
// Text out of the module's memory (copied: a decoder refuses shared memory).
const textAt = (ptr, len) => decoder.decode(bytes(ptr, len).slice());

const score4 = {
  now_ms: () => performance.now(),
  emit: (ptr, len) => self.postMessage({ id: current, kind: "state", body: textAt(ptr, len) }),
};

async function compile(url) {
  try {
    return await WebAssembly.compileStreaming(fetch(url));
  } catch (_) {
    // A host that does not serve .wasm as application/wasm.
    return WebAssembly.compile(await (await fetch(url)).arrayBuffer());
  }
}

async function load() {
  if (threads > 1) {
    const module = await compile(new URL("score4-threads.wasm", self.location));
    memory = new WebAssembly.Memory(MEMORY);
    // The main instance first: the first instance on the memory sets up
    // the module's data and the main thread's thread-local storage.
    const control = new Int32Array(new SharedArrayBuffer(controlBytes(threads)));
    wasm = await WebAssembly.instantiate(module, threadedImports(memory, control, performance.timeOrigin, score4));
    // The C library's start-up of the main thread (the threads' is theirs).
    wasm.exports._initialize();
    // The analysis's thread and the search's helpers: one a thread.
    await startThreads(module, memory, control, performance.timeOrigin);
  } else {
    const module = await compile(new URL("score4.wasm", self.location));
    wasm = await WebAssembly.instantiate(module, { score4 });
    memory = wasm.exports.memory;
  }
  // The budgets and tables are the module's (crates/score4-wasm).
  wasm.exports.start(Math.random() * 2 ** 53, threads);
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
    return { status, body: textAt(wasm.exports.reply_ptr(), wasm.exports.reply_len()) };
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
