"""Locators: find elements in a page, wait until they can be acted on, and read the page.

A thin, typed layer over the helper injected into every frame (`resources/js/locator.js`, isolated world
`APP_WORLD`); see that file for the selector grammar. Each poll is one `run_js` round trip.

- `wait_actionable(page, locator, timeout)` polls every 16–25 ms until exactly one element matches and it
  is visible, enabled, stable (the same box across an animation frame), scrolled into view and not covered
  at its click point; it returns a `ClickTarget` in CSS px of the top-level viewport (the input layer
  multiplies by the zoom factor). Otherwise it raises a `LocatorError` with the last reason:

      no element matches "text=Next"
      2 elements match "text=Next": <a href=/p2>Next</a>, <button>Next</button>
      <button id=go>Go</button> is not visible
      <button id=go>Go</button> is disabled
      <input id=email type=email> is not editable
      <div id=box>Box</div> is not stable (it kept moving)
      <button id=go>Go</button> is covered by <div class="modal-backdrop">
      ref e12 is stale or unknown: take a new page_snapshot

      <button id=away>Away</button> is outside the viewport and could not be scrolled into view

  Several matches fail at once (as Playwright's strict mode); a bad selector or a stale ref fails at once.
  A description is the tag with id, name, for, type, href, role, aria-label, a test id, placeholder and alt
  (values quoted when not simple), the class when there is neither id nor text, and up to 40 characters
  of text.
- `wait_state(page, locator, "appear" | "gone", timeout)`: at least one / no visible match; on timeout a
  `WaitTimeout` (a `PageTimeout`): `no element matches "#x" after waiting 5 s`, `<div id=x> is not visible
  after waiting 5 s`, `<div id=spinner>Loading…</div> is still visible after waiting 5 s`.
- Reading: `count`, `describe`, `resolve`, `is_visible`, `query` (every match with a ref), `snapshot`
  (the accessibility tree as a compact outline for a model, with refs; long runs folded, pages of them by
  `locator` + `start`).
- `find(page, locators, fingerprint)`: one poll of a replayed node: the first locator naming exactly one
  element (of the fingerprint's kind and form), else the element the fingerprint heals to (resources/js/heal.js).
- `select_option` chooses an option of a native <select> in the page (the one operation that is not a
  trusted input event: native popups cannot be driven offscreen); `find_option` only reports its index,
  so a driver may choose it with the keyboard instead. `focus` focuses an element.
- Custom select widgets (resources/js/choose.js): `widget_of` finds the widget a locator stands for (the widget,
  or the hidden native <select> it keeps in step), `widget_option` the open list's option with a text, and
  `widget_shows` what the widget shows as chosen; the driver clicks and types (app/browser/parts/input.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from PySide6.QtWebEngineCore import QWebEnginePage

from app.browser.js import APP_WORLD, PageTimeout, run_js
from envs import loggers
from workflows.ports import Locator, PageError

log = logging.getLogger(loggers.BROWSER)

LocatorLike = Locator | Mapping[str, str] | str
"""A `Locator`, a dict with one of selector/xpath/ref, or a bare selector string."""

POLL_FRAME = 0.002    # after a first stability sample: the helper says "pending" until a frame has run
POLL_INTERVAL = 0.025  # while waiting for an element to appear, show, enable or uncover
PENDING_GRACE = 0.25   # a stability check begun before the deadline may finish this much after it
MAX_CALL = 10.0        # longest single run_js round trip we wait for


# -- errors ------------------------------------------------------------------------------------------------
class LocatorError(PageError):
    """A locator did not lead to one element that can be acted on; the message says why."""

    code = "locator_failed"


class InvalidSelector(LocatorError):
    """The selector or XPath cannot be parsed."""

    code = "invalid_locator"


class StaleRef(LocatorError):
    """A ref from an older snapshot or document."""

    code = "stale_ref"


class NoMatch(LocatorError):
    """No element matches."""

    code = "no_match"


class AmbiguousMatch(LocatorError):
    """Several elements match an operation that needs one."""

    code = "ambiguous"

    def __init__(self, message: str, count: int, descriptions: list[str]) -> None:
        super().__init__(message)
        self.count = count
        self.descriptions = descriptions


class NotActionable(LocatorError):
    """The one matching element cannot be acted on yet; `description` names it."""

    code = "not_actionable"

    def __init__(self, message: str, description: str) -> None:
        super().__init__(message)
        self.description = description


class NotVisible(NotActionable):
    pass


class NotEnabled(NotActionable):
    pass


class NotEditable(NotActionable):
    pass


class NotStable(NotActionable):
    pass


class OutsideViewport(NotActionable):
    pass


class Covered(NotActionable):
    def __init__(self, message: str, description: str, covered_by: str) -> None:
        super().__init__(message, description)
        self.covered_by = covered_by


class NotASelect(NotActionable):
    pass


class NoSuchOption(NotActionable):
    pass


class HelperMissing(LocatorError):
    """The page has no helper script (still loading, an error page, or not a web page)."""

    code = "helper_missing"


class WaitTimeout(LocatorError, PageTimeout):
    """`wait_state` ran out of time."""


# -- results -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClickTarget:
    """Where to click: CSS px of the top-level viewport, and what is there."""

    x: float
    y: float
    description: str


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class ElementInfo:
    """One row of `query`: `ref` can be used as a locator until the document changes."""

    ref: str
    tag: str
    description: str
    text: str
    attrs: dict[str, str]
    rect: Rect
    visible: bool
    hittable: bool
    enabled: bool
    value: str | None = None
    checked: bool | None = None
    frame: str | None = None   # the <iframe> holding the element, when not the top document

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class QueryResult:
    count: int
    rows: list[ElementInfo] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "elements": [row.to_dict() for row in self.rows]}


@dataclass(frozen=True)
class Snapshot:
    """`text` starts with `url:` and `title:` lines (and `scope:` for a part of the page), then one line per
    node of the accessibility tree, indented by depth: `- role "name" [ref=eN] …` for interactive elements,
    `- role: text`, `- text: …`; `folded` runs of similar siblings were shortened to a `- … N more` line."""

    url: str
    title: str
    text: str
    refs: int
    truncated: bool
    generation: int
    folded: int = 0


@dataclass(frozen=True)
class SelectedOption:
    index: int
    indexes: list[int]
    value: str
    text: str
    previous_index: int
    description: str


# -- calling the helper --------------------------------------------------------------------------------------
def locator_spec(locator: LocatorLike) -> tuple[dict[str, str], str]:
    """The JSON the helper takes and the label used in messages (`text=Next`, `//a`, `ref=e3`)."""
    if isinstance(locator, str):
        return {"selector": locator}, locator
    if isinstance(locator, Locator):
        loc = locator
    else:
        loc = Locator.model_validate(dict(locator))
    spec = {k: v for k, v in (("selector", loc.selector), ("xpath", loc.xpath), ("ref", loc.ref)) if v}
    return spec, loc.label()


class _Transient(Exception):
    """The page could not answer this time (navigating, helper not injected yet)."""

    def __init__(self, error: PageError) -> None:
        super().__init__(str(error))
        self.error = error


async def _call(page: QWebEnginePage, function: str, *args: Any, timeout: float = MAX_CALL) -> Any:
    """One round trip: `__bp.<function>(*args)`; our helper's own errors become `LocatorError`s."""
    arguments = ", ".join(json.dumps(a, ensure_ascii=False) for a in args)
    expression = (f'(typeof __bp === "undefined" ? {{error: "missing"}} : __bp.{function}({arguments}))')
    try:
        result = await run_js(page, expression, timeout=max(0.2, min(timeout, MAX_CALL)), world=APP_WORLD)
    except PageTimeout:
        raise
    except PageError as error:
        if type(error) is PageError:   # the page returned nothing: a navigation replaced the document
            raise _Transient(error) from None
        raise
    if isinstance(result, dict) and "error" in result:
        kind = result["error"]
        if kind == "missing":
            raise _Transient(HelperMissing("the page has no BrowserPilot helper: it is still loading, "
                                           "or it is an error page or not a web page"))
        if kind == "stale":
            raise StaleRef(result["message"])
        raise InvalidSelector(result["message"])
    return result


