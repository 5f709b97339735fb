"""Page operations: navigate, act like a person, read the page, and hand control to a person.

Every operation takes `tabId?` and `env?` (default: the active tab of env-default, opening its window when
needed) and returns the envelope `{ok, control, takenOver?, dialogs?, newTabs?, error?, errorShot?, ...}`.
Acting operations wait up to `timeoutMs` (default 10 s) for their target to be attached, visible, enabled,
stable and not covered; in `handoff` they first wait for the target to appear (a person finishing their
step), then re-lock the tab.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from app.ops.context import OpContext
from app.ops.page_session import MAX_TIMEOUT_MS, ActingParams, TabParams, on_page
from app.ops.registry import Operation, OpError, Params, operation
from workflows.envelope import Envelope
from workflows.ports import Direction, Locator, MouseButton, Paper, TabPort, WaitUntil
from workflows.results import CdpResult, ClickResult, ControlResult, DragResult, FileResult, FindResult, KeyResult, LoadResult, PdfResult, QueryResult, ScreenshotResult, ScriptResult, ScrollResult, SelectResult, SettleResult, SnapshotResult, SourceResult, TypeResult, UploadResult, WaitResult

# The original BrowserPilot's page_upload without a locator: the page's first file input.
FIRST_FILE_INPUT = Locator(xpath="(//input[@type='file'])[1]")


# -- parameters ------------------------------------------------------------------------------------------
class NavigateParams(ActingParams):
    url: str
    wait_until: WaitUntil = "load"
    timeout_ms: int = Field(default=30_000, ge=0, le=600_000)


class HistoryParams(ActingParams):
    wait_until: WaitUntil = "load"
    timeout_ms: int = Field(default=30_000, ge=0, le=600_000)


class ClickOffset(Params):
    x: float = Field(ge=0, le=1)  # 0: the element's left edge, 1: its right edge
    y: float = Field(ge=0, le=1)  # 0: its top edge, 1: its bottom edge


class ClickParams(ActingParams):
    locator: Locator | None = None
    x: float | None = Field(default=None, description="Viewport CSS px, with y, instead of a locator.")
    y: float | None = None
    button: MouseButton = "left"
    click_count: int = Field(default=1, ge=1, le=3)
    until: Locator | None = None
    offset: ClickOffset | None = Field(default=None, description="Point in the element as fractions of its box "
                                                                "(default: its centre).")

    @model_validator(mode="after")
    def _target(self) -> "ClickParams":
        if self.offset is not None and self.locator is None:
            raise ValueError("offset needs a locator (it is a point inside the element)")
        if self.locator is None and (self.x is None or self.y is None):
            raise ValueError("page_click needs a locator or both x and y")
        if self.locator is not None and (self.x is not None or self.y is not None):
            raise ValueError("page_click takes a locator or x and y, not both")
        return self


class TypeParams(ActingParams):
    text: str
    locator: Locator | None = Field(default=None, description="Default: the focused element.")
    x: float | None = Field(default=None, description="Or click this viewport point first.")
    y: float | None = None
    replace: bool = False  # the tool's description says it: existing text is kept unless replace

    @model_validator(mode="after")
    def _target(self) -> "TypeParams":
        if (self.x is None) != (self.y is None):
            raise ValueError("give both x and y")
        if self.locator is not None and self.x is not None:
            raise ValueError("give a locator or x and y, not both")
        return self


class SelectParams(ActingParams):
    option: str = Field(description="Its visible text or value.")
    locator: Locator = Field(description="A <select> or a custom select widget.")


class KeyParams(ActingParams):
    shortcut: str


class ScrollParams(ActingParams):
    direction: Direction = "down"
    locator: Locator | None = Field(default=None, description="Scroll inside this element.")
    until: Locator | None = Field(default=None, description="Until this element is visible.")
    distance: float | None = Field(default=None, gt=0, le=1_000_000, description="Pixels (default 60% of the view).")


class SwipeParams(ScrollParams):
    direction: Direction = Field(default="up", description="up (default), down, left or right.")
    locator: Locator | None = Field(default=None, description="Swipe over this element instead of the page.")
    until: Locator | None = Field(default=None, description="Keep swiping until this element is visible.")


class DragParams(ActingParams):
    locator: Locator | None = Field(default=None, description="Element to press on (e.g. a slider). ")
    x: float | None = None
    y: float | None = None
    dx: float = Field(description="Horizontal distance in CSS pixels.")
    dy: float = Field(default=0, description="Vertical distance in CSS pixels.")
    offset: ClickOffset | None = Field(default=None, description="With a locator: press at this point of the "
                                                                "element ({x, y} fractions of its box, 0..1) "
                                                                "instead of its centre.")

    @model_validator(mode="after")
    def _target(self) -> "DragParams":
        if self.locator is None and (self.x is None or self.y is None):
            raise ValueError("page_drag needs a locator or both x and y")
        if self.offset is not None and self.locator is None:
            raise ValueError("offset needs a locator (it is a point inside the element)")
        return self


class UploadParams(ActingParams):
    paths: list[str] = Field(min_length=1, description="Absolute file paths.")
    locator: Locator | None = Field(default=None, description="The file input or its button (default: the first).")


class DownloadParams(ActingParams):
    locator: Locator | None = Field(default=None, description="Link or button that starts the download.")
    url: str | None = Field(default=None, description="URL to download instead of clicking.")
    save_as: str | None = Field(default=None, description="File name (kept inside the downloads folder).")
    timeout_ms: int = Field(default=60_000, ge=0, le=600_000)

    @model_validator(mode="after")
    def _target(self) -> "DownloadParams":
        if (self.locator is None) == (self.url is None):
            raise ValueError("page_download needs exactly one of locator or url")
        return self


class WaitParams(TabParams):
    locator: Locator
    state: Literal["appear", "gone"] = "appear"
    timeout_ms: int = 10_000  # brought within 500…60000 (no bounds in the schema: the original's calls pass more)

    @field_validator("timeout_ms", mode="before")
    @classmethod
    def _clamp(cls, value: Any) -> Any:
        """Like the original: a timeout outside 500…60000 ms is brought inside rather than refused."""
        try:
            return min(max(int(float(value)), 500), 60_000)
        except (TypeError, ValueError):
            return value


class QueryParams(TabParams):
    locator: Locator


class ScreenshotParams(TabParams):
    full_page: bool = False
    locator: Locator | None = Field(default=None, description="Only this element.")
    outline: Locator | None = Field(default=None, description="Outline this element in red.")


class PdfParams(TabParams):
    paper: Paper = "A4"
    landscape: bool = False
    background: bool = Field(default=True, description="Print background colours and images.")
    header_footer: bool = Field(default=False, description="Title, URL and 'n / total' page numbers in the margins.")


class SourceParams(TabParams):
    kind: Literal["html", "text", "dom"] = Field(default="html", description="text: the visible text; dom: html.")


class ScriptParams(TabParams):
    source: str = Field(description="An expression (document.title) or an async function body with `return`.")
    args: Any = Field(default=None, description="JSON value available as `args`.")
    frame: Locator | str | None = Field(default=None, description="Run inside this iframe: a locator of the "
                                                                  "<iframe> (same-origin), or a part of its URL "
                                                                  "(any site's frame).")
    timeout_ms: int = Field(default=30_000, ge=0, le=600_000)


class CdpParams(TabParams):
    method: str = Field(pattern=r"^[A-Z][A-Za-z]*\.[a-zA-Z][A-Za-z0-9]*$",
                        description="Chrome DevTools Protocol method, e.g. Runtime.evaluate, Page.captureScreenshot, "
                                    "Network.getCookies, Accessibility.getFullAXTree.")
    params: dict[str, Any] | None = Field(default=None, description="The method's parameters (a JSON object).")
    session_id: str | None = Field(default=None, description="Accepted for the original's calls; commands always "
                                                             "go to the tab's own page session.")
    timeout_ms: int = Field(default=30_000, ge=100, le=600_000)


class HandoffParams(TabParams):
    message: str = Field(min_length=1)  # the description says it: the banner shows the message
    wait: bool = Field(default=False, description="Return when the person clicks Done.")
    timeout_ms: int = Field(default=600_000, ge=0, le=600_000)


# -- operations ------------------------------------------------------------------------------------------
@operation("page_navigate", NavigateParams, LoadResult, needs_browser=True, group="core")
async def page_navigate(ctx: OpContext, params: NavigateParams) -> Envelope[LoadResult]:
    """Load a URL and wait for it (waitUntil). A failed load is an error naming why (DNS, refused, blocked,
    HTTP 5xx)."""
    return await on_page(ctx, params, lambda p: p.navigation.navigate(params.url, params.wait_until, params.timeout))


def _history(action: Literal["back", "forward", "reload"]):  # type: ignore[no-untyped-def]
    async def run(ctx: OpContext, params: HistoryParams) -> Envelope[LoadResult]:
        return await on_page(ctx, params, lambda p: p.navigation.history(action, params.wait_until, params.timeout))

    run.__doc__ = {"back": "Go back in the tab's history and wait for the load.",
                   "forward": "Go forward in the tab's history and wait for the load.",
                   "reload": "Reload the tab and wait for the load."}[action]
    return run


page_back = operation("page_back", HistoryParams, LoadResult, needs_browser=True, group="core")(_history("back"))
page_forward = operation("page_forward", HistoryParams, LoadResult, needs_browser=True, group="input")(_history("forward"))
page_reload = operation("page_reload", HistoryParams, LoadResult, needs_browser=True, group="input")(_history("reload"))


@operation("page_click", ClickParams, ClickResult, needs_browser=True, group="core")
async def page_click(ctx: OpContext, params: ClickParams) -> Envelope[ClickResult]:
    """Click an element or a point. With until: retried (3 times at most) until that element appears."""
    offset = (params.offset.x, params.offset.y) if params.offset is not None else None
    return await on_page(ctx, params, lambda p: p.input.click(params.locator, params.x, params.y, params.button,
                                                        params.click_count, params.until, params.timeout,
                                                        offset=offset),
                         acting=True, target=params.locator, timeout=params.timeout)


async def _type(ctx: OpContext, tab: TabPort, params: TypeParams, paste: bool) -> TypeResult:
    point: ClickResult | None = None
    if params.x is not None and params.y is not None:
        if ctx.secrets and ctx.browser is not None:  # a secret for another site: refused before the click
            state = ctx.browser.tab_state(tab.tab_id)
            ctx.secrets.check(params.text, [state[0]] if state else [])
        point = await tab.input.click(None, params.x, params.y, "left", 1, None, params.timeout)
    typed = await tab.input.type_text(params.text, params.locator, paste, params.timeout, params.replace,
                                      secrets=ctx.secrets)
    if point is not None:  # the point clicked first
        typed.x, typed.y = point.x, point.y
    return typed


@operation("page_type", TypeParams, TypeResult, needs_browser=True, secret_field="text", group="core")
async def page_type(ctx: OpContext, params: TypeParams) -> Envelope[TypeResult]:
    """Type text key by key into a field (clicked first unless it has the focus). Existing text is kept
    unless replace."""
    return await on_page(ctx, params, lambda p: _type(ctx, p, params, False),
                         acting=True, target=params.locator, timeout=params.timeout)


@operation("page_paste", TypeParams, TypeResult, needs_browser=True, secret_field="text", group="input")
async def page_paste(ctx: OpContext, params: TypeParams) -> Envelope[TypeResult]:
    """Insert text as one block, like a paste, into the element, the point x/y, or the focused field."""
    return await on_page(ctx, params, lambda p: _type(ctx, p, params, True),
                         acting=True, target=params.locator, timeout=params.timeout)


@operation("page_select", SelectParams, SelectResult, needs_browser=True, secret_field="option", group="core")
async def page_select(ctx: OpContext, params: SelectParams) -> Envelope[SelectResult]:
    """Choose an option of a <select> or of a custom select widget (opened, searched, clicked and checked as a
    person would)."""
    return await on_page(ctx, params, lambda p: p.input.select(params.option, params.locator, params.timeout,
                                                             secrets=ctx.secrets),
                         acting=True, target=params.locator, timeout=params.timeout)


@operation("page_key", KeyParams, KeyResult, needs_browser=True, group="core")
async def page_key(ctx: OpContext, params: KeyParams) -> Envelope[KeyResult]:
    """Press a key or chord in the focused element: enter, esc, tab, shift+tab, ctrl+a, arrowdown, f5…"""
    return await on_page(ctx, params, lambda p: p.input.key(params.shortcut), acting=True, timeout=params.timeout)


@operation("page_scroll", ScrollParams, ScrollResult, needs_browser=True, group="core")
async def page_scroll(ctx: OpContext, params: ScrollParams) -> Envelope[ScrollResult]:
    """Scroll the page or an element with the mouse wheel (with until: 16 steps at most, waiting at the end for
    more to load)."""
    return await on_page(ctx, params, lambda p: p.input.scroll(params.direction, params.locator, params.until, False,
                                                         params.timeout, params.distance),
                         acting=True, timeout=params.timeout)


@operation("page_swipe", SwipeParams, ScrollResult, needs_browser=True, group="input")
async def page_swipe(ctx: OpContext, params: SwipeParams) -> Envelope[ScrollResult]:
    """Swipe (press, move, release) over the page or an element, up by default; with `until`, repeat (at most
    20 times) until that element is visible. For carousels and swipe-driven lists."""
    return await on_page(ctx, params, lambda p: p.input.scroll(params.direction, params.locator, params.until, True,
                                                         params.timeout, params.distance),
                         acting=True, timeout=params.timeout)


@operation("page_drag", DragParams, DragResult, needs_browser=True, group="input")
async def page_drag(ctx: OpContext, params: DragParams) -> Envelope[DragResult]:
    """Press on an element (or point), move by dx/dy and release: sliders, drag handles."""
    offset = (params.offset.x, params.offset.y) if params.offset is not None else None
    return await on_page(ctx, params, lambda p: p.input.drag(params.locator, params.x, params.y, params.dx, params.dy,
                                                       params.timeout, offset=offset),
                         acting=True, target=params.locator, timeout=params.timeout)


@operation("page_upload", UploadParams, UploadResult, needs_browser=True, group="core")
async def page_upload(ctx: OpContext, params: UploadParams) -> Envelope[UploadResult]:
    """Give files to a file input, without a dialog."""
    target = params.locator or FIRST_FILE_INPUT
    notes = [] if params.locator is not None else ["no locator: used the page's first file input"]
    return await on_page(ctx, params, lambda p: p.input.upload(params.paths, target, params.timeout),
                         acting=True, target=target, timeout=params.timeout, notes=notes)


@operation("page_download", DownloadParams, FileResult, needs_browser=True, group="files")
async def page_download(ctx: OpContext, params: DownloadParams) -> Envelope[FileResult]:
    """Download by clicking a link/button or from a URL; waits until the file is complete. Returns {path, name,
    bytes, mime}; files go to the environment's downloads folder with a safe, de-duplicated name. On a media
    element it saves the element's source as page_save_media does (a streamed video whole, as one file); a
    URL of an HLS (.m3u8) or DASH (.mpd) manifest saves that stream."""
    return await on_page(ctx, params, lambda p: p.capture.download(params.locator, params.url, params.save_as,
                                                           params.timeout),
                         acting=True, target=params.locator, timeout=params.timeout)


@operation("page_wait", WaitParams, WaitResult, needs_browser=True, read_only=True, group="core")
async def page_wait(ctx: OpContext, params: WaitParams) -> Envelope[WaitResult]:
    """Wait until an element is visible (appear) or gone; timeoutMs is brought within 500…60000."""
    return await on_page(ctx, params, lambda p: p.reading.wait(params.locator, params.state, params.timeout_ms / 1000))


@operation("page_query", QueryParams, QueryResult, needs_browser=True, read_only=True, group="core")
async def page_query(ctx: OpContext, params: QueryParams) -> Envelope[QueryResult]:
    """Every element a locator matches, with its text, attributes, box and state."""
    return await on_page(ctx, params, lambda p: p.reading.query(params.locator))


class FindParams(TabParams):
    locators: list[Locator] = Field(default_factory=list, max_length=50,
                                    description="Tried in order; the first naming exactly one element wins.")
    fingerprint: dict[str, Any] | None = Field(default=None, description="The element as it was recorded (a "
                                               "locator's `fingerprint`): heals when no locator finds it.")


@operation("page_find", FindParams, FindResult, needs_browser=True, read_only=True, group="replay")
async def page_find(ctx: OpContext, params: FindParams) -> Envelope[FindResult]:
    """One look for a workflow node's element, in the page, its open shadow roots and its frames (another site's
    too) together: {status: found, index} for the first locator naming exactly one element (refused when it is of
    another kind or in another form than the fingerprint says); otherwise, with a fingerprint, {status: healed,
    ref, desc, score, margin, why, locator} when one element of the same kind fits it clearly, else {status:
    none | unsure, candidates: [{desc, score, why}]}."""
    return await on_page(ctx, params, lambda p: p.reading.find(params.locators, params.fingerprint))


class SnapshotParams(TabParams):
    locator: Locator | None = Field(default=None, description="Only this element's content.")
    start: int = Field(default=1, ge=1)  # with locator: the first item of its folded runs (a fold line says it)
    items: int = Field(default=25, ge=0, le=10_000, description="Similar items shown before a fold (0: all).")


@operation("page_snapshot", SnapshotParams, SnapshotResult, needs_browser=True, read_only=True, group="core")
async def page_snapshot(ctx: OpContext, params: SnapshotParams) -> Envelope[SnapshotResult]:
    """The page as an outline, one line per node, controls with a ref (e12) that later calls take as
    {"ref": "e12"}. A long run of similar items is folded to a line naming the call that shows more."""
    return await on_page(ctx, params, lambda p: p.reading.snapshot(params.locator, params.start, params.items))


@operation("page_source", SourceParams, SourceResult, needs_browser=True, read_only=True, group="core")
async def page_source(ctx: OpContext, params: SourceParams) -> Envelope[SourceResult]:
    """The page's live HTML, or its visible text (kind text)."""
    if params.kind == "text":
        async def text(tab: TabPort) -> SourceResult:
            read = await tab.reading.script("return document.body ? document.body.innerText : ''", None, 30.0)
            return SourceResult(kind="text", text=read.value)
        return await on_page(ctx, params, text)

    async def html(tab: TabPort) -> SourceResult:
        source = await tab.reading.source()
        source.kind = params.kind  # dom: the same live HTML
        return source
    return await on_page(ctx, params, html)


