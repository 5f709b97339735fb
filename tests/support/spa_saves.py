"""A single-page app's ways of saving, each a moment after the click (issue: silent successes in single-page
apps), for the tests of "ok means it landed" (tests/e2e/test_spa_saves.py, `tab_close` in
tests/integration/test_effects_landed.py, the workers' rows in tests/e2e/test_distributed.py).

Every case is a page `/case/<name>` with a field `#who` and a button `#save`; the click sends the save its own
way. The server is slow and, like a server that rolls back what a request did when its client goes away (or a
queue that drops the job of a session that left), it stores a save only when its client is still there once
the work is done: a run that ends, closes its tab or quits too early loses it. `saved` lists what was stored,
as (case, who).

| case | what the click does |
|---|---|
| delayed | `setTimeout(() => fetch(POST), 250)`: a debounce, an animation, the framework's next tick |
| token | `await fetch('/token')` (200 ms, its body a moment after its headers) and its JSON, then `fetch(POST)` |
| websocket | `ws.send(...)` on a WebSocket opened with the page; the server answers when it has stored it |
| chain | three requests, each sent when the one before has answered; the third is the save |
| queue | POST to join a queue, then the answer streamed on an EventSource (closed by the page when it is done) |
| stream | the same queue, its answer read from a `fetch` event stream and aborted when done (as Gradio's client) |
| worker | a Web Worker posts the save |
| nothing | the click only changes the page |
| shadow | a form inside an open shadow root (web components), posted by its submit button |
| iframe | a form inside a same-origin iframe, posted by its submit button |
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import threading
from typing import Any, BinaryIO
from urllib.parse import parse_qs

from tests.support.server import LocalServer, Request, Response, Takeover

SLOW = 0.6  # seconds the server works on a save before storing it: longer than a process needs to quit
TOKEN_DELAY = 0.2
CASES = ("delayed", "token", "websocket", "chain", "queue", "stream", "worker", "shadow", "iframe")  # each saves
NO_SAVE = "nothing"

_FIELD = '<label>Name <input id=who name=who></label> <button id=save type=button>Save</button><p id=status></p>'
_DONE = "document.getElementById('status').textContent = 'saved';"
_WHO = "document.getElementById('who').value"
_PAGES: dict[str, str] = {
    "delayed": f"""{_FIELD}<script>
document.getElementById('save').addEventListener('click', () => {{
  setTimeout(() => fetch('/save?case=delayed', {{method: 'POST', body: new URLSearchParams({{who: {_WHO}}})}})
    .then(() => {{ {_DONE} }}), 250);
}});</script>""",
    "token": f"""{_FIELD}<script>
document.getElementById('save').addEventListener('click', async () => {{
  const answer = await fetch('/token');
  const {{token}} = await answer.json();
  await fetch('/save?case=token&token=' + token, {{method: 'POST', body: new URLSearchParams({{who: {_WHO}}})}});
  {_DONE}
}});</script>""",
    "websocket": f"""{_FIELD}<script>
const socket = new WebSocket('ws://' + location.host + '/socket');
socket.addEventListener('message', (event) => {{ if (event.data === 'saved') {{ {_DONE} }} }});
document.getElementById('save').addEventListener('click', () => {{
  socket.send(JSON.stringify({{case: 'websocket', who: {_WHO}}}));
}});</script>""",
    "chain": f"""{_FIELD}<script>
document.getElementById('save').addEventListener('click', () => {{
  fetch('/chain/1', {{method: 'POST'}}).then((r) => r.json())
    .then((one) => fetch('/chain/2?after=' + one.step, {{method: 'POST'}})).then((r) => r.json())
    .then((two) => fetch('/save?case=chain&after=' + two.step, {{method: 'POST',
                                                                 body: new URLSearchParams({{who: {_WHO}}})}}))
    .then(() => {{ {_DONE} }});
}});</script>""",
    "queue": f"""{_FIELD}<script>
document.getElementById('save').addEventListener('click', async () => {{
  const joined = await fetch('/queue/join', {{method: 'POST', body: JSON.stringify({{who: {_WHO}}})}});
  const {{job}} = await joined.json();
  const stream = new EventSource('/queue/data?job=' + job);
  stream.addEventListener('message', (event) => {{
    if (JSON.parse(event.data).msg === 'process_completed') {{ stream.close(); {_DONE} }}
  }});
}});</script>""",
    "stream": f"""{_FIELD}<script>