def _many_message(label: str, count: int, items: list[str]) -> str:
    more = f", and {count - len(items)} more" if count > len(items) else ""
    return f'{count} elements match "{label}": {", ".join(items)}{more}'


def status_error(label: str, result: Mapping[str, Any]) -> LocatorError:
    """The error for a non-ok status from the helper."""
    status = result.get("status")
    desc = str(result.get("desc") or "")
    if status == "none":
        return NoMatch(f'no element matches "{label}"')
    if status == "many":
        items = list(result.get("items") or [])
        return AmbiguousMatch(_many_message(label, int(result["count"]), items), int(result["count"]), items)
    if status == "hidden":
        return NotVisible(f"{desc} is not visible", desc)
    if status == "disabled":
        return NotEnabled(f"{desc} is disabled", desc)
    if status == "readonly":
        return NotEditable(f"{desc} is not editable", desc)
    if status in ("pending", "unstable"):
        return NotStable(f"{desc} is not stable (it kept moving)", desc)
    if status == "offscreen":
        return OutsideViewport(f"{desc} is outside the viewport and could not be scrolled into view", desc)
    if status == "covered":
        by = str(result.get("by") or "")
        return Covered(f"{desc} is covered by {by}", desc, by)
    if status == "notselect":
        return NotASelect(f"{desc} is not a <select>", desc)
    if status == "nooption":
        options = ", ".join(json.dumps(o, ensure_ascii=False) for o in result.get("options") or [])
        more = f", … {result['more']} more" if result.get("more") else ""
        return NoSuchOption(f'{desc} has no option {json.dumps(result.get("option"), ensure_ascii=False)} '
                            f"(options: {options}{more})", desc)
    if status == "notmultiple":
        return NoSuchOption(f"{desc} takes only one option", desc)
    if status == "disabledoption":
        return NoSuchOption(f'option {json.dumps(result.get("option"), ensure_ascii=False)} of {desc} is disabled', desc)
    return LocatorError(f'unexpected answer for "{label}": {result!r}')


