"""A person at a real X screen: Xvfb (-displayfd) with openbox, real mouse and keyboard input through xdotool,
and eyes that read where things are on the page over the DevTools protocol of the browser under test.

Used by bench/realapps.py to record flows in BrowserPilot's own environment window, in Playwright's codegen
and in Chrome's Recorder with the same hands: the tools see nothing but X input. The eyes never go through the
tool under test (no operation of ours, no Playwright or Puppeteer call): they talk to the browser's DevTools
port (`--remote-debugging-port`) with a small WebSocket client of their own (stdlib only), so reading the page
cannot pause or disturb a recording.

- `Screen` (tests/support/desktop.py): Xvfb and openbox, `xdotool` and window helpers; stopped by pid.
- `DevTools`: the browser's DevTools port: its page and frame targets, JavaScript evaluated in them.
- `Eyes`: where an element (a JavaScript expression) is on the screen, in the top page or in a frame
  (cross-origin frames too: they are targets of their own); the page's address; waiting for what a person
  waits for.
- `Hands`: move, click, wheel, type and press keys as a person does, through xdotool.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import socket
import struct
import threading
import time
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable

from tests.support.desktop import Screen, wait_until

__all__ = ["DevTools", "Eyes", "Hands", "Screen", "missing_tools", "wait_until"]
TOOLS = ("Xvfb", "openbox", "wmctrl", "xdotool", "xwininfo")


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


# -- the DevTools protocol -----------------------------------------------------------------------------------------
class WebSocket:
    """A minimal RFC 6455 client: text messages, masking, fragments, ping/pong. Enough for DevTools."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        match = re.match(r"ws://([^/:]+):(\d+)(/.*)", url)
        if not match:
            raise ValueError(f"not a ws:// address: {url}")
        host, port, path = match.group(1), int(match.group(2)), match.group(3)
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                           ).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the DevTools port closed the connection during the handshake")
            head += chunk
        head, _, self.buffer = head.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError(f"WebSocket handshake refused: {head[:200]!r}")

    def send(self, text: str) -> None:
        payload = text.encode()
        header = bytearray([0x81])
        if len(payload) < 126:
            header.append(0x80 | len(payload))
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        mask = os.urandom(4)
        header += mask
        self.sock.sendall(bytes(header) + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the DevTools connection closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8))[0]
            payload = self._read(length)
            if opcode == 0x9:  # ping
                self.sock.sendall(bytes([0x8A, 0x80]) + os.urandom(4))
                continue
            if opcode == 0x8:
                raise ConnectionError("the DevTools connection was closed by the browser")
            message += payload
            if first & 0x80:
                return message.decode()

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass


