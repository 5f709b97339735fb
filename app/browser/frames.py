"""Frames the page's own helper cannot read: another site's iframes (payment fields, embedded forms, sign-in
widgets), sandboxed and `data:` frames.

Our helper (resources/js/locator.js) runs in every frame, in the isolated world `APP_WORLD`, and the one in the
main frame searches the page and every frame whose document it can read. A frame it cannot read has a helper
of its own, which we reach through `QWebEngineFrame.runJavaScript` (QtWebEngine 6.8+). A *scope* is what one
helper searches: the main frame's document with the readable frames under it, or such a frame with the
readable frames under it.

- `scopes(page)`: the page's scopes, main first. A frame starts a scope when its own document says that its
  parent cannot be read (`window.frameElement` is null there); each frame also says where it is, as the index
  path of `window.frames` indexes from the top (readable across sites), which is how its `<iframe>` element is
  found in the parent's document. A frame that does not answer at once (it is between two documents: a
  navigation drops the call; or hung) is judged by its address instead (another origin than its parent's starts
  a scope; its place in `children()` is its index). A page without frames costs nothing; the answer is kept
  while the frames and their addresses stay the same.
- `placement(page, scope)`: where the scope's viewport shows in the top-level viewport (its `<iframe>`'s
  content box through every frame above it, and the visible part of it), asked of the helpers above it.
- `covering(page, scope, x, y)`: what a click at a top-level point reaches at each level above the scope: None
  when the point reaches the scope's frame, else the element that covers it.
- Refs of a scope other than the main one are `f<N>e<M>` (Playwright MCP's form): `N` numbers the page's frames
  for the page's lifetime (`FrameNumbers`), `e<M>` is the ref inside that frame's document.

Measured here (QtWebEngine 6.12, Chromium 140, offscreen): `QWebEngineFrame.children()` lists frames in the
order they were created, as `window.frames` does; console messages of every frame reach the page's
`javaScriptConsoleMessage`; a frame keeps its `QWebEngineFrame` when it loads another document.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWebEngineCore import QWebEngineFrame, QWebEnginePage

from app.browser.js import APP_WORLD, PageError, run_js
from plumbing import loggers

log = logging.getLogger(loggers.BROWSER)

FRAME_TIMEOUT = 1.0  # seconds a frame's helper gets to answer a locator call (a hung frame is left out)
WHERE_TIMEOUT = 0.25  # seconds a frame gets to say where it is before its address decides
_REF = re.compile(r"^f(\d+)(e\d+)$")
# Asked of each frame: its index path from the top (readable across sites) and whether its parent is readable.
_WHERE = """(() => {
  const path = [];
  let w = window;
  try {
    while (w !== w.top) {
      const parent = w.parent;
      let k = -1;
      for (let i = 0; i < parent.frames.length; i++) if (parent.frames[i] === w) { k = i; break; }
      if (k < 0) return null;
      path.unshift(k);
      w = parent;
    }
  } catch (e) { return null; }
  return [path, window.frameElement === null];
})()"""


@dataclass(frozen=True, eq=False)
class Scope:
    """What one helper searches: the main frame's document (`number` 0) or a frame its parent cannot read."""

    frame: QWebEngineFrame
    path: tuple[int, ...]          # `window.frames` indexes from the top; () for the main frame
    url: str                       # the browser's own address of the frame (not what its document says)
    number: int                    # refs of this scope are f<number>e<n> (0: the main scope, plain e<n>)
    parent: Scope | None = None    # the scope that holds its <iframe> (None for the main scope)
    target: Any = field(default=None, compare=False)  # what scripts run in: the page for the main scope

    @property
    def main(self) -> bool:
        return self.parent is None

    def relative_path(self) -> list[int]:
        """The index path from the parent scope's window to this frame."""
        assert self.parent is not None
        return list(self.path[len(self.parent.path):])

    def ref(self, local: str) -> str:
        return local if self.main else f"f{self.number}{local}"


@dataclass(frozen=True)
class Placement:
    """Where a scope's viewport shows, in CSS px of the top-level viewport."""

    x: float
    y: float
    area: tuple[float, float, float, float]  # left, top, right, bottom: the part of the viewport in view
    frame: str                               # its <iframe> element, described

    def shows(self, x: float, y: float) -> bool:
        left, top, right, bottom = self.area
        return left - 0.5 <= x <= right + 0.5 and top - 0.5 <= y <= bottom + 0.5


