"""Reading one element closely: inspect it, find what is at a point, watch it change, find a media source.

All of it runs resources/js/inspect.js in the helpers' isolated world, on top of locator.js, so a locator
means here what it means to every other operation. `watch` polls the element's text, attributes, value
and visibility every `interval` seconds until `timeout` and reports each change with its time.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from typing import Any

from PySide6.QtWebEngineCore import QWebEnginePage

from app.browser.js import run_js
from app.browser.locators import locator_spec
from app.startup.resources import JS_DIR
from plumbing import loggers
from workflows.ports import Locator, PageError
from workflows.results_devtools import ElementHit, ElementInspection, WatchResult

log = logging.getLogger(loggers.BROWSER)

MAX_CHANGES = 200


@functools.cache
def _source() -> str:
    return (JS_DIR / "inspect.js").read_text("utf-8")


async def _call(page: QWebEnginePage, request: dict[str, Any], label: str) -> dict[str, Any]:
    result = await run_js(page, f"({_source()})({json.dumps(request)})")
    if not isinstance(result, dict):
        raise PageError("the page did not answer the inspection (it may be navigating)")
    error = result.get("error")
    if error == "none":
        raise PageError(f'no element matches "{label}"' if label else str(result.get("message")))
    if error == "many":
        items = "; ".join(result.get("items") or [])
        raise PageError(f'"{label}" matches {result.get("count")} elements '
                        f"(exactly one is needed): {items}")
    if error:
        raise PageError(str(result.get("message") or error))
    return result


async def inspect(page: QWebEnginePage, locator: Locator) -> ElementInspection:
    spec, label = locator_spec(locator)
    return ElementInspection.model_validate(await _call(page, {"op": "inspect", "locator": spec}, label))


async def hit(page: QWebEnginePage, x: float, y: float) -> ElementHit:
    data = await _call(page, {"op": "hit", "x": x, "y": y}, "")
    return ElementHit.model_validate({"x": x, "y": y, **data})


async def media_source(page: QWebEnginePage, locator: Locator) -> dict[str, Any]:
    """`{tag, desc, src, media}` of the one element the locator finds."""
    spec, label = locator_spec(locator)
    return await _call(page, {"op": "media", "locator": spec}, label)


def _diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    for key in ("count", "text", "value", "visible"):
        if before.get(key) != after.get(key):
            changes[key] = {"before": before.get(key), "after": after.get(key)}
    old, new = before.get("attributes") or {}, after.get("attributes") or {}
    attrs = {name: {"before": old.get(name), "after": new.get(name)}
             for name in sorted(set(old) | set(new)) if old.get(name) != new.get(name)}
    if attrs:
        changes["attributes"] = attrs
    return changes


async def watch(page: QWebEnginePage, locator: Locator, timeout: float, interval: float,
                stop_on_change: bool) -> WatchResult:
    """Look at the element every `interval` s for `timeout` s; `changes` lists each look that differed."""
    spec, label = locator_spec(locator)
    request = {"op": "watch", "locator": spec}
    started = time.monotonic()
    first = await _call(page, request, label)
    last = first
    changes: list[dict[str, Any]] = []
    looks = 1
    while time.monotonic() - started < timeout and len(changes) < MAX_CHANGES:
        await asyncio.sleep(min(interval, max(0.0, timeout - (time.monotonic() - started))))
        now = await _call(page, request, label)
        looks += 1
        diff = _diff(last, now)
        if diff:
            changes.append({"atMs": round((time.monotonic() - started) * 1000), **diff})
            last = now
            if stop_on_change:
                break
    return WatchResult.model_validate({"changed": bool(changes), "changes": changes, "before": first, "after": last,
                                       "looks": looks, "elapsedMs": round((time.monotonic() - started) * 1000)})
