"""Running JavaScript in a page with timeouts, JSON results and JavaScript errors that name their line.

- `run_js(page, expression)`: evaluate an expression; the result travels as JSON (QtWebEngine turns
  objects, arrays and null into '' otherwise) and comes back as Python values. Given a `QWebEngineFrame`
  instead of a page, it runs in that frame's document (app/browser/frames.py: another site's frames).
- `run_js_async(page, body, args)`: run an *async function body* (`return` gives the value); promises are
  awaited in the page and the result polled, since `runJavaScript` does not wait for promises.
- Our own helpers (resources/js/*.js) are injected into every frame of every page of a profile in an
  isolated world (`APP_WORLD`), so page scripts can neither see nor tamper with them.

Every call has a timeout: a `runJavaScript` callback never arrives while a renderer is hung or dead.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
from typing import Any

from PySide6.QtWebEngineCore import QWebEngineFrame, QWebEnginePage, QWebEngineProfile, QWebEngineScript

from app.startup.resources import JS_DIR
from plumbing import loggers
from workflows.ports import PageError

log = logging.getLogger(loggers.BROWSER)

MAIN_WORLD = int(QWebEngineScript.ScriptWorldId.MainWorld)
APP_WORLD = int(QWebEngineScript.ScriptWorldId.ApplicationWorld)
HELPER_SCRIPTS = ("document.js", "locator.js", "locator_gen.js", "heal.js", "choose.js")


class PageTimeout(PageError):
    """The page did not answer in time (hung renderer, endless script, or a slow condition)."""

    code = "timeout"


class NavigatedAway(PageError):
    """The document changed under a running script (a navigation or reload)."""

    code = "navigated_away"


class ScriptError(PageError):
    """A script threw; `line` is the line in the caller's source when known."""

    code = "script_error"

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"{message} (line {line})" if line else message)
        self.js_message = message
        self.line = line


def _callback_future(loop: asyncio.AbstractEventLoop) -> tuple[asyncio.Future[Any], Any]:
    future: asyncio.Future[Any] = loop.create_future()

    def deliver(value: Any) -> None:
        if not future.done():
            future.set_result(value)

    return future, deliver


JsTarget = QWebEnginePage | QWebEngineFrame
"""Where a script runs: a page (its main frame) or one of its frames."""


class FrameGone(PageError):
    """The frame a script was meant for has left the page."""

    code = "frame_gone"


async def run_js(page: JsTarget, expression: str, timeout: float = 10.0, world: int = APP_WORLD) -> Any:
    """Evaluate `expression` in the page's main frame (or in the given frame) and return its value
    (JSON-compatible)."""
    if isinstance(page, QWebEngineFrame) and not page.isValid():
        raise FrameGone("the frame has left the page")
    loop = asyncio.get_running_loop()
    future, deliver = _callback_future(loop)
    page.runJavaScript(f"(() => {{ try {{ return JSON.stringify({{v: ({expression})}}); }} catch (e) "
                       f"{{ return JSON.stringify({{error: String(e && e.message || e)}}); }} }})()", world, deliver)
    try:
        raw = await asyncio.wait_for(future, timeout)
    except asyncio.TimeoutError:
        raise PageTimeout(f"the page did not answer within {timeout:g} s") from None
    if not isinstance(raw, str) or not raw:
        raise PageError("the page returned nothing (it may be navigating or crashed)")
    data = json.loads(raw)
    if "error" in data:
        raise ScriptError(data["error"])
    return data.get("v")


_STACK_LINE = re.compile(r"<anonymous>:(\d+):\d+")
# `new AsyncFunction("args", body)` and `new Function("args", body)` put two lines before the body:
# "[async] function anonymous(args" and ") {".
_FUNCTION_HEADER_LINES = 2