class DevTools:
    """A browser's DevTools port (`--remote-debugging-port`): its targets and one connection per target."""

    def __init__(self, port: int, host: str = "127.0.0.1") -> None:
        self.base = f"http://{host}:{port}"
        self.sockets: dict[str, WebSocket] = {}
        self.next_id = 0

    def targets(self) -> list[dict[str, Any]]:
        try:
            with urllib.request.urlopen(self.base + "/json/list", timeout=5) as response:  # noqa: S310 - loopback
                return json.loads(response.read())  # type: ignore[no-any-return]
        except OSError:
            return []

    def call(self, target: dict[str, Any], method: str, params: dict[str, Any] | None = None,
             timeout: float = 30.0, session: str | None = None, events: list[dict[str, Any]] | None = None
             ) -> dict[str, Any]:
        """One command to the target (or to a session attached through it); `events` collects the events that
        arrive meanwhile."""
        ident = target["id"]
        if ident not in self.sockets:
            self.sockets[ident] = WebSocket(target["webSocketDebuggerUrl"], timeout)
        sock = self.sockets[ident]
        self.next_id += 1
        wanted = self.next_id
        try:
            command: dict[str, Any] = {"id": wanted, "method": method, "params": params or {}}
            if session:
                command["sessionId"] = session
            sock.send(json.dumps(command))
            while True:
                message = json.loads(sock.receive())
                if "id" not in message and events is not None:
                    events.append(message)
                if message.get("id") == wanted:
                    if "error" in message:
                        raise RuntimeError(f"{method}: {message['error']}")
                    return message.get("result") or {}
        except (OSError, ConnectionError):
            self.sockets.pop(ident, None)
            sock.close()
            raise

    def frame_context(self, target: dict[str, Any], src: str) -> tuple[str | None, int] | None:
        """Where to evaluate in the frame showing `src` (a cross-origin one too): (session, context id). An
        in-process frame gets an isolated world of its own in the page's target; an out-of-process frame is
        reached through a session attached to it (Target.setAutoAttach, flat sessions)."""
        def frames(tree: dict[str, Any]) -> list[dict[str, Any]]:
            return [tree["frame"], *(f for child in tree.get("childFrames") or [] for f in frames(child))]

        def same(url: str) -> bool:
            return url.split("#")[0] == src.split("#")[0]

        tree = self.call(target, "Page.getFrameTree")["frameTree"]
        for frame in frames(tree)[1:]:
            if same(frame.get("url", "")):
                try:
                    world = self.call(target, "Page.createIsolatedWorld", {"frameId": frame["id"],
                                                                           "worldName": "bench-eyes"})
                    return None, int(world["executionContextId"])
                except RuntimeError:
                    break
        events: list[dict[str, Any]] = []
        self.call(target, "Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False,
                                                   "flatten": True}, events=events)
        for event in events:
            info = event.get("params", {}).get("targetInfo", {})
            if event.get("method") == "Target.attachedToTarget" and same(info.get("url", "")):
                return event["params"]["sessionId"], 0
        return None

    def evaluate(self, target: dict[str, Any], expression: str, await_promise: bool = False,
                 timeout: float = 30.0, session: str | None = None, context: int = 0) -> Any:
        """The JSON value of `expression` in the target's main world, or in the given session / execution
        context (None when it threw)."""
        wrapped = (f"(async () => JSON.stringify(await ({expression})))()" if await_promise
                   else f"JSON.stringify(({expression}))")
        params: dict[str, Any] = {"expression": wrapped, "returnByValue": True, "awaitPromise": await_promise}
        if context:
            params["contextId"] = context
        result = self.call(target, "Runtime.evaluate", params, timeout, session=session)
        if "exceptionDetails" in result:
            return None
        value = result.get("result", {}).get("value")
        return json.loads(value) if isinstance(value, str) else None

    def close(self) -> None:
        for sock in self.sockets.values():
            sock.close()
        self.sockets.clear()


# -- the eyes ---------------------------------------------------------------------------------------------------------
# Where the viewport sits on the screen, as far as the page can tell: it moves down when the browser shows a bar
# above the page (an infobar) and with the window; a panel beside the page changes only the viewport's width.
CHROME = "[screenX, screenY + outerHeight - innerHeight]"
RECT = """(() => { const el = (%s); if (el === true) return {ok: true};
  if (!el || !el.getBoundingClientRect) return null; const r = el.getBoundingClientRect();
  const s = getComputedStyle(el); if (r.width < 1 || r.height < 1 || s.visibility === 'hidden') return null;
  return {x: r.x, y: r.y, w: r.width, h: r.height, vw: innerWidth, vh: innerHeight, chrome: CHROME};
})()""".replace("CHROME", CHROME)
FRAME_RECT = """(() => { const f = document.querySelector(%s); if (!f) return null; const r = f.getBoundingClientRect();
  const s = getComputedStyle(f); return {x: r.x + f.clientLeft + parseFloat(s.paddingLeft),
  y: r.y + f.clientTop + parseFloat(s.paddingTop), src: f.src, vw: innerWidth, vh: innerHeight,
  chrome: CHROME}; })()""".replace("CHROME", CHROME)


@dataclass
class Box:
    """An element's box in the top page's viewport (CSS pixels) and the viewport's size."""

    x: float
    y: float
    w: float
    h: float
    vw: float
    vh: float

    def point(self, fx: float, fy: float) -> tuple[float, float]:
        return self.x + self.w * fx, self.y + self.h * fy

    def in_view(self) -> bool:
        return self.y >= 0 and self.y + self.h <= self.vh and self.x >= 0 and self.x + self.w <= self.vw


