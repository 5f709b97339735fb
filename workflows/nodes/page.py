"""Page node types: `goto`, `click`, `fill`, `select`, `press`, `scroll`, `swipe`, `upload`.

Each calls the page operations (`page_navigate`, `page_click`, …, named in workflows/operations.py) through the
run's operations port and nothing else: trusted input, actionability waits and navigation settling live there.
A node's output is what its operation answered (the envelope's data, `Result.wire`) or a few of its fields.
Locators with alternatives are tried in order (`RunContext.locate`). Pure Python: no Qt here.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field

from workflows.nodes.base import (QT_TRANSLATE_NOOP, NodeFailed, PageNodeData, RecordedStep, RunContext, clip,
                                  target_phrase)
from workflows.nodes.locators import NodeLocator, optional_locator
from workflows.nodes.values import FAILS, DocumentModel, NonEmptyText, NumberOrText, PositiveInt, Text
from workflows.operations import (PAGE_CLICK, PAGE_DRAG, PAGE_KEY, PAGE_NAVIGATE, PAGE_PASTE, PAGE_SCRIPT, PAGE_SCROLL,
                                  PAGE_SELECT, PAGE_SWIPE, PAGE_TYPE, PAGE_UPLOAD, Op)
from workflows.results import ScrollResult

OptionalLocator = Annotated[NodeLocator | None, BeforeValidator(optional_locator)]
MouseButton = Literal["left", "right", "middle"]
Direction = Literal["up", "down", "left", "right"]
NEW_TAB_POLL = 0.05  # seconds between looks for the new tab of a `followNewTab` click


class GotoData(PageNodeData):
    node_type: ClassVar[str] = "goto"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "goto")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Opens an address in the tab.")
    output_keys: ClassVar[tuple[str, ...]] = ("url", "title", "status")
    type: Literal["goto"]
    url: Text

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        return f"Go to {data.get('url', '')}"

    def lint(self) -> list[str]:
        return [] if self.url.strip() else ["url is empty" + FAILS]

    async def run(self, ctx: RunContext) -> Any:
        url = ctx.render(self.url).strip()
        if not url:
            ctx.fail("the url is empty")
        timeout = max(float(self.timeout or 0) or ctx.default_timeout, 30.0)
        loaded = (await ctx.op(PAGE_NAVIGATE, {"url": url, "timeoutMs": int(timeout * 1000)})).result
        return {"url": loaded.url, "title": loaded.title, "status": loaded.status}


def _as_number(ctx: RunContext, name: str, value: Any) -> float:
    try:
        number = float(ctx.render(str(value)) if isinstance(value, str) else value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        ctx.fail(f"{name} must be a number, not {value!r}")
    return number


class ClickOffset(DocumentModel):
    """Where in the element to click, as fractions of its box: `{x: 0, y: 0}` is its top-left corner, `{x: 1,
    y: 1}` its bottom-right (a slider clicked at 70 % of its width). An extension: the original ignores it and
    clicks the centre."""

    x: Annotated[float, Field(ge=0, le=1)]
    y: Annotated[float, Field(ge=0, le=1)]


class ClickData(PageNodeData):
    """Click an element (`locator`, then optionally wait for `until` to appear, clicking again if needed), or
    a point `x, y` (CSS px; given on a `shotWidth` × `shotHeight` screenshot when those are set). With a
    locator, `offset` (ours) clicks that relative point of the element instead of its centre."""

    node_type: ClassVar[str] = "click"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "click")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Clicks an element, or a point of the page.")
    type: Literal["click"]
    locator: OptionalLocator = None
    until: OptionalLocator = None
    x: NumberOrText | None = None
    y: NumberOrText | None = None
    shotWidth: NumberOrText | None = None
    shotHeight: NumberOrText | None = None
    button: MouseButton | None = None
    count: PositiveInt | None = None
    offset: ClickOffset | None = None
    followNewTab: bool | None = None
    """Ours: the click opens a new tab and the rest of the run acts in it (the recorder sets it when the
    recording followed into one); the run waits up to the node's timeout for the tab to open."""

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        how = {"right": "Right-click", "middle": "Middle-click"}.get(data.get("button") or "", "Click")
        if (data.get("count") or 1) == 2:
            how = "Double-click"
        at = " at a point" if data.get("offset") else ""
        tab = " (opens a new tab)" if data.get("followNewTab") else ""
        return f"{how}{target_phrase(step)}{at}{tab}"

    def lint(self) -> list[str]:
        given = [value for value in (self.x, self.y) if value not in (None, "")]
        if len(given) == 1:
            return ["needs both x and y" + FAILS]
        if not given and self.locator is None:
            return ["needs a locator, or x and y" + FAILS]
        return []

    def _point_given(self) -> bool:
        return any(value not in (None, "") for value in (self.x, self.y))

    async def run(self, ctx: RunContext) -> Any:
        timeout_ms = ctx.acting_timeout_ms()
        params: dict[str, Any] = {"timeoutMs": timeout_ms}
        if self._point_given():
            if self.x in (None, "") or self.y in (None, ""):
                ctx.fail("a point click needs both x and y")
            params.update(await self._point(ctx))
        elif self.locator is not None:
            params["locator"] = await ctx.locate(self.locator, timeout_ms / 1000)
            if self.offset is not None:
                params["offset"] = {"x": self.offset.x, "y": self.offset.y}
        else:
            ctx.fail("the click needs a locator, or x and y")
        if self.until is not None:
            params["until"] = ctx.render_locator(self.until)
        if self.button:
            params["button"] = self.button
        if self.count:
            params["clickCount"] = min(self.count, 3)
        answer = await ctx.op(PAGE_CLICK, params)
        if self.followNewTab:
            # The engine moves the run to a tab an operation reports in `newTabs`; a tab the page opens a
            # moment after the click shows up in the answer of the next operation on this tab.
            deadline = time.monotonic() + timeout_ms / 1000
            opened = answer.new_tabs
            while not opened:
                if time.monotonic() >= deadline:
                    ctx.fail("the click was recorded opening a new tab, and none opened")
                await asyncio.sleep(NEW_TAB_POLL)
                opened = (await ctx.op(PAGE_SCRIPT, {"source": "return null"})).new_tabs
            return {**answer.result.wire(), "tabId": opened[-1]}
        return answer.result.wire()

    @property
    def follows_new_tab(self) -> bool:
        return bool(self.followNewTab)

    async def _point(self, ctx: RunContext) -> dict[str, float]:
        x, y = _as_number(ctx, "x", self.x), _as_number(ctx, "y", self.y)
        sizes = [value for value in (self.shotWidth, self.shotHeight) if value not in (None, "")]
        if len(sizes) == 1:
            ctx.fail("shotWidth and shotHeight go together")
        if sizes:
            width, height = _as_number(ctx, "shotWidth", self.shotWidth), _as_number(ctx, "shotHeight", self.shotHeight)
            if width <= 0 or height <= 0:
                ctx.fail("shotWidth and shotHeight must be greater than 0")
            size = await ctx.op(PAGE_SCRIPT, {"source": "return [innerWidth, innerHeight]"})
            viewport_width, viewport_height = size.result.value
            x, y = x * viewport_width / width, y * viewport_height / height
        return {"x": x, "y": y}