document.getElementById('save').addEventListener('click', async () => {{
  const joined = await fetch('/queue/join', {{method: 'POST', body: JSON.stringify({{who: {_WHO}}})}});
  const {{job}} = await joined.json();
  const stop = new AbortController();
  const answer = await fetch('/queue/data?case=stream&job=' + job, {{signal: stop.signal}});
  const reader = answer.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  try {{
    for (;;) {{
      const {{value, done}} = await reader.read();
      if (done) break;
      text += value;
      if (text.includes('process_completed')) {{ stop.abort(); {_DONE} break; }}
    }}
  }} catch (e) {{}}
}});</script>""",
    "worker": f"""{_FIELD}<script>
const worker = new Worker('/save-worker.js');
worker.addEventListener('message', () => {{ {_DONE} }});
document.getElementById('save').addEventListener('click', () => worker.postMessage({{who: {_WHO}}}));
</script>""",
    "nothing": f"""{_FIELD}<script>
document.getElementById('save').addEventListener('click', () => {{
  document.getElementById('status').textContent = 'nothing to save';
}});</script>""",
    "shadow": """<save-form></save-form><script>
customElements.define('save-form', class extends HTMLElement {
  connectedCallback() {
    this.attachShadow({mode: 'open'}).innerHTML = '<form method=post action="/save?case=shadow">' +
      '<label>Name <input id=who name=who></label> <button id=save>Save</button></form>';
  }
});</script>""",
    "iframe": """<iframe src="/frame-form" style="width: 480px; height: 160px"></iframe>""",
}
_FRAME_FORM = ('<!doctype html><title>Form</title><form method=post action="/save?case=iframe">'
               '<label>Name <input id=who name=who></label> <button id=save>Save</button></form>')
_WORKER = ("self.addEventListener('message', (event) => {\n"
           "  fetch('/save?case=worker', {method: 'POST', body: new URLSearchParams({who: event.data.who})})\n"
           "    .then(() => self.postMessage('saved'));\n});\n")
_STORED = "<!doctype html><title>Saved</title><h1 id=stored>Saved</h1>"


def case_url(site: LocalServer, case: str) -> str:
    return site.url(f"/case/{case}")


def save_workflow(name: str = "Save") -> dict[str, Any]:
    """Open the case's page (`url`), type `who`, click Save: the last action is the click."""
    nodes = [{"id": "start", "data": {"type": "start", "variables": [{"variable": "url", "type": "string"},
                                                                     {"variable": "who", "type": "string"}]}},
             {"id": "open", "data": {"type": "goto", "url": "{{#input.url#}}"}},
             {"id": "name", "data": {"type": "fill", "locator": {"selector": "#who"}, "text": "{{#input.who#}}"}},
             {"id": "save", "data": {"type": "click", "locator": {"selector": "#save"}}},
             {"id": "end", "data": {"type": "end", "outputs": []}}]
    return {"kind": "app", "version": "0.3.0", "app": {"name": name, "mode": "workflow"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": nodes, "edges": [{"source": a["id"], "target": b["id"]}
                                                             for a, b in zip(nodes, nodes[1:])]}}}