class Eyes:
    """Where things are in the page the person looks at: the page target whose address starts with `origin`."""

    def __init__(self, devtools: DevTools, origin: str, bars: bool = True) -> None:
        """`bars`: the browser may show bars above the page after calibration (Chrome's infobars): follow
        what the page says of its position (CHROME). False where the page's view never moves in its window."""
        self.devtools = devtools
        self.origin = origin
        self.bars = bars
        self.offset: tuple[float, float] | None = None  # screen position of the viewport's top left corner
        self.chrome: list[float] = []                    # CHROME when last looked at
        self.chrome_then: list[float] = []               # CHROME when calibrated
        self.reached: dict[tuple[str, str], tuple[str | None, int]] = {}  # (page, frame src) -> where to evaluate

    def page(self) -> dict[str, Any] | None:
        pages = [t for t in self.devtools.targets() if t.get("type") == "page" and t.get("url", "").startswith(
            self.origin)]
        return pages[0] if pages else None

    def url(self) -> str:
        page = self.page()
        return str(page["url"]) if page else ""

    def _frame_target(self, src: str) -> dict[str, Any] | None:
        """A frame's own target (a cross-origin frame is one), else None (then it is evaluated through the top)."""
        for target in self.devtools.targets():
            if target.get("type") in ("iframe", "page") and target.get("url", "").split("#")[0] == src.split("#")[0] \
                    and not target.get("url", "").startswith(self.origin):
                return target
        return None

    def box(self, expression: str, frame: str | None = None) -> Box | bool | None:
        """The element's box (top viewport coordinates), True for a condition that holds, None otherwise."""
        page = self.page()
        if page is None:
            return None
        try:
            if frame is None:
                found = self.devtools.evaluate(page, RECT % expression)
                offset = (0.0, 0.0)
                if found and not found.get("ok"):
                    self.chrome = found["chrome"]
            else:
                where = self.devtools.evaluate(page, FRAME_RECT % json.dumps(frame))
                if not where:
                    return None
                inner = self._frame_target(where["src"])
                if inner is not None:  # the frame is a target of its own (Chromium lists out-of-process frames)
                    found = self.devtools.evaluate(inner, RECT % expression)
                else:
                    key = (str(page["id"]), str(where["src"]))
                    reach = self.reached.get(key) or self.devtools.frame_context(page, where["src"])
                    if reach:
                        self.reached[key] = reach
                    try:
                        found = self.devtools.evaluate(page, RECT % expression, session=reach[0],
                                                       context=reach[1]) if reach else None
                    except RuntimeError:
                        self.reached.pop(key, None)
                        raise
                offset = (where["x"], where["y"])
                self.chrome = where["chrome"]
                if found and not found.get("ok"):
                    found.update(vw=where["vw"], vh=where["vh"])
        except (OSError, ConnectionError, RuntimeError):
            return None
        if not found:
            return None
        if found.get("ok"):
            return True
        return Box(found["x"] + offset[0], found["y"] + offset[1], found["w"], found["h"], found["vw"], found["vh"])

    def wait(self, expression: str, frame: str | None = None, timeout: float = 30.0) -> Box | bool:
        return wait_until(lambda: self.box(expression, frame), timeout, f"{expression[:120]} to show", every=0.2)

    def wait_url(self, part: str, timeout: float = 30.0) -> str:
        return wait_until(lambda: part in self.url() and self.url(), timeout, f"the address to contain {part}",
                          every=0.2)

    def _pointer_seen(self, page: dict[str, Any], move: Callable[[], None], what: str) -> Any:
        """Run `move` (pointer motion) and return what the page's next mousemove event says (`what`, a
        JavaScript expression over the event `e`), or None when the page saw no motion within 10 s."""
        probe = f"new Promise(r => addEventListener('mousemove', e => r({what}), {{once: true, capture: true}}))"
        result: dict[str, Any] = {}

        def listen() -> None:
            try:
                result["value"] = self.devtools.evaluate(page, probe, await_promise=True, timeout=10)
            except Exception as exc:  # noqa: BLE001 - the caller decides
                result["error"] = exc

        listener = threading.Thread(target=listen)
        listener.start()
        time.sleep(0.3)  # the listener is in place
        move()
        listener.join(12)
        self.devtools.close()  # the listener's connection may have timed out half-way
        return result.get("value")

    def calibrate(self, hands: "Hands") -> tuple[float, float]:
        """Where the viewport's corner is on the screen: the pointer is moved over the page and the page's own
        mouse event (screenX - clientX) says it."""
        page = self.page()
        assert page is not None, f"no page at {self.origin}"
        size = self.devtools.evaluate(page, "[innerWidth, innerHeight, screenX, screenY, outerHeight - innerHeight]")
        guess = (size[2] + 1, size[3] + size[4]) if size else (10, 100)
        for dx in (0, 7, 14):
            seen = self._pointer_seen(page, lambda: hands.move(guess[0] + 200 + dx, guess[1] + 120 + dx),
                                      "[e.screenX - e.clientX, e.screenY - e.clientY]")
            if seen:
                self.offset = (float(seen[0]), float(seen[1]))
                self.chrome = self.chrome_then = self.devtools.evaluate(page, CHROME) or []
                return self.offset
        raise RuntimeError(f"the page never saw the pointer (guessed its corner at {guess})")

    def aim(self, hands: "Hands", x: float, y: float) -> tuple[int, int]:
        """Put the pointer on (x, y) of the top page's viewport as a person's hand does, checked by the page's
        own mousemove: where the page says the pointer landed corrects the viewport's position (a bar that
        came or went, a window the window manager moved). The screen point."""
        page = self.page()
        sx, sy = self.to_screen(x, y)
        for _attempt in range(3):
            if page is None:
                break
            hands.move(sx + 3, sy + 3)
            seen = self._pointer_seen(page, lambda: hands.move(sx, sy), "[e.clientX, e.clientY]")
            if not seen or (abs(seen[0] - round(x)) <= 1 and abs(seen[1] - round(y)) <= 1):
                break
            self.offset = (sx - float(seen[0]), sy - float(seen[1]))
            self.chrome_then = list(self.chrome)
            sx, sy = self.to_screen(x, y)
        return sx, sy

    def to_screen(self, x: float, y: float) -> tuple[int, int]:
        assert self.offset is not None, "calibrate() first"
        dx, dy = ((self.chrome[0] - self.chrome_then[0], self.chrome[1] - self.chrome_then[1])
                  if self.bars and len(self.chrome) == 2 and len(self.chrome_then) == 2 else (0.0, 0.0))
        return round(self.offset[0] + dx + x), round(self.offset[1] + dy + y)