class FillData(PageNodeData):
    """Type (`entry: type`, default) or paste (`entry: paste`) `text` into the element."""

    node_type: ClassVar[str] = "fill"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "fill")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Types or pastes text into a field.")
    type: Literal["fill"]
    locator: NodeLocator
    entry: Literal["type", "paste"] = "type"
    text: Text

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        if step.secret:
            return f"Type the secret {{{{{step.secret}}}}} into{target_phrase(step)}"
        value = f"{{{{{step.input_name}}}}}" if step.input_name else f"'{clip(str(data.get('text', '')))}'"
        verb = "Paste" if data.get("entry") == "paste" else "Type"
        return f"{verb} {value} into{target_phrase(step)}"

    async def run(self, ctx: RunContext) -> Any:
        timeout_ms = ctx.acting_timeout_ms()
        locator = await ctx.locate(self.locator, timeout_ms / 1000)
        text = ctx.render(self.text)
        entering = PAGE_PASTE if self.entry == "paste" else PAGE_TYPE
        try:
            await ctx.op(entering, {"locator": locator, "text": text, "replace": True, "timeoutMs": timeout_ms})
        except NodeFailed as failure:
            if "<select" not in str(failure) or "not editable" not in str(failure):
                raise
            # A recorded `change` on a <select> the selector did not name as one: choose the option.
            await ctx.op(PAGE_SELECT, {"locator": locator, "option": text, "timeoutMs": timeout_ms})
        return {"value": text}


class SelectData(PageNodeData):
    """Choose `option` (its visible text, or a native option's value) in the list `locator` names: a <select>, or a
    custom select widget (select2, Choices.js, Tom Select, react-select…), which is opened, searched or scrolled,
    and picked in as a person does; the original app does the same (click the element, click the option whose
    text matches). Ours: `native`, the <select> such a widget keeps in step under it: replay opens the widget of
    that select when it finds it (a label and a name outlive a redesign of the widget), and checks the choice
    there."""

    node_type: ClassVar[str] = "select"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "select")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Chooses an option of a list.")
    type: Literal["select"]
    locator: NodeLocator
    option: Text
    native: OptionalLocator = None

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        return f"Select '{clip(str(data.get('option', '')))}' in{target_phrase(step)}"

    async def run(self, ctx: RunContext) -> Any:
        timeout_ms = ctx.acting_timeout_ms()
        locator = None
        if self.native is not None:
            try:
                locator = await ctx.locate(self.native, timeout_ms / 1000)
            except NodeFailed:
                locator = None  # the widget no longer keeps a <select> under it: the widget itself
        if locator is None:
            locator = await ctx.locate(self.locator, timeout_ms / 1000)
        chosen = await ctx.op(PAGE_SELECT, {"locator": locator, "option": ctx.render(self.option),
                                            "timeoutMs": timeout_ms})
        return chosen.result.wire()