class FrameNumbers(QObject):
    """A page's frames, numbered in the order they were first seen (refs name them), and its last scopes."""

    NAME = "browserpilot-frames"

    def __init__(self, page: QWebEnginePage) -> None:
        super().__init__(page)
        self.setObjectName(self.NAME)
        self._frames: list[QWebEngineFrame | None] = []  # None: a frame that left the page (its number stays used)
        self.signature: tuple[tuple[tuple[int, ...], str], ...] | None = None
        self.scopes: list[Scope] = []

    @classmethod
    def of(cls, page: QWebEnginePage) -> FrameNumbers:
        found = page.findChild(QObject, cls.NAME, Qt.FindChildOption.FindDirectChildrenOnly)
        return found if isinstance(found, cls) else cls(page)

    def number(self, frame: QWebEngineFrame) -> int:
        for index, known in enumerate(self._frames):
            if known is not None and known == frame:
                return index + 1
        # Forget the frames that left the page (a frame never comes back), keeping every number where it was.
        self._frames = [known if known is not None and known.isValid() else None for known in self._frames]
        self._frames.append(frame)
        return len(self._frames)


def _tree(frame: QWebEngineFrame, path: tuple[int, ...], out: list[tuple[QWebEngineFrame, tuple[int, ...]]]) -> None:
    out.append((frame, path))
    for index, child in enumerate(frame.children()):
        _tree(child, (*path, index), out)


def addresses(page: QWebEnginePage) -> list[tuple[QWebEngineFrame, str]]:
    """Every frame of the page (not the main one) with its address now, from Qt alone (no JavaScript)."""
    tree: list[tuple[QWebEngineFrame, tuple[int, ...]]] = []
    main = page.mainFrame()
    if main.children():
        _tree(main, (), tree)
    return [(frame, frame.url().toString()) for frame, _path in tree[1:]]


def main_scope(page: QWebEnginePage) -> Scope:
    return Scope(page.mainFrame(), (), page.url().toString(), 0, None, page)


async def scopes(page: QWebEnginePage) -> list[Scope]:
    """The page's scopes: the main one first, then each frame its parent cannot read, in tree order."""
    main = page.mainFrame()
    if not main.children():
        return [main_scope(page)]
    tree: list[tuple[QWebEngineFrame, tuple[int, ...]]] = []
    _tree(main, (), tree)
    signature = tuple((path, frame.url().toString()) for frame, path in tree)
    numbers = FrameNumbers.of(page)
    if numbers.signature == signature and all(scope.frame.isValid() for scope in numbers.scopes):
        return numbers.scopes
    answers = await asyncio.gather(*(_where(frame) for frame, _path in tree[1:]))
    found = [main_scope(page)]
    origins = {(): _origin(main.url().toString())}
    for (frame, qt_path), answer in zip(tree[1:], answers):
        origins[qt_path] = _origin(frame.url().toString(), origins.get(qt_path[:-1]))
        path, own_scope = answer if answer is not None else \
            (qt_path, origins[qt_path] != origins.get(qt_path[:-1]) or origins[qt_path] is None)
        if not own_scope:
            continue
        path = path if path is not None else qt_path
        parent = max((s for s in found if path[:len(s.path)] == s.path), key=lambda s: len(s.path))
        found.append(Scope(frame, path, frame.url().toString(), numbers.number(frame), parent, frame))
    numbers.signature, numbers.scopes = signature, found
    return found


def _origin(url: str, parent: str | None = None) -> str | None:
    """scheme://host:port of an address; an address without one of its own (about:blank, about:srcdoc) has its
    parent's; None for an opaque origin (data:)."""
    if not url or url.startswith("about:"):
        return parent
    if url.startswith("blob:"):
        url = url[len("blob:"):]
    if url.startswith("data:"):
        return None
    return site(url)


async def _where(frame: QWebEngineFrame) -> tuple[tuple[int, ...] | None, bool] | None:
    try:
        answer = await run_js(frame, _WHERE, timeout=WHERE_TIMEOUT, world=APP_WORLD)
    except PageError:
        return None
    if not isinstance(answer, list) or len(answer) != 2:
        return None
    path = tuple(int(i) for i in answer[0]) if isinstance(answer[0], list) else None
    return path, bool(answer[1])


def site(url: str) -> str:
    """`scheme://host:port` of an address (what messages name; never a path or query)."""
    parts = url.split("/", 3)
    return "/".join(parts[:3]) if len(parts) >= 3 and parts[0].endswith(":") and not parts[1] else url[:80]


def split_ref(ref: str) -> tuple[int, str]:
    """`f3e12` -> (3, "e12"); `e12` -> (0, "e12")."""
    match = _REF.match(ref.strip())
    return (int(match.group(1)), match.group(2)) if match else (0, ref.strip())