async def _poll(page: QWebEnginePage, label: str, function: str, args: tuple[Any, ...], timeout: float) -> dict[str, Any]:
    """Call the helper until it answers `ok`; fail at once on several matches, bad selectors and stale refs,
    otherwise with the last reason once `timeout` has passed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, timeout)
    last: dict[str, Any] | None = None
    transient: _Transient | None = None
    while True:
        remaining = deadline - loop.time()
        result: dict[str, Any]
        try:
            result = await _call(page, function, *args, timeout=max(remaining, 1.0))
            transient = None
        except _Transient as error:
            result, transient = {"status": "transient"}, error
        status = result.get("status")
        if status == "ok":
            return result
        if status == "many":
            raise status_error(label, result)
        if status != "transient":
            last = result
        now = loop.time()
        if now >= deadline and (status != "pending" or now >= deadline + PENDING_GRACE):
            if last is not None:
                raise status_error(label, last)
            assert transient is not None
            raise transient.error
        await asyncio.sleep(POLL_FRAME if status in ("pending", "unstable") else POLL_INTERVAL)


async def _call_when_ready(page: QWebEnginePage, function: str, *args: Any, timeout: float = 5.0) -> Any:
    """One call for a reading operation, retried while the page is between documents."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            return await _call(page, function, *args, timeout=max(deadline - loop.time(), 1.0))
        except _Transient as error:
            if loop.time() >= deadline:
                raise error.error from None
            await asyncio.sleep(POLL_INTERVAL)


# -- acting --------------------------------------------------------------------------------------------------
async def wait_actionable(page: QWebEnginePage, locator: LocatorLike, timeout: float = 10.0, *,
                          hit_test: bool = True, enabled: bool = True, editable: bool = False,
                          scroll: bool = True, stable: bool = True) -> ClickTarget:
    """Wait until the locator names one visible, enabled (and, if asked, editable), stable element, scroll it
    into view and check that a click at its centre reaches it; return that point."""
    spec, label = locator_spec(locator)
    opts = {"hitTest": hit_test, "enabled": enabled, "editable": editable, "scroll": scroll, "stable": stable}
    result = await _poll(page, label, "actionable", (spec, opts), timeout)
    log.debug("actionable %s at (%s, %s): %s", label, result["x"], result["y"], result["desc"])
    return ClickTarget(float(result["x"]), float(result["y"]), str(result["desc"]))


