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
  `widget_shows` what the widget shows as chosen, each in the scope holding the widget (the page, or another
  site's frame: the same code); the driver clicks and types (app/browser/parts/input.py).

Another site's frames (app/browser/frames.py) are searched too, by their own helpers: every function looks in
each *scope* of the page (the page with its readable frames, and each frame the page cannot read) and counts
the matches of all of them, so "exactly one" means one in the whole page; an acting function then works in the
one scope that holds the element, and its point is translated into the top-level viewport (the frame's place,
each frame above it brought into view, and a click there checked to reach the frame at every level). A chain
through such a frame (`iframe[name="pay"] >> input[name="code"]`) goes on in the frame's own helper. Refs of
elements there are `f<N>e<M>`. A page without another site's frames costs nothing more.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar

from PySide6.QtWebEngineCore import QWebEnginePage

from app.browser import frames
from app.browser.frames import Scope
from app.browser.js import APP_WORLD, JsTarget, PageTimeout, run_js
from plumbing import loggers
from workflows.ports import Locator, PageError

log = logging.getLogger(loggers.BROWSER)

T = TypeVar("T")

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
    """Where to click: CSS px of the top-level viewport, and what is there (and its box, when known); `frame_url`
    is the address of the frame holding it when that is another site's frame (None: the page's own documents)."""

    x: float
    y: float
    description: str
    box: "Rect | None" = None
    frame_url: str | None = None


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


async def _call(page: JsTarget, function: str, *args: Any, timeout: float = MAX_CALL) -> Any:
    """One round trip: `__bp.<function>(*args)` (in the page's main frame, or in a frame); our helper's own
    errors become `LocatorError`s."""
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
    """Call the helper until it answers `ok` (in the scope holding the one element `args[0]` names); fail at once
    on several matches, bad selectors and stale refs, otherwise with the last reason once `timeout` has passed.
    An answer from another site's frame carries `frameUrl`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, timeout)
    last: dict[str, Any] | None = None
    transient: _Transient | None = None
    memo: dict[str, Any] = {}
    while True:
        remaining = deadline - loop.time()
        result: dict[str, Any]
        try:
            result = await _attempt(page, function, args, max(remaining, 1.0), memo)
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


async def _when_ready(page: QWebEnginePage, attempt: Callable[[float], Awaitable[T]], timeout: float = 5.0) -> T:
    """A reading operation (`attempt(call_timeout)`), retried while the page is between documents."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            return await attempt(max(deadline - loop.time(), 1.0))
        except _Transient as error:
            if loop.time() >= deadline:
                raise error.error from None
            if _blank(page):
                raise HelperMissing("the tab shows no page (about:blank): navigate it to one first") from None
            await asyncio.sleep(POLL_INTERVAL)


def _blank(page: QWebEnginePage) -> bool:
    """The tab shows nothing and is not loading: no helper will come (a new tab before its first navigation)."""
    return page.url().toString() in ("", "about:blank") and not page.isLoading()


# -- scopes: the page, and each frame of another site (app/browser/frames.py) -------------------------------------
@dataclass(frozen=True)
class _Answer:
    """One scope's answer, and the locator as that scope's helper took it."""

    scope: Scope
    result: dict[str, Any]
    spec: dict[str, str]


MAX_HOPS = 4  # chains through frames of frames of …: at most this many frames deep


async def _call_in(scope: Scope, function: str, spec: Mapping[str, str], *args: Any, timeout: float) -> dict[str, Any]:
    """`_call` in one scope; a frame of another site that cannot answer now (loading, gone) is transient."""
    try:
        return await _call(scope.target, function, dict(spec), *args, timeout=timeout)
    except PageTimeout:
        if scope.main:
            raise
        raise _Transient(HelperMissing(f"a frame of {frames.site(scope.url)} did not answer")) from None
    except (_Transient, LocatorError):
        raise
    except PageError as error:
        if scope.main:
            raise
        raise _Transient(error) from None


def _in_frame(description: str, scope: Scope) -> str:
    return description if scope.main else f"{description} (in a frame of {frames.site(scope.url)})"


def _routed(found: list[Scope], spec: Mapping[str, str]) -> tuple[Scope, dict[str, str]] | None:
    """The one scope a ref belongs to (`f3e12`: frame 3's `e12`; `e12`: the page's), with the local ref;
    None for a locator that is not a ref."""
    if "ref" not in spec:
        return None
    number, local = frames.split_ref(str(spec["ref"]))
    scope = frames.scope_numbered(found, number)
    if scope is None:
        raise StaleRef(f"ref {spec['ref']} is stale or unknown: take a new page_snapshot")
    return scope, {"ref": local}


async def _fan(page: QWebEnginePage, function: str, spec: Mapping[str, str], *args: Any,
               timeout: float = MAX_CALL) -> list[_Answer]:
    """`function(spec, *args)` in every scope of the page (a ref: in its own), then along the chains that reach
    into another site's frame (`hops`). The main scope's failures are raised; a frame's are left out."""
    found = await frames.scopes(page)
    routed = _routed(found, spec)
    if routed is not None:
        scope, local = routed
        return [_Answer(scope, await _call_in(scope, function, local, *args, timeout=timeout), local)]
    if len(found) == 1:
        return [_Answer(found[0], await _call_in(found[0], function, spec, *args, timeout=timeout), dict(spec))]
    todo = [(scope, dict(spec)) for scope in found]
    answers: list[_Answer] = []
    for _depth in range(MAX_HOPS + 1):
        # A frame of another site gets a short while: between two documents it drops the call (it is left out).
        results = await asyncio.gather(*(_call_in(scope, function, local, *args,
                                                  timeout=timeout if scope.main else min(timeout, frames.FRAME_TIMEOUT))
                                         for scope, local in todo), return_exceptions=True)
        hops: list[tuple[Scope, dict[str, str]]] = []
        for (scope, local), result in zip(todo, results):
            if isinstance(result, BaseException):
                if scope.main or not isinstance(result, (_Transient, PageError)):
                    raise result
                continue
            answers.append(_Answer(scope, result, local))
            for hop in result.get("hops") or []:
                path = (*scope.path, *(int(i) for i in hop.get("path") or []))
                inner = next((s for s in found if s.path == path), None)
                if inner is not None and hop.get("rest"):
                    hops.append((inner, {"selector": str(hop["rest"])}))
        if not hops:
            break
        todo = hops
    return answers


async def _locate(page: QWebEnginePage, spec: Mapping[str, str], timeout: float
                  ) -> tuple[Scope, dict[str, str]] | dict[str, Any]:
    """The scope holding the one element `spec` names, with the locator as that scope's helper takes it; or the
    answer `none` / `many` when the page holds none or several. A page without another site's frames: its
    own scope at once (its helper says the rest)."""
    found = await frames.scopes(page)
    routed = _routed(found, spec)
    if routed is not None:
        return routed
    if len(found) == 1:
        return found[0], dict(spec)
    answers = [a for a in await _fan(page, "describe", spec, timeout=timeout) if int(a.result.get("count") or 0)]
    total = sum(int(a.result["count"]) for a in answers)
    if total == 0:
        return {"status": "none"}
    if total > 1:
        items = [_in_frame(str(item), a.scope) for a in answers for item in a.result.get("items") or []]
        return {"status": "many", "count": total, "items": items[:5]}
    return answers[0].scope, answers[0].spec


async def _attempt(page: QWebEnginePage, function: str, args: tuple[Any, ...], timeout: float,
                   memo: dict[str, Any]) -> dict[str, Any]:
    """One poll of `_poll`: `function(spec, *rest)` in the scope holding the element."""
    located = await _locate(page, args[0], timeout)
    if isinstance(located, dict):
        return located
    scope, spec = located
    result = await _call_in(scope, function, spec, *args[1:], timeout=timeout)
    if scope.main or not isinstance(result, dict):
        return result
    result = {**result, "frameUrl": scope.url}
    if function == "actionable" and result.get("status") == "ok":
        return await _frame_point(page, scope, result, args[1] if len(args) > 1 else {}, memo)
    return result


FRAME_SCROLLS = 3  # times a frame above the element is scrolled into view before the element counts as off-screen


async def _frame_point(page: QWebEnginePage, scope: Scope, result: dict[str, Any], opts: Mapping[str, Any],
                       memo: dict[str, Any]) -> dict[str, Any]:
    """An element of another site's frame was actionable in its frame: its point in the top-level viewport,
    once its frame shows it there (scrolled into view), stays put and a click there reaches the frame."""
    desc = str(result.get("desc") or "")
    where = await frames.placement(page, scope)
    if where is None:
        return {"status": "hidden", "desc": desc, "frameUrl": scope.url}
    x, y = where.x + float(result["x"]), where.y + float(result["y"])
    if not where.shows(x, y):
        if opts.get("scroll", True) and memo.get("scrolls", 0) < FRAME_SCROLLS:
            memo["scrolls"] = memo.get("scrolls", 0) + 1
            memo.pop("origin", None)
            await frames.placement(page, scope, scroll=True)
            return {"status": "pending", "desc": desc, "frameUrl": scope.url}
        return {"status": "offscreen", "desc": desc, "frameUrl": scope.url}
    if opts.get("stable", True) and memo.get("origin") != (where.x, where.y):
        memo["origin"] = (where.x, where.y)  # the frame itself must stay put across two looks, as the element
        return {"status": "pending", "desc": desc, "frameUrl": scope.url}
    if opts.get("hitTest", True):
        by = await frames.covering(page, scope, x, y)
        if by is not None:
            return {"status": "covered", "desc": desc, "by": by, "frameUrl": scope.url}
    return {**result, "x": round(x, 2), "y": round(y, 2)}


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
    box = result.get("box")
    return ClickTarget(float(result["x"]), float(result["y"]), str(result["desc"]),
                       Rect(**box) if isinstance(box, dict) else None, result.get("frameUrl"))


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
    """Whether the element the locator names (exactly one) has the keyboard focus now. In another site's frame,
    that frame's document must have the focus too (its focused element stays when the page's focus leaves)."""
    spec, _ = locator_spec(locator)
    located = await _locate(page, spec, MAX_CALL)
    if isinstance(located, dict):
        return False
    scope, local = located
    check = _HAS_FOCUS.replace("SPEC", json.dumps(local, ensure_ascii=False))
    if not scope.main:
        check = f"(document.hasFocus() && {check})"
    return bool(await run_js(scope.target, check, world=APP_WORLD))


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
            last = await _count_all(page, spec, max(deadline - loop.time(), 1.0))
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


async def _count_all(page: QWebEnginePage, spec: Mapping[str, str], timeout: float,
                     outside: Sequence[int] | None = None) -> dict[str, Any]:
    """`count` over the page's scopes: matches, visible matches (in another site's frame, only while its frame
    shows), and the description of the first visible (else first) one. A ref whose frame left counts none.
    `outside`: leave out the scope at that index path."""
    try:
        answers = await _fan(page, "count", spec, timeout=timeout)
        if outside is not None:
            answers = [a for a in answers if a.scope.path != tuple(outside)]
    except StaleRef:
        if "ref" in spec and frames.split_ref(str(spec["ref"]))[0]:
            return {"count": 0, "visible": 0, "desc": None}
        raise
    total = visible = 0
    first: str | None = None
    first_visible: str | None = None
    for answer in answers:
        result = answer.result
        shown = int(result.get("visible") or 0)
        if shown and not answer.scope.main and await frames.placement(page, answer.scope) is None:
            shown = 0  # its frame is hidden or gone
        total += int(result.get("count") or 0)
        visible += shown
        desc = result.get("desc")
        if desc:
            first = first or _in_frame(str(desc), answer.scope)
            if shown and first_visible is None:
                first_visible = _in_frame(str(desc), answer.scope)
    return {"count": total, "visible": visible, "desc": first_visible or first}


async def _describe_all(page: QWebEnginePage, spec: Mapping[str, str], timeout: float) -> dict[str, Any]:
    """`describe` over the page's scopes; when matches come from several, each says which frame it is in."""
    answers = [a for a in await _fan(page, "describe", spec, timeout=timeout) if a.result.get("items")]
    items = [_in_frame(str(item), a.scope) if len(answers) > 1 else str(item)
             for a in answers for item in a.result["items"]]
    return {"count": sum(int(a.result.get("count") or 0) for a in answers), "items": items[:5]}


async def count(page: QWebEnginePage, locator: LocatorLike, outside: Sequence[int] | None = None) -> int:
    """How many elements match (visible or not); `outside`: but none in the scope of the frame at that index
    path (app/browser/frames.py)."""
    spec, _ = locator_spec(locator)
    return int((await _when_ready(page, lambda t: _count_all(page, spec, t, outside)))["count"])


async def is_visible(page: QWebEnginePage, locator: LocatorLike) -> bool:
    """Whether at least one match is visible."""
    spec, _ = locator_spec(locator)
    return int((await _when_ready(page, lambda t: _count_all(page, spec, t)))["visible"]) > 0


async def describe(page: QWebEnginePage, locator: LocatorLike) -> tuple[int, list[str]]:
    """How many elements match and the descriptions of the first five."""
    spec, _ = locator_spec(locator)
    result = await _when_ready(page, lambda t: _describe_all(page, spec, t))
    return int(result["count"]), [str(d) for d in result["items"]]


async def resolve(page: QWebEnginePage, locator: LocatorLike) -> str:
    """The description of the one element the locator names, now (no waiting); raises `NoMatch` or
    `AmbiguousMatch` otherwise."""
    spec, label = locator_spec(locator)
    result = await _when_ready(page, lambda t: _describe_all(page, spec, t))
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
    answers = await _when_ready(page, lambda t: _fan(page, "query", spec, int(limit), timeout=t))
    rows: list[ElementInfo] = []
    for answer in answers:
        where = None if answer.scope.main else await frames.placement(page, answer.scope)
        for r in answer.result["rows"]:
            rect, visible, hittable, frame = Rect(**r["rect"]), bool(r["visible"]), bool(r["hittable"]), r.get("frame")
            if not answer.scope.main:  # rects of another site's frame: moved to where the frame shows
                if where is None:
                    visible = hittable = False
                else:
                    rect = Rect(round(rect.x + where.x, 2), round(rect.y + where.y, 2), rect.width, rect.height)
                    hittable = hittable and where.shows(rect.x + rect.width / 2, rect.y + rect.height / 2)
                frame = f"{where.frame if where else '<iframe>'} ({frames.site(answer.scope.url)})"
            rows.append(ElementInfo(ref=answer.scope.ref(r["ref"]), tag=r["tag"], description=r["desc"],
                                    text=r["text"], attrs=dict(r["attrs"]), rect=rect, visible=visible,
                                    hittable=hittable, enabled=bool(r["enabled"]), value=r.get("value"),
                                    checked=r.get("checked"), frame=frame))
    return QueryResult(sum(int(a.result["count"]) for a in answers), rows[:limit])


async def snapshot(page: QWebEnginePage, locator: LocatorLike | None = None, *, start: int = 1, items: int = 25,
                   limit: int = 1000) -> Snapshot:
    """The page's accessibility tree as a compact outline for a model: landmarks, headings, paragraphs and
    text, lists, tables (rows, cells), images with their alt text, and interactive elements with refs that work
    as locators until the document changes. `locator` limits it to one element's content. A run of more than
    `items` similar siblings (0: no limit) shows `items` of them, from the `start`-th for the runs directly
    inside `locator`, and a line saying how to see the rest. At most `limit` lines."""
    spec = locator_spec(locator) if locator is not None else None
    options: dict[str, Any] = {"locator": None, "start": int(start), "items": int(items), "limit": int(limit)}

    async def look(timeout: float) -> tuple[Scope, dict[str, Any]]:
        scope = frames.main_scope(page)
        if spec is not None:
            located = await _locate(page, spec[0], timeout)
            if isinstance(located, dict):
                return scope, located
            scope, options["locator"] = located
        return scope, await _call_in(scope, "snapshot", options, timeout=timeout)

    scope, result = await _when_ready(page, look)
    if "status" in result:
        raise status_error(spec[1] if spec else "", result)
    lines, refs, folded = await _frames_filled(page, scope, result, int(items), int(limit))
    text, truncated = str(result["text"]), bool(result["truncated"])
    if refs != int(result["refs"]) or len(lines) != text.count("\n") + 1:  # another site's frames were filled in
        header = 3 if spec is not None else 2  # url, title (and scope) lines
        kept = [line for line in lines if not _LEFT_OUT.match(line)]
        skipped = sum(int(m.group(1)) for m in map(_LEFT_OUT.match, lines) if m) + max(0, len(kept) - header - limit)
        if skipped:
            kept = kept[:header + limit] + [f"- … {skipped} more lines left out (snapshot limit {limit}): snapshot "
                                            'a part with {"locator": …}']
            truncated = True
        text = "\n".join(kept)
    return Snapshot(url=result["url"], title=result["title"], text=text, refs=refs, truncated=truncated,
                    generation=int(result["generation"]), folded=folded)


_LEFT_OUT = re.compile(r"^\s*- … (\d+) more lines left out \(snapshot limit")


_LINE_REF = re.compile(r'(\[ref=|"ref": ")(e\d+)')


async def _frames_filled(page: QWebEnginePage, scope: Scope, result: Mapping[str, Any], items: int, limit: int,
                         depth: int = 0) -> tuple[list[str], int, int]:
    """A snapshot's lines with another site's frames filled in under their `iframe` lines (their own helpers'
    snapshots, indented, refs `f<N>e<M>`), the refs and the folded runs in all."""
    lines = str(result["text"]).split("\n")
    if not scope.main:
        lines = [_LINE_REF.sub(lambda m: f"{m.group(1)}f{scope.number}{m.group(2)}", line) for line in lines]
    refs, folded = int(result["refs"]), int(result["folded"])
    inner_frames = result.get("frames") or []
    if not inner_frames or depth >= MAX_HOPS:
        return lines, refs, folded
    found = await frames.scopes(page)
    for entry in sorted(inner_frames, key=lambda f: -int(f["line"])):  # from the bottom: line numbers stay true
        path = (*scope.path, *(int(i) for i in entry.get("path") or []))
        inner = next((s for s in found if s.path == path and not s.main), None)
        index = int(entry["line"])
        if inner is None or not 0 <= index < len(lines):
            continue
        try:
            sub = await _call_in(inner, "snapshot", {"locator": None, "start": 1, "items": items, "limit": limit},
                                 timeout=MAX_CALL)
        except (_Transient, PageError):
            continue  # still loading, or not a page: the line keeps saying it is not readable
        if "status" in sub:
            continue
        sub_lines, sub_refs, sub_folded = await _frames_filled(page, inner, sub, items, limit, depth + 1)
        body = [line for line in sub_lines[2:] if line.strip()]   # without its url and title lines
        indent = "  " * (int(entry.get("depth") or 0) + 1)
        lines[index] = lines[index].replace(" (cross-origin, not readable)", f" ({frames.site(inner.url)})") + \
            (":" if body else "")
        lines[index + 1:index + 1] = [indent + line for line in body]
        refs += sub_refs
        folded += sub_folded
    return lines, refs, folded


# -- custom select widgets (resources/js/choose.js) ------------------------------------------------------------
@dataclass(frozen=True)
class Widget:
    """A custom select widget to choose in: the element to click to open it, and the native <select> it keeps in
    step (when there is one), as refs of the page (`f<N>e<M>` in another site's frame); `scope` is the one whose
    helper holds them (the list the widget opens shows there too), `frame_url` its address when that is another
    site's frame (what a secret's binding is checked against)."""

    trigger: str
    description: str
    native: str | None
    scope: int = 0
    frame_url: str | None = None


async def _choose(scope: Scope, call: str, timeout: float) -> dict[str, Any]:
    """`__bpChoose.<call>` in one scope; {status: missing} while it has no helper (between documents, or another
    site's frame that does not answer now)."""
    expression = f"(typeof __bpChoose === 'undefined' ? {{status: 'missing'}} : __bpChoose.{call})"
    wait = max(0.2, min(timeout, MAX_CALL if scope.main else frames.FRAME_TIMEOUT))
    try:
        result = await run_js(scope.target, expression, timeout=wait, world=APP_WORLD)
    except PageTimeout:
        if scope.main:
            raise
        result = {"status": "missing"}
    except PageError as error:
        if type(error) is not PageError and scope.main:
            raise
        result = {"status": "missing"}  # between documents
    return result if isinstance(result, dict) else {"status": "missing"}


async def _widget_scope(page: QWebEnginePage, widget: Widget) -> Scope:
    scope = frames.scope_numbered(await frames.scopes(page), widget.scope)
    if scope is None:
        raise StaleRef(f"{widget.description} left the page (its frame is gone)")
    return scope


async def widget_of(page: QWebEnginePage, locator: LocatorLike, timeout: float = 10.0) -> Widget | None:
    """The custom select widget the locator's element stands for (the widget itself, or the hidden native <select>
    it keeps in step), waiting until the locator names one element, in the page or in another site's frame; None
    for a <select> shown as itself."""
    spec, label = locator_spec(locator)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, timeout)
    while True:
        try:
            located = await _locate(page, spec, max(deadline - loop.time(), 1.0))
        except _Transient:
            located = {"status": "none"}
        if isinstance(located, dict):
            result = located
        else:
            scope, local = located
            result = await _choose(scope, f"trigger({json.dumps(local, ensure_ascii=False)})", deadline - loop.time())
        status = result.get("status")
        if status == "ok":
            native = result.get("native")
            return Widget(scope.ref(str(result["ref"])), _in_frame(str(result.get("desc") or ""), scope),
                          scope.ref(str(native)) if native else None, scope.number,
                          None if scope.main else scope.url)
        if status in ("native", "hidden"):
            return None  # the native path says what is wrong with a hidden select that no widget shows
        if status == "invalid":
            raise InvalidSelector(str(result.get("message")))
        if status == "many":
            raise status_error(label, result)
        if loop.time() >= deadline:
            raise NoMatch(f'no element matches "{label}"')
        await asyncio.sleep(POLL_INTERVAL)