class PressData(PageNodeData):
    """Press a key or shortcut: `enter`, `tab`, `ctrl+a`, `shift+tab`…"""

    node_type: ClassVar[str] = "press"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "press")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Presses a key or a shortcut: Enter, Tab, Ctrl+A and so on.")
    type: Literal["press"]
    shortcut: NonEmptyText

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        return f"Press {data.get('shortcut', '')}"

    async def run(self, ctx: RunContext) -> Any:
        pressed = await ctx.op(PAGE_KEY, {"shortcut": ctx.render(self.shortcut), "timeoutMs": ctx.acting_timeout_ms()})
        return {"shortcut": pressed.result.shortcut}


class _ScrollLike(PageNodeData):
    operation: ClassVar[Op[ScrollResult]]  # page_scroll or page_swipe
    direction: Direction = "down"
    locator: OptionalLocator = None
    until: OptionalLocator = None
    distance: Annotated[float, Field(gt=0, le=1_000_000)] | None = None
    """Ours: pixels to scroll in one go (a recorded distance); without it one step of 60% of the viewport, as
    the original. Ignored with `until`."""

    async def run(self, ctx: RunContext) -> Any:
        timeout_ms = ctx.acting_timeout_ms()
        params: dict[str, Any] = {"direction": self.direction, "timeoutMs": timeout_ms}
        if self.locator is not None:
            params["locator"] = await ctx.locate(self.locator, timeout_ms / 1000)
        if self.until is not None:
            params["until"] = ctx.render_locator(self.until)
        elif self.distance is not None:
            params["distance"] = self.distance
        return (await ctx.op(self.operation, params)).result.wire()


class ScrollData(_ScrollLike):
    """Scroll the page (or the `locator`'s element) once, or until `until` appears. Left/right are an
    extension (the original scrolls up or down)."""

    node_type: ClassVar[str] = "scroll"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "scroll")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Scrolls the page or an element, once or until an element appears.")
    operation: ClassVar[Op[ScrollResult]] = PAGE_SCROLL
    type: Literal["scroll"]

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        until = f" until{target_phrase(step)} shows" if data.get("until") else ""
        return f"Scroll {data.get('direction', 'down')}{until}"


class SwipeData(_ScrollLike):
    """A touch swipe on the page (or the `locator`'s element), once or until `until` appears.

    Ours, written by the recorder for a mouse drag: `dx`, `dy` (CSS px) replay it exactly as that drag — press
    at `offset` of the element (fractions of its box; default its centre), move by (dx, dy), release
    (`page_drag`). `direction` names the drag's main direction, so the original app swipes that way."""

    node_type: ClassVar[str] = "swipe"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "swipe")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Swipes the page or an element, once or until an element appears.")
    operation: ClassVar[Op[ScrollResult]] = PAGE_SWIPE
    type: Literal["swipe"]
    offset: ClickOffset | None = None
    dx: Annotated[float, Field(ge=-100_000, le=100_000)] | None = None
    dy: Annotated[float, Field(ge=-100_000, le=100_000)] | None = None

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        if "dx" not in data and "dy" not in data:
            return cls.node_type
        return f"Drag{target_phrase(step)} by {float(data.get('dx') or 0):+g}, {float(data.get('dy') or 0):+g} px"

    def lint(self) -> list[str]:
        if (self.dx is not None or self.dy is not None or self.offset is not None) and self.locator is None:
            return ["a drag (dx, dy or offset) needs a locator" + FAILS]
        return []

    async def run(self, ctx: RunContext) -> Any:
        if self.dx is None and self.dy is None:
            return await super().run(ctx)
        if self.locator is None:
            ctx.fail("a drag (dx, dy) needs a locator: the element it starts on")
        timeout_ms = ctx.acting_timeout_ms()
        params: dict[str, Any] = {"locator": await ctx.locate(self.locator, timeout_ms / 1000),
                                  "dx": self.dx or 0.0, "dy": self.dy or 0.0, "timeoutMs": timeout_ms}
        if self.offset is not None:
            params["offset"] = {"x": self.offset.x, "y": self.offset.y}
        return (await ctx.op(PAGE_DRAG, params)).result.wire()


class UploadData(PageNodeData):
    node_type: ClassVar[str] = "upload"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "upload")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Chooses files for a file field.")
    type: Literal["upload"]
    locator: NodeLocator
    paths: Annotated[list[NonEmptyText], Field(min_length=1)]

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        names = ", ".join(str(p).rsplit("/", 1)[-1] for p in data.get("paths") or [])
        return f"Upload {names} to{target_phrase(step)}"

    async def run(self, ctx: RunContext) -> Any:
        timeout_ms = ctx.acting_timeout_ms()
        locator = await ctx.locate(self.locator, timeout_ms / 1000)
        paths = [ctx.render(path) for path in self.paths]
        uploaded = await ctx.op(PAGE_UPLOAD, {"locator": locator, "paths": paths, "timeoutMs": timeout_ms})
        return {"files": uploaded.result.files}