async def focus(page: QWebEnginePage, locator: LocatorLike, timeout: float = 10.0) -> str:
    """Wait for one visible, enabled element and focus it; return its description."""
    spec, label = locator_spec(locator)
    result = await _poll(page, label, "focus", (spec,), timeout)
    if not result.get("focused"):
        raise NotActionable(f"{result['desc']} cannot take the keyboard focus", str(result["desc"]))
    return str(result["desc"])


# Whether the one element a locator names is the focused element of the top document (through open shadow
# roots). The focused element is named by a positional XPath (/*[1]/*[2]/…) so that the helper's own refs can
# be compared; an element in a shadow root or a frame is reported as not focused (the caller then clicks).
_HAS_FOCUS = """(() => {
  if (typeof __bp === 'undefined') return false;
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  if (!el || el === document.body || el === document.documentElement || el.getRootNode() !== document) return false;
  const steps = [];
  for (let node = el; node; node = node.parentElement) {
    let index = 1;
    for (let sib = node.previousElementSibling; sib; sib = sib.previousElementSibling) index += 1;
    steps.unshift('*[' + index + ']');
  }
  const mine = __bp.query(SPEC, 2), active = __bp.query({xpath: '/' + steps.join('/')}, 2);
  return !!(mine.rows && active.rows && mine.count === 1 && active.count === 1 &&
            mine.rows[0].ref === active.rows[0].ref);
})()"""


async def has_focus(page: QWebEnginePage, locator: LocatorLike) -> bool:
    """Whether the element the locator names (exactly one) has the keyboard focus now."""
    spec, _ = locator_spec(locator)
    return bool(await run_js(page, _HAS_FOCUS.replace("SPEC", json.dumps(spec, ensure_ascii=False)),
                             world=APP_WORLD))


def _selected(result: Mapping[str, Any]) -> SelectedOption:
    return SelectedOption(int(result["index"]), [int(i) for i in result["indexes"]], str(result["value"]),
                          str(result["text"]), int(result["previousIndex"]), str(result["desc"]))


async def select_option(page: QWebEnginePage, locator: LocatorLike, option: str | Sequence[str],
                        timeout: float = 10.0) -> SelectedOption:
    """Choose an option of a native <select> (or a <label>'s select) by value or visible text (exact, then
    ignoring case); several for a multiple select. Dispatches input and change."""
    spec, label = locator_spec(locator)
    wanted: str | list[str] = option if isinstance(option, str) else list(option)
    return _selected(await _poll(page, label, "selectOption", (spec, wanted, True), timeout))


async def find_option(page: QWebEnginePage, locator: LocatorLike, option: str, timeout: float = 10.0) -> SelectedOption:
    """Like `select_option` but changes nothing: the option's index and the current one (`previous_index`),
    for a driver that chooses with the keyboard."""
    spec, label = locator_spec(locator)
    return _selected(await _poll(page, label, "selectOption", (spec, option, False), timeout))


# -- waiting and reading ---------------------------------------------------------------------------------------
async def wait_state(page: QWebEnginePage, locator: LocatorLike, state: Literal["appear", "gone"] = "appear",
                     timeout: float = 10.0) -> int:
    """Wait until at least one match is visible (`appear`; returns how many are) or none is (`gone`; returns 0).
    A ref whose element left the page counts as gone."""
    if state not in ("appear", "gone"):
        raise ValueError(f"state is appear or gone, not {state!r}")
    spec, label = locator_spec(locator)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, timeout)
    last: dict[str, Any] | None = None
    while True:
        try:
            last = await _call(page, "count", spec, timeout=max(deadline - loop.time(), 1.0))
            assert last is not None
            visible = int(last["visible"])
            if state == "appear" and visible > 0:
                return visible
            if state == "gone" and visible == 0:
                return 0
        except _Transient:
            pass
        if loop.time() >= deadline:
            raise _wait_timeout(label, state, last, timeout)
        await asyncio.sleep(POLL_INTERVAL)


def _wait_timeout(label: str, state: str, last: Mapping[str, Any] | None, timeout: float) -> WaitTimeout:
    waited = f"after waiting {timeout:g} s"
    if last is None:
        return WaitTimeout(f'the page did not answer while waiting for "{label}" ({waited})')
    count, visible, desc = int(last["count"]), int(last["visible"]), last.get("desc")
    if state == "appear":
        if count == 0:
            return WaitTimeout(f'no element matches "{label}" {waited}')
        if count == 1:
            return WaitTimeout(f"{desc} is not visible {waited}")
        return WaitTimeout(f'{count} elements match "{label}" but none is visible {waited}')
    if visible == 1:
        return WaitTimeout(f"{desc} is still visible {waited}")
    return WaitTimeout(f'{visible} elements matching "{label}" are still visible {waited}')