# -- the hands --------------------------------------------------------------------------------------------------------
class Hands:
    """Real X input through xdotool, at a person's pace."""

    def __init__(self, screen: Screen, pace: float = 0.25) -> None:
        self.screen = screen
        self.pace = pace

    def move(self, x: int, y: int) -> None:
        self.screen.run("xdotool", "mousemove", str(x), str(y))

    def click(self, x: int, y: int) -> None:
        self.move(x, y)
        time.sleep(0.08)
        self.screen.run("xdotool", "click", "1")
        time.sleep(self.pace)

    def click_here(self) -> None:
        """Click where the pointer is (after `Eyes.aim`)."""
        self.screen.run("xdotool", "click", "1")
        time.sleep(self.pace)

    def wheel(self, x: int, y: int, down: bool, notches: int = 1, sideways: bool = False) -> None:
        """Turn the wheel over (x, y): down or up, or (`sideways`) right or left."""
        self.move(x, y)
        button = ("7" if down else "6") if sideways else ("5" if down else "4")
        self.screen.run("xdotool", "click", "--repeat", str(notches), "--delay", "60", button)
        time.sleep(self.pace)

    def type(self, text: str) -> None:
        self.screen.run("xdotool", "type", "--delay", "45", "--", text)
        time.sleep(self.pace)

    def key(self, name: str) -> None:
        self.screen.run("xdotool", "key", "--", name)
        time.sleep(self.pace)