@operation("page_screenshot", ScreenshotParams, ScreenshotResult, needs_browser=True, read_only=True, group="core")
async def page_screenshot(ctx: OpContext, params: ScreenshotParams) -> Envelope[ScreenshotResult]:
    """A PNG of the viewport, the full page or one element, shown to you as an image."""
    return await on_page(ctx, params, lambda p: p.capture.screenshot(params.full_page, params.locator, params.outline))


@operation("page_pdf", PdfParams, PdfResult, needs_browser=True, read_only=True, group="files")
async def page_pdf(ctx: OpContext, params: PdfParams) -> Envelope[PdfResult]:
    """Print the page to PDF (A4, Letter, Legal or A3; landscape; backgrounds; optional header and footer with
    title, URL and 'n / total' page numbers). Returns {path}."""
    return await on_page(ctx, params, lambda p: p.capture.pdf(params.paper, params.landscape, params.background,
                                                      params.header_footer))


# Runs the caller's source in the page (or a same-origin frame): first as an expression, and when that does not
# parse, as a function body -- an async one when it uses `await`; without, a plain one, which answers in the call
# that starts it (so a source that navigates still returns its value); a returned promise is awaited either way.
# Compiling with the frame's own Function makes `document` the frame's.
SCRIPT_RUNNER = """
const frame = args.frame;
let win = window;
if (frame) {
  let el = null;
  if (frame.selector) el = document.querySelector(frame.selector);
  else if (frame.xpath) el = document.evaluate(frame.xpath, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE,
                                               null).singleNodeValue;
  else el = [...document.querySelectorAll('iframe, frame')].find((f) => {
    let href = f.src || '';
    try { href = f.contentWindow.location.href; } catch (e) {}
    return href.includes(frame.url);
  }) || null;
  if (!el) throw new Error('no frame matches ' + JSON.stringify(frame.selector || frame.xpath || frame.url));
  if (!/^(IFRAME|FRAME)$/.test(el.tagName)) throw new Error('the frame locator matches a <' + el.tagName.toLowerCase() + '>, not an <iframe>');
  try { win = el.contentWindow; void win.document.documentElement; }
  catch (e) { throw new Error('that frame is of another site: give frame as a part of its URL to run there'); }
}
const Fn = /\\bawait\\b/.test(args.source)
  ? win.eval('Object.getPrototypeOf(async function () {}).constructor') : win.Function;
let fn, kind = 'expression';
try { fn = new Fn('args', 'return (' + args.source + '\\n)'); }
catch (e) { kind = 'function body'; fn = new Fn('args', args.source); }
const value = fn.call(win, args.args);
const answer = (v) => ({kind, value: v === undefined ? null : v});
return value && typeof value.then === 'function' ? value.then(answer) : answer(value);
"""