async def count(page: QWebEnginePage, locator: LocatorLike) -> int:
    """How many elements match (visible or not)."""
    spec, _ = locator_spec(locator)
    return int((await _call_when_ready(page, "count", spec))["count"])


async def is_visible(page: QWebEnginePage, locator: LocatorLike) -> bool:
    """Whether at least one match is visible."""
    spec, _ = locator_spec(locator)
    return int((await _call_when_ready(page, "count", spec))["visible"]) > 0


async def describe(page: QWebEnginePage, locator: LocatorLike) -> tuple[int, list[str]]:
    """How many elements match and the descriptions of the first five."""
    spec, _ = locator_spec(locator)
    result = await _call_when_ready(page, "describe", spec)
    return int(result["count"]), [str(d) for d in result["items"]]


async def resolve(page: QWebEnginePage, locator: LocatorLike) -> str:
    """The description of the one element the locator names, now (no waiting); raises `NoMatch` or
    `AmbiguousMatch` otherwise."""
    spec, label = locator_spec(locator)
    result = await _call_when_ready(page, "describe", spec)
    n = int(result["count"])
    if n == 0:
        raise NoMatch(f'no element matches "{label}"')
    if n > 1:
        raise AmbiguousMatch(_many_message(label, n, result["items"]), n, list(result["items"]))
    return str(result["items"][0])


async def query(page: QWebEnginePage, locator: LocatorLike, limit: int = 50) -> QueryResult:
    """Every match (the first `limit`): tag, description, text, key attributes, rect in top-level viewport
    px, visible, hittable (a click at its centre would reach it now), enabled, value, checked, and a ref."""
    spec, _ = locator_spec(locator)
    result = await _call_when_ready(page, "query", spec, int(limit))
    rows = [ElementInfo(ref=r["ref"], tag=r["tag"], description=r["desc"], text=r["text"], attrs=dict(r["attrs"]),
                        rect=Rect(**r["rect"]), visible=bool(r["visible"]), hittable=bool(r["hittable"]),
                        enabled=bool(r["enabled"]), value=r.get("value"), checked=r.get("checked"),
                        frame=r.get("frame"))
            for r in result["rows"]]
    return QueryResult(int(result["count"]), rows)


async def snapshot(page: QWebEnginePage, locator: LocatorLike | None = None, *, start: int = 1, items: int = 25,
                   limit: int = 1000) -> Snapshot:
    """The page's accessibility tree as a compact outline for a model: landmarks, headings, paragraphs and
    text, lists, tables (rows, cells), images with their alt text, and interactive elements with refs that work
    as locators until the document changes. `locator` limits it to one element's content. A run of more than
    `items` similar siblings (0: no limit) shows `items` of them, from the `start`-th for the runs directly
    inside `locator`, and a line saying how to see the rest. At most `limit` lines."""
    spec = locator_spec(locator) if locator is not None else None
    options = {"locator": spec[0] if spec else None, "start": int(start), "items": int(items), "limit": int(limit)}
    result = await _call_when_ready(page, "snapshot", options)
    if "status" in result:
        raise status_error(spec[1] if spec else "", result)
    return Snapshot(url=result["url"], title=result["title"], text=result["text"], refs=int(result["refs"]),
                    truncated=bool(result["truncated"]), generation=int(result["generation"]),
                    folded=int(result["folded"]))


# -- custom select widgets (resources/js/choose.js) ------------------------------------------------------------
@dataclass(frozen=True)
class Widget:
    """A custom select widget to choose in: the element to click to open it, and the native <select> it keeps in
    step (when there is one), as refs of this document."""

    trigger: str
    description: str
    native: str | None


async def _choose(page: QWebEnginePage, call: str, timeout: float) -> dict[str, Any]:
    expression = f"(typeof __bpChoose === 'undefined' ? {{status: 'missing'}} : __bpChoose.{call})"
    try:
        result = await run_js(page, expression, timeout=max(0.2, min(timeout, MAX_CALL)), world=APP_WORLD)
    except PageTimeout:
        raise
    except PageError as error:
        if type(error) is not PageError:
            raise
        result = {"status": "missing"}  # between documents
    return result if isinstance(result, dict) else {"status": "missing"}