class SaveSite(LocalServer):
    def __init__(self) -> None:
        super().__init__()
        self.saved: list[tuple[str, str]] = []
        self._jobs: dict[str, str] = {}
        self._saving = threading.Lock()
        self._never = threading.Event()  # waited on for the server's slowness: never set
        for case, body in _PAGES.items():
            self.route(f"/case/{case}", f"<!doctype html><title>{case}</title>{body}")
        self.route("/frame-form", _FRAME_FORM)
        self.route("/save-worker.js", _WORKER, content_type="text/javascript")
        self.route("/token", lambda r: Takeover(self._token))
        self.route("/chain/1", lambda r: self._step(1))
        self.route("/chain/2", lambda r: self._step(2))
        self.route("/save", self._save)
        self.route("/queue/join", self._join)
        self.route("/queue/data", lambda r: Takeover(self._stream))
        self.route("/socket", lambda r: Takeover(self._socket))

    def saves(self, who: str) -> list[str]:
        """The cases under which `who` was stored."""
        with self._saving:
            return [case for case, name in self.saved if name == who]

    def _store(self, case: str, who: str) -> None:
        with self._saving:
            self.saved.append((case, who))

    def _token(self, request: Request, reader: BinaryIO, writer: BinaryIO) -> None:
        """The token's headers after TOKEN_DELAY, its body TOKEN_DELAY later (a token service that signs it,
        a presigned URL): the page reads the JSON before it saves."""
        body = json.dumps({"token": "t0k3n"}).encode()
        self._never.wait(TOKEN_DELAY)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body))
        writer.flush()
        self._never.wait(TOKEN_DELAY)
        writer.write(body)
        writer.flush()

    def _step(self, step: int) -> Response:
        self._never.wait(TOKEN_DELAY)
        return Response(json.dumps({"step": step}), content_type="application/json")

    def _save(self, request: Request) -> Response:
        who = parse_qs(request.body.decode())["who"][0]
        self._never.wait(SLOW)
        if request.client_waiting():
            self._store(request.arg("case"), who)
        return Response(_STORED)

    def _join(self, request: Request) -> Response:
        job = f"job{len(self._jobs) + 1}"
        self._jobs[job] = json.loads(request.body)["who"]
        return Response(json.dumps({"job": job}), content_type="application/json")

    def _stream(self, request: Request, reader: BinaryIO, writer: BinaryIO) -> None:
        """The queue's answer: the job is worked on while its stream is open, stored only if the client still
        listens when it is done, then the stream stays open (heartbeats) until the client closes it."""
        who = self._jobs.pop(request.arg("job"))
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                     b"Connection: close\r\n\r\n")
        try:
            writer.write(b'data: {"msg": "process_starts"}\n\n')
            writer.flush()
            self._never.wait(SLOW)
            if not request.client_waiting():
                return
            self._store(request.arg("case", "queue"), who)
            writer.write(b'data: {"msg": "process_completed"}\n\n')
            writer.flush()
            for _beat in range(300):
                self._never.wait(0.1)
                writer.write(b": heartbeat\n\n")
                writer.flush()
        except OSError:
            return

    def _socket(self, request: Request, reader: BinaryIO, writer: BinaryIO) -> None:
        """A WebSocket (RFC 6455): each message is a save, stored when the work is done if the client is still
        connected then, and answered with "saved"."""
        key = request.headers["sec-websocket-key"]
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
        writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
        writer.flush()
        gone = threading.Event()
        messages: list[str] = []
        arrived = threading.Condition()

        def read() -> None:
            try:
                while True:
                    opcode, payload = _read_frame(reader)
                    if opcode == 0x8:
                        break
                    if opcode == 0x1:
                        with arrived:
                            messages.append(payload.decode())
                            arrived.notify()
            except (OSError, ValueError, struct.error):
                pass
            gone.set()
            with arrived:
                arrived.notify()

        threading.Thread(target=read, daemon=True).start()
        while not gone.is_set():
            with arrived:
                arrived.wait_for(lambda: messages or gone.is_set(), timeout=60)
                message = messages.pop(0) if messages else None
            if message is None:
                continue
            save = json.loads(message)
            if gone.wait(SLOW):
                return  # the client left before the work was done: nothing is stored
            self._store(save["case"], save["who"])
            try:
                writer.write(_frame(b"saved"))
                writer.flush()
            except OSError:
                return


def _read_frame(reader: BinaryIO) -> tuple[int, bytes]:
    head = reader.read(2)
    if len(head) < 2:
        raise ValueError("closed")
    opcode, length = head[0] & 0x0F, head[1] & 0x7F
    if length == 126:
        length = struct.unpack(">H", reader.read(2))[0]
    elif length == 127:
        length = struct.unpack(">Q", reader.read(8))[0]
    mask = reader.read(4) if head[1] & 0x80 else b"\0\0\0\0"
    data = reader.read(length)
    return opcode, bytes(byte ^ mask[index % 4] for index, byte in enumerate(data))


def _frame(payload: bytes) -> bytes:
    return bytes([0x81, len(payload)]) + payload  # a short text frame, unmasked (server to client)


__all__ = ["CASES", "NO_SAVE", "SLOW", "SaveSite", "case_url", "save_workflow"]