@operation("page_script", ScriptParams, ScriptResult, needs_browser=True, group="devtools")
async def page_script(ctx: OpContext, params: ScriptParams) -> Envelope[ScriptResult]:
    """Run JavaScript in the page (or an iframe with `frame`: a locator of a same-origin <iframe>, or a part of the
    URL of any frame, another site's too): an expression (document.title) or an async function body with
    `return`. Returns {value, sourceKind: expression | function body}; errors come with the JavaScript message and
    line."""
    frame: dict[str, str] | None = None
    if isinstance(params.frame, Locator):
        if params.frame.ref is not None:
            raise OpError("frame takes a selector or an xpath of the <iframe>, or a part of its URL")
        frame = params.frame.model_dump(exclude_none=True)
    elif params.frame:
        frame = {"url": params.frame}

    async def run(tab: TabPort) -> ScriptResult:
        ran = None
        if isinstance(params.frame, str):  # another site's frame, which the page itself cannot enter
            ran = await tab.reading.script_in_frame(params.frame, SCRIPT_RUNNER,
                                                    {"source": params.source, "frame": None, "args": params.args},
                                                    params.timeout_ms / 1000)
        if ran is None:
            ran = await tab.reading.script(SCRIPT_RUNNER, {"source": params.source, "frame": frame,
                                                           "args": params.args}, params.timeout_ms / 1000)
        answer = ran.value  # the runner's: {kind, value}
        return ScriptResult(value=answer["value"], source_kind=answer["kind"])

    return await on_page(ctx, params, run)


