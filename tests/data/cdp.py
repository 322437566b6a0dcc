"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe).

No websocket library needed: Chromium reads JSON messages, each ended by a NUL byte, from fd 3
and writes its answers to fd 4. `Browser.open(url)` loads a page and returns a `Page` on which
JavaScript can be evaluated and a full-page screenshot taken.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                  "--remote-debugging-pipe"]


def find_chromium() -> str | None:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, binary: str, timeout: float = 30.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="kopsim-chromium-")
        self._log = open(os.path.join(self.profile, "stderr.log"), "w+b")
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        # a small trampoline moves our pipe ends to fds 3 and 4, then becomes chromium
        hop = ("import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); "
               "os.execv(sys.argv[3], sys.argv[3:])")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", hop, str(to_chrome_r), str(from_chrome_w), binary,
             *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log,
            pass_fds=(to_chrome_r, from_chrome_w))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"chromium did not answer {method}")
            ready, _, _ = select.select([self._r], [], [], left)
            if ready:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    self._log.seek(0)
                    err = self._log.read().decode(errors="replace")[-2000:]
                    raise RuntimeError(f"chromium closed the pipe: {err}")
                self._buf += chunk

    def open(self, url: str, width: int = 1280, height: int = 900) -> "Page":
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target,
                                                      "flatten": True})["sessionId"]
        page = Page(self, session)
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 1,
                                                         "mobile": False}, session)
        self.send("Page.enable", {}, session)
        self.send("Page.navigate", {"url": url}, session)
        deadline = time.monotonic() + self.timeout
        while page.eval("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not finish loading")
            time.sleep(0.05)
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except Exception:  # noqa: BLE001 - it may already be gone
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._w, self._r):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Page:
    def __init__(self, browser: Browser, session: str):
        self.browser, self.session = browser, session

    def eval(self, expression: str):
        r = self.browser.send("Runtime.evaluate", {"expression": expression,
                                                   "returnByValue": True,
                                                   "awaitPromise": True}, self.session)
        if "exceptionDetails" in r:
            raise RuntimeError(f"JavaScript error: {r['exceptionDetails']}")
        return r["result"].get("value")

    def screenshot(self, path: str, full_page: bool = True) -> None:
        params = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            w, h = self.eval("[document.documentElement.scrollWidth,"
                             " document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": w, "height": h, "scale": 1}
        data = self.browser.send("Page.captureScreenshot", params, self.session)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