def scope_numbered(found: list[Scope], number: int) -> Scope | None:
    return next((scope for scope in found if scope.number == number), None)


async def frame_box(scope: Scope, **opts: Any) -> dict[str, Any] | None:
    """The parent's helper's `frameBox` for this scope's frame (None: the parent did not answer)."""
    assert scope.parent is not None
    try:
        box = await run_js(scope.parent.target,
                           f"(typeof __bp === 'undefined' ? null : __bp.frameBox({scope.relative_path()!r}, "
                           f"{json.dumps(opts)}))", timeout=FRAME_TIMEOUT * 2, world=APP_WORLD)
    except PageError:
        return None
    return box if isinstance(box, dict) else None


async def placement(page: QWebEnginePage, scope: Scope, scroll: bool = False) -> Placement | None:
    """Where the scope's viewport shows in the top-level viewport, or None when its frame is not shown (gone,
    hidden, or its parent did not answer). With `scroll`, each frame above it is brought into view first."""
    if scope.parent is None:
        return Placement(0.0, 0.0, (float("-inf"), float("-inf"), float("inf"), float("inf")), "")
    above = await placement(page, scope.parent, scroll)
    if above is None:
        return None
    box = await frame_box(scope, scroll=scroll)
    if box is None or box.get("status") != "ok":
        return None
    area = box["area"]
    left, top, right, bottom = above.area
    return Placement(above.x + float(box["x"]), above.y + float(box["y"]),
                     (max(left, above.x + area["l"]), max(top, above.y + area["t"]),
                      min(right, above.x + area["r"]), min(bottom, above.y + area["b"])), str(box["desc"]))


async def covering(page: QWebEnginePage, scope: Scope, x: float, y: float) -> str | None:
    """What covers the scope's frame at the top-level point (x, y), at any level above it; None when a click
    there reaches the frame."""
    level: Scope | None = scope
    while level is not None and level.parent is not None:
        above = await placement(page, level.parent)
        if above is None:
            return "a frame that is not shown"
        box = await frame_box(level, point=[x - above.x, y - above.y])
        if box is None or box.get("status") != "ok":
            return "a frame that is not shown"
        if not box.get("reaches"):
            return str(box.get("by") or "nothing (outside the page)")
        level = level.parent
    return None


# -- navigations an action started in such a frame ------------------------------------------------------------------
_FRAME_STATE = ("[window.__bpDocumentId || null, !!(window.__bpNavigations && window.__bpNavigations.pending()), "
                "location.protocol]")
FRAME_POLL = 0.01  # seconds between looks at a frame whose navigation is on its way
FRAME_STATE_WAIT = 0.05  # seconds a first look waits for its answer (a frame between documents never answers)
FRAME_NAVIGATION_WAIT = 10.0  # a frame's pending navigation counts as in flight this long (Qt has no frame loads)


async def frame_committed(frame: QWebEngineFrame, document: str | None, timeout: float) -> str | None:
    """After an action whose input another site's frame handled and which started a navigation of that frame
    (a form's submission, a link): wait until the frame has a new document (an HTTP error page is one) and
    return its address; None when the frame left the page meanwhile, or the navigation was cancelled or made a
    same-document one. `document` is the id of the document that handled the action. Raises `PageError` (code
    `navigation_failed`) when the frame shows the browser's error page instead (the caller says why: the domain
    policy, a network error) or nothing committed within `timeout`: Qt has no load signals for frames, so a
    frame's navigation that ends without a document (a 204 answer, a download) ends here too."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    wait = FRAME_STATE_WAIT
    while True:
        if not frame.isValid():
            return None
        try:
            # A frame between two documents drops the call: a short wait, then look again (a little longer each
            # time, for a busy machine whose answers are slow).
            probe, pending, protocol = await run_js(frame, _FRAME_STATE, timeout=wait, world=APP_WORLD)
        except PageError:  # between two documents
            probe, pending, protocol = document, True, ""
            wait = min(wait * 2, FRAME_TIMEOUT)
        if probe != document:
            if protocol == "chrome-error:":
                raise PageError(f"the frame could not load {frame.url().toString()}", code="navigation_failed")
            return frame.url().toString()
        if not pending:
            return None
        if loop.time() >= deadline:
            raise PageError(f"the navigation the action started in a frame of {frame.url().host()} did not commit "
                            f"within {timeout:g} s", code="navigation_failed")
        await asyncio.sleep(FRAME_POLL)