@operation("page_cdp", CdpParams, CdpResult, needs_browser=True, group="devtools")
async def page_cdp(ctx: OpContext, params: CdpParams) -> Envelope[CdpResult]:
    """Send one Chrome DevTools Protocol command to the tab and return its {result}. No debugging port is
    opened: a hidden DevTools channel attaches to the tab on first use and detaches when idle. Commands that
    would break BrowserPilot's control of the tab or reach other environments (Target.*, Browser.*,
    Inspector.*, Fetch.*, Debugger.*, Page.close, Page.setDownloadBehavior, ...) are refused with the reason.
    The answer is under result and, as in the original, value."""

    async def send(tab: TabPort) -> CdpResult:
        sent = await tab.network.cdp(params.method, params.params, params.timeout_ms / 1000)
        sent.value = sent.result  # the original's name
        return sent

    ignored = [f"sessionId {params.session_id} was ignored: commands go to the tab's page session"] \
        if params.session_id else []
    return await on_page(ctx, params, send, notes=ignored)


async def _set_control(tab: TabPort, control: Literal["agent", "shared", "handoff"],
                       message: str | None = None, wait_ms: int | None = None) -> ControlResult:
    """Set who controls the tab (the envelope's `control` says it), and with `wait_ms` wait out the handoff."""
    await tab.control.set_state(control, message)
    if wait_ms is not None:
        return ControlResult(ended=await tab.control.wait_handoff_done(wait_ms / 1000))
    return ControlResult()


