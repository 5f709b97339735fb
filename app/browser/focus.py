"""Where a trusted key goes: the frame that holds the keyboard focus, and the addresses from the page down to it.

Every frame's document is asked, in our isolated world (a page cannot fake the answer), whether it has the
focus and whether its focused element is a frame (`<iframe>`, `<frame>`); the focused frame is the one that
has the focus and whose focused element is not a frame (its ancestors have the focus too, on a frame
element). When no document has the focus (a page nobody clicked yet), keys go to the page's own document,
unless its focused element is a frame, which cannot be told apart from its siblings: then the answer is
"unknown". Addresses are the browser's own (`QWebEngineFrame.url()`), not what a document says of itself;
a frame without an address of its own (about:blank, about:srcdoc) counts with its parent's, whose origin it
inherits, and a `blob:` address with the one inside it.

Measured here (QtWebEngine 6.12, offscreen): after a click into a field of a cross-site iframe, the page's
`document.hasFocus()` is true with the `<iframe>` as its active element, and the iframe's is true with the
`<input>`; after a click into the page's own field, the iframe's is false.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass

from PySide6.QtWebEngineCore import QWebEngineFrame, QWebEnginePage

from app.browser.js import APP_WORLD
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

FOCUS_TIMEOUT = 5.0
_ASK = ("JSON.stringify([document.hasFocus(), !!document.activeElement && "
        "/^(IFRAME|FRAME)$/.test(document.activeElement.tagName)])")


@dataclass
class _Frame:
    url: str
    parent: int | None
    answer: asyncio.Future[object]


def _own_url(frame: QWebEngineFrame, parent_url: str | None) -> str:
    url = frame.url().toString()
    if url.startswith("blob:"):
        return url[len("blob:"):]
    if (not url or url.startswith("about:")) and parent_url is not None:
        return parent_url
    return url


def _ask_all(frame: QWebEngineFrame, parent: int | None, frames: list[_Frame],
             loop: asyncio.AbstractEventLoop) -> None:
    url = _own_url(frame, frames[parent].url if parent is not None else None)
    future: asyncio.Future[object] = loop.create_future()
    frames.append(_Frame(url, parent, future))
    index = len(frames) - 1

    def deliver(value: object) -> None:
        if not future.done():
            future.set_result(value)

    frame.runJavaScript(_ASK, APP_WORLD, deliver)
    for child in frame.children():
        _ask_all(child, index, frames, loop)


async def focus_chain(page: QWebEnginePage, timeout: float = FOCUS_TIMEOUT) -> list[str]:
    """The addresses of the page and of each frame down to the one that has the keyboard focus; [] when that
    cannot be told (two frames claim the focus, a frame did not answer in time). A focus that just moved into
    or out of another site's frame reaches the other renderers a moment later: two claims are asked again a
    few times (`SETTLE_TRIES`) before the answer is []."""
    for _try in range(SETTLE_TRIES):
        chain = await _focus_chain(page, timeout)
        if chain is not None:
            return chain
        await asyncio.sleep(SETTLE_PAUSE)
    return []


SETTLE_TRIES = 5
SETTLE_PAUSE = 0.01


async def _focus_chain(page: QWebEnginePage, timeout: float) -> list[str] | None:
    """The chain; [] when a frame did not answer, None when it cannot be told now (two frames claim the focus,
    or the page's focused element is a frame and no frame has the focus)."""
    frames: list[_Frame] = []
    _ask_all(page.mainFrame(), None, frames, asyncio.get_running_loop())
    try:
        answers = await asyncio.wait_for(asyncio.gather(*(f.answer for f in frames)), timeout)
    except asyncio.TimeoutError:
        log.info("focus: a frame did not answer within %g s", timeout)
        return []
    states: list[tuple[bool, bool]] = []
    for answer in answers:
        try:
            has_focus, on_frame = json.loads(answer) if isinstance(answer, str) else (False, True)
        except ValueError:
            has_focus, on_frame = False, True
        states.append((bool(has_focus), bool(on_frame)))
    focused = [index for index, (has_focus, on_frame) in enumerate(states) if has_focus and not on_frame]
    if len(focused) > 1:
        return None
    if not focused:
        if states[0][1]:  # nobody has the focus, and the page's focused element is a frame: which one?
            return None
        focused = [0]
    chain: list[str] = []
    index: int | None = focused[0]
    while index is not None:
        chain.insert(0, frames[index].url)
        index = frames[index].parent
    return chain