async def widget_option(page: QWebEnginePage, widget: Widget, option: str, timeout: float) -> dict[str, Any]:
    """Wait (at most `timeout`) for the option whose text is `option` in the list the widget opened (in the
    widget's scope): {status: ok, ref (the page's), desc}, or the last {status: none, options, more, typing}."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max(0.0, timeout)
    scope = await _widget_scope(page, widget)
    while True:
        result = await _choose(scope, f"option({json.dumps(option, ensure_ascii=False)})",
                               max(deadline - loop.time(), 1.0))
        if result.get("status") == "ok":
            return {**result, "ref": scope.ref(str(result["ref"]))}
        if loop.time() >= deadline:
            return result
        await asyncio.sleep(POLL_INTERVAL)


async def widget_reveal(page: QWebEnginePage, ref: str) -> dict[str, Any]:
    """Whether the option (a ref of the page) is wholly shown in the lists that clip it ({status: ok}), else where
    to turn the wheel and by how much ({status: scroll, x, y, dy}, top-level viewport px: a point in another
    site's frame is moved to where that frame shows)."""
    routed = _routed(await frames.scopes(page), {"ref": ref})
    assert routed is not None
    scope, local = routed
    result = await _choose(scope, f"reveal({json.dumps(local['ref'])})", 5.0)
    if result.get("status") != "scroll" or scope.main:
        return result
    where = await frames.placement(page, scope)
    if where is None:
        return {"status": "none"}
    return {**result, "x": where.x + float(result["x"]), "y": where.y + float(result["y"])}


async def widget_shows(page: QWebEnginePage, widget: Widget) -> str:
    """What the widget shows as chosen now (its native select's option text, else the text around it)."""
    scope = await _widget_scope(page, widget)
    trigger = frames.split_ref(widget.trigger)[1]
    native = frames.split_ref(widget.native)[1] if widget.native else None
    result = await _choose(scope, f"shows({json.dumps(trigger)}, {json.dumps(native)})", 5.0)
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
    found = await frames.scopes(page)
    if len(found) == 1:
        return await _heal_find(page, specs, fingerprint, opts)
    return await _find_in_scopes(page, found, specs, fingerprint, opts)


async def _heal_find(target: JsTarget, specs: Sequence[Mapping[str, str]], fingerprint: Mapping[str, Any] | None,
                     opts: Mapping[str, Any], wait: float = 5.0) -> dict[str, Any]:
    """`__bpHeal.find` in one document (the page, or a frame), waiting up to `wait` for its helper."""
    expression = ("(typeof __bpHeal === 'undefined' ? {error: 'missing'} : __bpHeal.find("
                  f"{json.dumps(list(specs), ensure_ascii=False)}, "
                  f"{json.dumps(fingerprint or None, ensure_ascii=False)}, {json.dumps(dict(opts))}))")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait
    while True:
        try:
            result = await run_js(target, expression, timeout=MAX_CALL, world=APP_WORLD)
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


async def _find_in_scopes(page: QWebEnginePage, found: list[Scope], specs: list[dict[str, str]],
                          fingerprint: Mapping[str, Any] | None, opts: Mapping[str, Any]) -> dict[str, Any]:
    """`find` on a page with another site's frames: each locator's matches are counted in every scope (so
    "exactly one" is in the whole page), the one found is checked by its own scope's helper (kind, form); healing
    ranks the candidates of every scope, and the best must beat the best of every other scope by the margin."""
    counts: list[int] = []
    rejected: list[dict[str, Any]] = []
    for index, spec in enumerate(specs):
        try:
            answers = [a for a in await _fan(page, "describe", spec) if int(a.result.get("count") or 0)]
        except LocatorError:
            counts.append(-1)
            continue
        except _Transient:
            answers = []
        total = sum(int(a.result["count"]) for a in answers)
        counts.append(total)
        if total != 1:
            continue
        one = answers[0]
        checked = await _heal_find(one.scope.target, [one.spec], fingerprint, {**opts, "locatorsOnly": True}, 1.0)
        if checked.get("status") == "found":
            return {"status": "found", "index": index, "counts": counts + [0] * (len(specs) - index - 1)}
        counts[index] = 0
        rejected.extend({**r, "index": index, "desc": _in_frame(str(r.get("desc")), one.scope)}
                        for r in checked.get("rejected") or [])
    counts += [0] * (len(specs) - len(counts))
    if not fingerprint or not fingerprint.get("kind") or opts.get("locatorsOnly"):
        return {"status": "none", "counts": counts, "candidates": [], "rejected": rejected}
    looks = await asyncio.gather(*(_heal_find(scope.target, [], fingerprint, opts, 1.0 if not scope.main else 5.0)
                                   for scope in found), return_exceptions=True)
    ranked: list[tuple[float, Scope, dict[str, Any]]] = []
    for scope, look in zip(found, looks):
        if isinstance(look, BaseException):
            if scope.main:
                raise look
            continue
        ranked.append((_best_score(look), scope, look))
    ranked.sort(key=lambda item: -item[0])
    candidates = [{**c, "desc": _in_frame(str(c.get("desc")), scope)}
                  for _score, scope, look in ranked for c in look.get("candidates") or []]
    candidates = sorted(candidates, key=lambda c: -float(c.get("score") or 0))[:5]
    result: dict[str, Any] = {"counts": counts, "candidates": candidates, "rejected": rejected}
    if not ranked or ranked[0][2].get("status") != "healed":
        return {**result, "status": ranked[0][2].get("status", "none") if ranked else "none"}
    best_score, best_scope, best = ranked[0]
    runner_up = max((score for score, _scope, _look in ranked[1:]), default=0.0)
    lead = min(float(best.get("margin") or 0), best_score - runner_up)
    if lead < float(opts.get("margin", HEAL_MARGIN)):
        return {**result, "status": "unsure"}
    return {**best, **result, "ref": best_scope.ref(str(best["ref"])), "desc": _in_frame(str(best["desc"]), best_scope),
            "margin": round(lead, 2)}


HEAL_MARGIN = 0.12  # resources/js/heal.js MARGIN: how far the best candidate must lead the runner-up


def _best_score(look: Mapping[str, Any]) -> float:
    """The best score of one scope's ranking that could be taken (a candidate in another form cannot)."""
    if look.get("status") == "healed":
        return float(look.get("score") or 0)
    scores = [float(c.get("score") or 0) for c in look.get("candidates") or [] if c.get("why") != ["another form"]]
    return max(scores, default=0.0)