async def widget_of(page: QWebEnginePage, locator: LocatorLike, timeout: float = 10.0) -> Widget | None:
    """The custom select widget the locator's element stands for (the widget itself, or the hidden native <select>
    it keeps in step), waiting until the locator names one element; None for a <select> shown as itself."""
    spec, label = locator_spec(locator)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, timeout)
    while True:
        result = await _choose(page, f"trigger({json.dumps(spec, ensure_ascii=False)})", deadline - loop.time())
        status = result.get("status")
        if status == "ok":
            return Widget(str(result["ref"]), str(result.get("desc") or ""), result.get("native"))
        if status in ("native", "hidden"):
            return None  # the native path says what is wrong with a hidden select that no widget shows
        if status == "invalid":
            raise InvalidSelector(str(result.get("message")))
        if status == "many":
            raise status_error(label, result)
        if loop.time() >= deadline:
            raise NoMatch(f'no element matches "{label}"')
        await asyncio.sleep(POLL_INTERVAL)


async def widget_option(page: QWebEnginePage, option: str, timeout: float) -> dict[str, Any]:
    """Wait (at most `timeout`) for the open list's option whose text is `option`: {status: ok, ref, desc}, or the
    last {status: none, options, more, typing}."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, timeout)
    while True:
        result = await _choose(page, f"option({json.dumps(option, ensure_ascii=False)})", max(deadline - loop.time(), 1.0))
        if result.get("status") == "ok" or loop.time() >= deadline:
            return result
        await asyncio.sleep(POLL_INTERVAL)


async def widget_reveal(page: QWebEnginePage, ref: str) -> dict[str, Any]:
    """Whether the option is wholly shown in the lists that clip it ({status: ok}), else where to turn the wheel
    and by how much ({status: scroll, x, y, dy}, top-level viewport px)."""
    return await _choose(page, f"reveal({json.dumps(ref)})", 5.0)


async def widget_shows(page: QWebEnginePage, widget: Widget) -> str:
    """What the widget shows as chosen now (its native select's option text, else the text around it)."""
    result = await _choose(page, f"shows({json.dumps(widget.trigger)}, {json.dumps(widget.native)})", 5.0)
    return str(result.get("text") or "")


# -- finding a node's element again (replay) ----------------------------------------------------------------------
async def find(page: QWebEnginePage, candidates: Sequence[LocatorLike], fingerprint: Mapping[str, Any] | None,
               threshold: float | None = None, margin: float | None = None, heal: bool = True) -> dict[str, Any]:
    """One look at the page, frames and shadow roots together (resources/js/heal.js `find`): `{status: found,
    index}` for the first locator naming exactly one element (refused when it is of another kind or in another
    form than the fingerprint's), else with a fingerprint `{status: healed, ref, desc, score, margin, why,
    locator}` or `{status: none | unsure, candidates: [{desc, score, why}]}`; `counts` per locator."""
    specs = [locator_spec(locator)[0] for locator in candidates]
    opts: dict[str, Any] = {k: v for k, v in (("threshold", threshold), ("margin", margin)) if v is not None}
    if not heal:
        opts["locatorsOnly"] = True   # only check the locators (and refuse another kind or form)
    expression = ("(typeof __bpHeal === 'undefined' ? {error: 'missing'} : __bpHeal.find("
                  f"{json.dumps(specs, ensure_ascii=False)}, {json.dumps(fingerprint or None, ensure_ascii=False)}, "
                  f"{json.dumps(opts)}))")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5.0
    while True:
        try:
            result = await run_js(page, expression, timeout=MAX_CALL, world=APP_WORLD)
        except PageTimeout:
            raise
        except PageError as error:
            if type(error) is not PageError:
                raise
            result = {"error": "missing"}
        if isinstance(result, dict) and result.get("error") != "missing":
            return result
        if loop.time() >= deadline:
            raise HelperMissing("the page has no BrowserPilot helper: it is still loading, or it is an error page "
                                "or not a web page")
        await asyncio.sleep(POLL_INTERVAL)
