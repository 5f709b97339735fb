"""What the DevTools-side operations on a tab answer, Qt-free: one element read closely (page_inspect, page_hit),
an element watched (page_watch), a batch of DevTools commands (page_cdp_batch), request mocks (net_mock,
net_mock_off), the requests a domain policy blocked (net_blocked) and a tab's video (screen_start, screen_stop,
page_record_video).

The tab's parts (app/browser/parts/reading.py, network.py) and the browser service return these models; the
operations (app/ops/inspect_ops.py, mock_ops.py, net_ops.py, trace_ops.py) declare them, so MCP publishes them
as `outputSchema`. Names are camelCase on the wire; an element's attributes, a CDP answer and a watched value
are the page's and stay as it gave them.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from workflows.envelope import Result
from workflows.results import Number, PageResult


# -- one element, read closely ---------------------------------------------------------------------------
class ElementRect(Result):
    """The element's box in the viewport, CSS pixels."""

    x: Number
    y: Number
    width: Number
    height: Number


class ElementStyle(Result):
    """Computed style that decides whether a person sees and can click it (CSS values as text)."""

    display: str
    visibility: str
    opacity: str
    pointer_events: str
    cursor: str


class ElementLocator(Result):
    """How a recording would find this element again: a primary CSS selector or XPath (absent when none finds
    it alone) and ranked alternatives, each verified to find only this element."""

    selector: str | None = None
    xpath: str | None = None
    alternatives: list[dict[str, Any]] = Field(
        description="Ranked, each one of {testid}, {role, name, exact}, {label|placeholder|text, exact}, "
                    "{selector}, {xpath}; usable as a workflow node's locator alternatives.")
    fingerprint: dict[str, Any] | None = Field(default=None, description="What the element looks like, for "
                                                                         "healing when every locator fails.")


class ElementInspection(PageResult):
    """page_inspect: one element, as a person and a recording see it."""

    tag: str
    ref: str = Field(description="A ref for page_click and other tools, as a page_snapshot's.")
    desc: str = Field(description="How the element reads (\"button 'Save'\").")
    text: str = Field(description="Its text, at most 300 characters.")
    attributes: dict[str, str] = Field(description="Every attribute (the first 60), values at most 300 characters.")
    rect: ElementRect
    visible: bool
    style: ElementStyle
    role: str | None = Field(description="Its ARIA role, explicit or implied.")
    name: str | None = Field(description="Its accessible name.")
    locator: ElementLocator
    src: str | None = Field(default=None, description="img, video, audio, source, picture: the current source.")
    value: str | None = Field(default=None, description="input, select, textarea: the value (a password masked).")
    frame: str | None = Field(default=None, description="Inside a frame: how the frame element reads.")


class ElementHit(ElementInspection):
    """page_hit: the element at a viewport point, read as by page_inspect."""

    x: Number = Field(description="The point asked, viewport CSS pixels.")
    y: Number


# -- an element watched ----------------------------------------------------------------------------------
class WatchedState(Result):
    """What page_watch compares between two looks. No element: `count` 0 alone."""

    count: int = Field(description="How many elements the locator finds.")
    text: str | None = None
    attributes: dict[str, str] | None = None
    visible: bool | None = None
    value: str | None = Field(default=None, description="input, select, textarea.")


class ValueChange(Result):
    before: Any = None
    after: Any = None


class WatchChange(Result):
    """One look that differed from the one before: each changed part as {before, after}."""

    at_ms: int = Field(description="Since the watch began.")
    count: ValueChange | None = None
    text: ValueChange | None = None
    value: ValueChange | None = None
    visible: ValueChange | None = None
    attributes: dict[str, ValueChange] | None = Field(default=None, description="Per attribute name.")


class WatchResult(PageResult):
    changed: bool
    changes: list[WatchChange] = Field(description="In order; at most 200.")
    before: WatchedState = Field(description="The first look.")
    after: WatchedState = Field(description="The last look that differed (the first when none did).")
    looks: int
    elapsed_ms: int


# -- DevTools commands -----------------------------------------------------------------------------------
class CdpCommandResult(Result):
    method: str
    ok: bool
    result: Any = Field(default=None, description="The command's answer, when ok.")
    error: str | None = None
    code: str | None = None


class CdpBatchResult(PageResult):
    results: list[CdpCommandResult] = Field(description="One per command sent, in order; the batch stops at the "
                                                        "first failure.")
    completed: bool = Field(description="Every command was sent and answered ok.")


# -- request mocks and blocked requests ------------------------------------------------------------------
class MockStartResult(PageResult):
    rules: int = Field(description="The rules now in force (they replace earlier ones).")


class MockStopResult(PageResult):
    mocked: bool = Field(description="Always false: the tab's requests go out unchanged now.")
    answered: int | None = Field(default=None, description="Requests answered by a rule (absent: no mock was on).")
    passed: int | None = Field(default=None, description="Requests that matched no rule and went out.")
    refused: int | None = Field(default=None, description="Requests the domain policy refused first.")


class BlockedRequestView(Result):
    """A request an environment's domain policy blocked."""

    time: str = Field(description="ISO time, UTC.")
    env: str
    url: str
    type: str = Field(description="document, frame, script, stylesheet, image, fetch, websocket, download, …")
    host: str
    rule: str = Field(description="Which rule blocked it (\"not in allowedDomains\", a blockedDomains pattern).")
    tab_ids: list[str] = Field(description="The tabs it came from, when known.")
    page: str | None = Field(default=None, description="The page that asked for it.")
    download: bool | None = None


class NetBlockedResult(Result):
    blocked: list[BlockedRequestView] = Field(description="Oldest first.")


# -- a tab's video ---------------------------------------------------------------------------------------
class VideoFile(Result):
    """A tab's video, written."""

    path: str
    seconds: Number
    frames: int
    bytes: int
    codec: str = Field(description="The ffmpeg encoder: libvpx-vp9 (WebM) where the build has it, else libvpx, "
                                   "libx264 or mpeg4 (MP4).")


class ScreenStartResult(PageResult):
    recording: bool
    env: str


class ScreenStopResult(VideoFile, PageResult):
    env: str


class RecordVideoResult(PageResult):
    """page_record_video: the page's playing video, filmed as shown (no sound)."""

    path: str
    bytes: int
    seconds: Number
    playing: bool = Field(description="The video was playing when filming began (a click started it if needed).")
