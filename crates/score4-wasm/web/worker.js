// The page's back end in the browser: the API of `score4 serve`, answered
// by score4's WebAssembly (`Backend`), one question at a time. The page
// sends {id, op: "health" | "get" | "stream", endpoint, query}; each answer
// is {id, kind: "reply", status, body}, after {id, kind: "state", body} for
// each state of a stream. The page stops a search by ending this worker.
import init, { Backend } from "./score4_wasm.js";

// Each solver's table, in MiB (7x6's and the last other board's).
const TABLE_MB = 64;
// As `score4 serve` by default: 3 s an answer, up to 60 s when asked.
const BUDGET_MS = 3000;
const MAX_BUDGET_MS = 60000;

const ready = init().then(() => new Backend(TABLE_MB, BUDGET_MS, MAX_BUDGET_MS, Math.random() * 2 ** 53));

self.onmessage = async (e) => {
  const { id, op, endpoint, query } = e.data;
  let status = 500, body;
  try {
    const backend = await ready;
    if (op === "health") {
      status = 200;
      body = backend.health();
    } else {
      const r = op === "stream"
        ? backend.stream(query, (s) => self.postMessage({ id, kind: "state", body: s }))
        : backend.get(endpoint, query);
      status = r.status;
      body = r.body;
      r.free();
    }
  } catch (err) {
    body = JSON.stringify({ error: "the WebAssembly back end failed: " + err });
  }
  self.postMessage({ id, kind: "reply", status, body });
};
