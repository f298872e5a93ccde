"""Drive headless Debian chromium over the DevTools protocol: open a page, click, shoot.

`render_in_chromium` (conftest) covers static pages; the Prefect UI is a single-page app
whose forms open on a click, so this opens the page, waits for text to appear, clicks a
button by its label and captures the screen. Uses `websockets` (a Prefect dependency).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

from conftest import CHROMIUM_FLAGS
from websockets.sync.client import connect


class Page:
    """One tab: `evaluate` JavaScript, `wait_for_text`, `click_button`, `screenshot`."""

    def __init__(self, ws_url: str):
        self._ws = connect(ws_url, max_size=64 * 1024 * 1024, open_timeout=30)
        self._ids = count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        message_id = next(self._ids)
        self._ws.send(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            reply = json.loads(self._ws.recv(timeout=60))
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    def text(self) -> str:
        return self.evaluate("document.body ? document.body.innerText : ''") or ""

    def wait_for_text(self, wanted: str, timeout_s: float = 60) -> str:
        deadline = time.monotonic() + timeout_s
        while True:
            text = self.text()
            if wanted in text:
                return text
            if time.monotonic() > deadline:
                raise AssertionError(f"{wanted!r} never appeared; page text: {text[:2000]}")
            time.sleep(0.5)

    def click_button(self, label: str) -> bool:
        script = (
            "(() => { const b = [...document.querySelectorAll('button')]"
            f".find(e => e.innerText.trim() === {json.dumps(label)});"
            " if (!b) return false; b.click(); return true; })()"
        )
        return bool(self.evaluate(script))

    def screenshot(self, path: Path) -> Path:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        self._ws.close()


@contextlib.contextmanager
def chromium_page(url: str, work: Path, size: tuple[int, int] = (1400, 1600)) -> Iterator[Page]:
    """A headless chromium showing `url`, driven over a DevTools websocket."""
    chromium = shutil.which("chromium") or "chromium"
    profile = work / "chromium-cdp"
    process = subprocess.Popen(
        [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={size[0]},{size[1]}",
            "--remote-debugging-port=0",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    page = None
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.is_file() or not port_file.read_text().strip():
            assert process.poll() is None, "chromium exited"
            assert time.monotonic() < deadline, "chromium never opened its DevTools port"
            time.sleep(0.2)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as answer:
            targets = json.load(answer)
        target = next(t for t in targets if t.get("type") == "page")
        page = Page(target["webSocketDebuggerUrl"])
        page.call("Page.enable")
        page.call(
            "Emulation.setDeviceMetricsOverride",
            width=size[0],
            height=size[1],
            deviceScaleFactor=1,
            mobile=False,
        )
        page.call("Page.navigate", url=url)
        yield page
    finally:
        if page is not None:
            page.close()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