@operation("page_lock", TabParams, ControlResult, needs_browser=True, group="input")
async def page_lock(ctx: OpContext, params: TabParams) -> Envelope[ControlResult]:
    """Put the tab under agent control: an overlay blocks the person's input (they can press Take over)."""
    return await on_page(ctx, params, lambda p: _set_control(p, "agent"))


@operation("page_unlock", TabParams, ControlResult, needs_browser=True, group="input")
async def page_unlock(ctx: OpContext, params: TabParams) -> Envelope[ControlResult]:
    """Share the tab: no overlay, the person and the agent both act."""
    return await on_page(ctx, params, lambda p: _set_control(p, "shared"))


@operation("page_handoff", HandoffParams, ControlResult, needs_browser=True, group="core")
async def page_handoff(ctx: OpContext, params: HandoffParams) -> Envelope[ControlResult]:
    """Ask the person to do one step (a captcha, a login): a banner shows the message and a Done button.
    Returns at once; your next acting call on the tab waits for its target, then takes the tab back."""
    return await on_page(ctx, params, lambda p: _set_control(p, "handoff", params.message,
                                                             params.timeout_ms if params.wait else None))


class SettleParams(TabParams):
    timeout_ms: int | None = Field(default=None, ge=0, le=MAX_TIMEOUT_MS,
                                   description="Wait at most this long (ms); default: the app's setting (10 s).")


@operation("page_settle", SettleParams, SettleResult, needs_browser=True, read_only=True, group="input")
async def page_settle(ctx: OpContext, params: SettleParams) -> Envelope[SettleResult]:
    """Wait until what the last actions started has landed (e.g. before closing a tab): a navigation or form
    post, fetch/XHR requests, beacons, WebSocket messages, event streams, workers' requests, and the Save a
    single-page app sends a moment after the click (its timers, then a quiet moment). Returns {settled, pending:
    [{kind, method, url, ms, lastAction}]}: what was still waiting at the bound (lastAction: the last action
    started it)."""
    timeout = params.timeout_ms / 1000 if params.timeout_ms is not None else ctx.settle_seconds()
    return await on_page(ctx, params, lambda p: p.network.settle(timeout))


OPERATIONS: tuple[Operation[Any, Any], ...] = (
    page_navigate, page_back, page_forward, page_reload, page_click, page_type, page_paste, page_select,
    page_key, page_scroll, page_swipe, page_drag, page_upload, page_download, page_wait, page_query, page_find,
    page_snapshot, page_source, page_screenshot, page_pdf, page_script, page_lock, page_unlock, page_handoff,
    page_cdp, page_settle,
)
