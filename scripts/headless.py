"""What the browser checks share: Debian's chromium (installed when
missing), a parsed page (`Dom`), a static file server, and headless
Chromium driven over the DevTools protocol on a pipe
(`--remote-debugging-pipe`: commands on file descriptor 3, events and
answers on 4, each message JSON ended by a NUL), with the standard library
only. Unlike `--dump-dom` with a virtual time budget, it waits in real
time, which a page whose work runs in a Web Worker needs: virtual time runs
on while the page only waits for its worker."""

import base64
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from html.parser import HTMLParser


def chromium():
    path = shutil.which("chromium")
    if path:
        return path
    print("installing chromium", file=sys.stderr)
    quiet = {"stdout": subprocess.DEVNULL}
    if subprocess.run(["apt-get", "install", "-y", "chromium"], **quiet).returncode:
        subprocess.run(["apt-get", "update"], check=True, **quiet)
        subprocess.run(["apt-get", "install", "-y", "chromium"], check=True, **quiet)
    return shutil.which("chromium")


class Dom(HTMLParser):
    """Elements by id, and every element with its attributes and text."""

    def __init__(self, html):
        super().__init__()
        self.elements = []
        self.stack = []
        self.feed(html or "")

    def handle_starttag(self, tag, attrs):
        el = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.elements.append(el)
        if tag not in ("input", "meta", "br", "img", "link"):
            self.stack.append(el)

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for el in self.stack:
            el["text"] += data

    def by_id(self, ident):
        """The element, or an empty one that fails the checks on it."""
        missing = {"tag": "", "attrs": {}, "text": ""}
        return next((e for e in self.elements if e["attrs"].get("id") == ident), missing)

    def with_class(self, cls):
        return [e for e in self.elements if cls in (e["attrs"].get("class") or "").split()]

    def body(self):
        """The body's attributes."""
        return next((e["attrs"] for e in self.elements if e["tag"] == "body"), {})


class Chromium:
    def __init__(self, exe, size="800,1000"):
        self.profile = tempfile.mkdtemp()
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # The child's descriptors 3 and 4 must be the pipes' ends. Copied
        # out of the way first: a pipe may already be 3 or 4, and dup2 onto
        # itself would leave it closed on exec.
        def fds():
            a, b = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-first-run", "--user-data-dir=" + self.profile, "--window-size=" + size,
             "about:blank"],
            # Not close_fds: it would close 3 and 4 after they were set.
            preexec_fn=fds, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buf = b""
        self.next_id = 0
        self.console = []
        self.target = None
        self.new_tab()

    def new_tab(self, size=None):
        """Drives a new tab in place of the one before: a page with no
        history and nothing left of the last one, as in a browser just
        started, for a fraction of a start's cost. `size` ("W,H") sets
        its viewport."""
        old = self.target
        self.target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=self.target, flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)
        if size:
            width, height = map(int, size.split(","))
            self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                      deviceScaleFactor=1, mobile=False)
        if old:
            self.call("Target.closeTarget", targetId=old)

    def _read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=False, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read()
            if m.get("method") == "Runtime.consoleAPICalled":
                self.console.append(" ".join(str(a.get("value", a.get("description", "")))
                                             for a in m["params"]["args"]))
            elif m.get("method") == "Runtime.exceptionThrown":
                self.console.append("exception: " + json.dumps(m["params"]["exceptionDetails"])[:500])
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})

    def eval(self, expression, wait=False):
        """The value of `expression` in the page; with `wait`, of the
        promise it gives, once settled."""
        r = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True,
                      awaitPromise=wait)
        return r.get("result", {}).get("value")

    def load(self, url, until="document.body && document.body.dataset.script === 'done'", timeout=120):
        """Opens `url` and waits (in real time) until `until` holds; the
        page's HTML then, or None if it never did."""
        self.call("Page.navigate", session=True, url=url)
        end = time.time() + timeout
        while time.time() < end:
            if self.eval(f"!!({until})"):
                return self.eval("document.documentElement.outerHTML")
            time.sleep(0.05)
        return None

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        return os.path.getsize(path)

    def close(self):
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.to_browser)
        os.close(self.from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)


def static_server(folder, isolated=False):
    """A plain static file server of `folder` on an ephemeral port; with
    `isolated`, one whose pages are cross-origin isolated (the two headers
    a host sets for a page to share memory with its workers)."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                          ".wasm": "application/wasm", ".js": "text/javascript"}

        def end_headers(self):
            if isolated:
                self.send_header("Cross-Origin-Opener-Policy", "same-origin")
                self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            super().end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=folder))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"
