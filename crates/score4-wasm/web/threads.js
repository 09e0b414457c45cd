// The threads of score4's threaded module (score4-threads.wasm, built for
// wasm32-wasip1-threads): its memory is shared, and each thread is a
// worker running this script with its own instance of the module on that
// memory. worker.js loads this file (importScripts) for what both roles
// need: the few system calls the module's standard library makes, and
// `thread-spawn`.
//
// The workers are started when the module is loaded, before any search,
// and wait for work on a shared array (Atomics.wait). A search's thread
// then starts at once, without the event loop of the worker asking for it,
// which is blocked while it searches. A thread asked for when every worker
// is busy is refused, and the library runs without it.
"use strict";

// A slot's state in the control array: its worker is starting, waits for
// work, has been given a thread (whose number and argument are being
// written), or runs it. STARTING is 0, what a new array holds, so no code
// sets it; it names the state that `spawner` never claims.
const STARTING = 0, IDLE = 1, CLAIMED = 2, RUN = 3;
// Each slot is three Int32s (state, thread number, argument); the array's
// first Int32 is the last thread number given.
const SLOT = 3;
const EAGAIN = 6, EBADF = 8;

// The system calls the module imports (wasi_snapshot_preview1): a clock,
// random bytes, an empty environment, output to the console, and no files.
// `origin` is the loading worker's performance.timeOrigin, so that every
// thread's clock reads the same.
function wasiImports(memory, origin) {
  const view = () => new DataView(memory.buffer);
  const decoder = new TextDecoder();
  const noFiles = () => EBADF;
  return {
    clock_time_get(id, _precision, out) {
      // Realtime (0) from the epoch; the others from the first worker's start.
      const ms = id === 0 ? Date.now() : performance.timeOrigin + performance.now() - origin;
      view().setBigUint64(out, BigInt(Math.round(ms * 1e6)), true);
      return 0;
    },
    random_get(ptr, len) {
      // getRandomValues refuses shared memory and more than 64 KiB a call.
      for (let at = 0; at < len; at += 65536) {
        const n = Math.min(65536, len - at);
        const b = crypto.getRandomValues(new Uint8Array(n));
        new Uint8Array(memory.buffer, ptr + at, n).set(b);
      }
      return 0;
    },
    environ_sizes_get(count, size) {
      view().setUint32(count, 0, true);
      view().setUint32(size, 0, true);
      return 0;
    },
    environ_get: () => 0,
    fd_write(fd, iovs, n, written) {
      const v = view();
      let text = "", total = 0;
      for (let i = 0; i < n; i++) {
        const ptr = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
        text += decoder.decode(new Uint8Array(memory.buffer, ptr, len).slice());
        total += len;
      }
      (fd === 2 ? console.error : console.log)(text);
      v.setUint32(written, total, true);
      return 0;
    },
    proc_exit(code) {
      throw new Error("score4's module exited with status " + code);
    },
    sched_yield: () => 0,
    fd_close: noFiles,
    fd_fdstat_get: noFiles,
    fd_filestat_get: noFiles,
    fd_prestat_get: noFiles,
    fd_prestat_dir_name: noFiles,
    fd_read: noFiles,
    fd_seek: noFiles,
    path_open: noFiles,
  };
}

// `thread-spawn` on the control array: an idle worker is given the thread
// (the library's argument) and woken; its number, or -EAGAIN if none is idle.
function spawner(control) {
  const slots = (control.length - 1) / SLOT;
  return (arg) => {
    for (let i = 0; i < slots; i++) {
      const at = 1 + SLOT * i;
      if (Atomics.compareExchange(control, at, IDLE, CLAIMED) === IDLE) {
        const tid = Atomics.add(control, 0, 1) + 1;
        Atomics.store(control, at + 1, tid);
        Atomics.store(control, at + 2, arg);
        Atomics.store(control, at, RUN);
        Atomics.notify(control, at);
        return tid;
      }
    }
    return -EAGAIN;
  };
}

// Everything an instance of the threaded module imports.
function threadedImports(memory, control, origin, score4) {
  return {
    env: { memory },
    score4,
    wasi_snapshot_preview1: wasiImports(memory, origin),
    wasi: { "thread-spawn": spawner(control) },
  };
}

// The bytes of a control array for `n` threads.
const controlBytes = (n) => 4 * (1 + SLOT * n);

// Starts a thread worker for each slot of `control`, each with its own
// instance of `module` on `memory` (made after the main one, which set up
// the memory); resolves once each has its instance or failed (its slot
// then stays STARTING, and is never given a thread).
function startThreads(module, memory, control, origin) {
  const started = [];
  for (let i = 0; i < (control.length - 1) / SLOT; i++) {
    const w = new Worker(new URL("threads.js", self.location), { name: "score4-thread" });
    started.push(new Promise((resolve) => {
      w.onmessage = resolve;
      w.onerror = resolve;
    }));
    w.postMessage({ module, memory, control, slot: i, origin });
  }
  return Promise.all(started);
}

// The thread role: instantiate, say so, then run each thread given.
if (self.name === "score4-thread") {
  self.onmessage = async (e) => {
    const { module, memory, control, slot, origin } = e.data;
    // A thread neither reads the page's clock nor streams (both happen on
    // the thread that answers the page), but the module imports them.
    const now_ms = () => performance.timeOrigin + performance.now() - origin;
    const score4 = { now_ms, emit: () => {} };
    let instance;
    try {
      instance = await WebAssembly.instantiate(module, threadedImports(memory, control, origin, score4));
    } catch (err) {
      console.error("score4: a thread's instance failed: " + err);
      self.postMessage("failed");
      return;
    }
    const at = 1 + SLOT * slot;
    Atomics.store(control, at, IDLE);
    self.postMessage("ready");
    for (;;) {
      let s;
      while ((s = Atomics.load(control, at)) !== RUN) Atomics.wait(control, at, s);
      try {
        instance.exports.wasi_thread_start(Atomics.load(control, at + 1), Atomics.load(control, at + 2));
      } catch (err) {
        // A trap (a panic, in WebAssembly) ends the thread; the page's
        // next question starts a fresh module.
        console.error("score4: a thread stopped: " + err);
      }
      Atomics.store(control, at, IDLE);
    }
  };
}