async def run_js_async(page: JsTarget, body: str, args: Any = None, timeout: float = 30.0,
                       world: int = MAIN_WORLD) -> Any:
    """Run an async function body with `args` in the page (or a frame); return its JSON result.

    Errors come back as `ScriptError` with the JavaScript message and the line in `body`.
    """
    token = secrets.token_hex(6)
    starter = f"""(() => {{
  const box = (window.__bpRuns = window.__bpRuns || {{}});
  box[{json.dumps(token)}] = {{done: false}};
  const body = {json.dumps(body)};
  let fn;
  if (!/\\bawait\\b/.test(body)) {{
    // No await: run it now and answer at once, so a script that navigates (location.href = …; return {{}})
    // still delivers its value before the old document goes. A returned promise is awaited as below.
    let value;
    delete box[{json.dumps(token)}];
    try {{ value = new Function("args", body).call(window, {json.dumps(args)}); }}
    catch (e) {{ return {{done: true, error: String(e && e.message || e), stack: String(e && e.stack || "")}}; }}
    if (!(value && typeof value.then === "function")) {{
      try {{ return {{done: true, value: JSON.stringify(value === undefined ? null : value)}}; }}
      catch (e) {{ return {{done: true, error: "the return value is not JSON: " + e.message}}; }}
    }}
    box[{json.dumps(token)}] = {{done: false}};
    fn = () => value;
  }} else {{
    try {{
      fn = new (Object.getPrototypeOf(async function(){{}}).constructor)("args", body);
    }} catch (e) {{
      box[{json.dumps(token)}] = {{done: true, error: String(e && e.message || e), stack: ""}};
      return true;
    }}
  }}
  Promise.resolve().then(() => fn.call(window, {json.dumps(args)})).then(
    (value) => {{
      let text;
      try {{ text = JSON.stringify(value === undefined ? null : value); }}
      catch (e) {{ box[{json.dumps(token)}] = {{done: true, error: "the return value is not JSON: " + e.message}}; return; }}
      box[{json.dumps(token)}] = {{done: true, value: text}};
    }},
    (e) => {{ box[{json.dumps(token)}] = {{done: true, error: String(e && e.message || e), stack: String(e && e.stack || "")}}; }});
  return true;
}})()"""
    started = await run_js(page, starter, timeout=min(timeout, 10.0), world=world)
    if isinstance(started, dict):  # it ran to its end at once
        return _finished(started)
    deadline = asyncio.get_running_loop().time() + timeout
    delay = 0.002
    probe = f"(() => {{ const r = (window.__bpRuns || {{}})[{json.dumps(token)}]; if (r && r.done) " \
            f"delete window.__bpRuns[{json.dumps(token)}]; return r || null; }})()"
    while True:
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            raise PageTimeout(f"the script did not finish within {timeout:g} s")
        state = await run_js(page, probe, timeout=max(0.5, min(remaining, 10.0)), world=world)
        if state is None:
            raise NavigatedAway("the page navigated away or reloaded while the script was running")
        if state.get("done"):
            return _finished(state)
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.02)


def _finished(state: dict[str, Any]) -> Any:
    """The value of a finished script run, or its error as `ScriptError` with the line in the body."""
    if "error" in state:
        match = _STACK_LINE.search(state.get("stack") or "")
        line = int(match.group(1)) - _FUNCTION_HEADER_LINES if match else None
        raise ScriptError(state["error"], line if line and line > 0 else None)
    return json.loads(state["value"])


def document_script(name: str, source: str, world: int, sub_frames: bool = True) -> QWebEngineScript:
    """A named script that runs at the creation of every document (of every frame, with `sub_frames`) in
    `world`; insert it into a page's or a profile's `scripts()`."""
    script = QWebEngineScript()
    script.setName(name)
    script.setSourceCode(source)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setWorldId(world)
    script.setRunsOnSubFrames(sub_frames)
    return script


def run_in_every_frame(frame: QWebEngineFrame, source: str, world: int) -> None:
    """Run `source` in `world` of `frame` and of every frame under it (the documents shown now, which a
    `document_script` inserted now does not reach)."""
    frame.runJavaScript(source, world)
    for child in frame.children():
        run_in_every_frame(child, source, world)


def install_helper_scripts(profile: QWebEngineProfile) -> None:
    """Inject our helper scripts into every frame of every page of the profile, in `APP_WORLD`."""
    collection = profile.scripts()
    for name in HELPER_SCRIPTS:
        path = JS_DIR / name
        if path.exists():
            collection.insert(document_script(f"browserpilot-{name}", path.read_text("utf-8"), APP_WORLD))
