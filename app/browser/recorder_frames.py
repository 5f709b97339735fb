"""Steps recorded in another site's frame: making their locators the page's.

The recorder's script runs in every frame (app/browser/recorder.py). In a frame the top frame cannot read, its
locators come from that frame's own generator (resources/js/locator_gen.js), unique in the frame's documents
only, and the step carries `framePath`, the frame's `window.frames` index path from the top. `page_locator`
makes such a locator one that replay finds in the page:

- chains through the frame's `<iframe>` (and every frame above it up to the page): `iframe[name="pay"] >>
  label=Card number`, each part found by its own document's generator, so the chain names exactly one element
  (the `<iframe>` part is unique in its document, the rest in the frame's);
- the frame's own alternatives are kept only when nothing outside that frame matches them (a "Code" field
  of the page around it would otherwise be taken for the frame's when the frame loads late);
- when the primary (plain CSS or XPath, what the original app reads) matches outside the frame too, replay
  tries the first unique alternative first (`prefer`).

Nothing here changes what the step is; a frame that left the page meanwhile leaves the locator as it was.
"""

from __future__ import annotations

import copy
import json
import logging
from typing import Any, Sequence

from PySide6.QtWebEngineCore import QWebEnginePage

from app.browser import frames, locators
from app.browser.frames import Scope
from app.browser.js import APP_WORLD, PageError, run_js
from plumbing import loggers
from workflows.nodes.locators import LocatorAlternative
from workflows.ports import Locator

log = logging.getLogger(loggers.RECORD)

MAX_CHAINS = 3


def _part(locator: Locator) -> str:
    return locator.selector if locator.selector else f"xpath={locator.xpath}"


def _alternative_parts(alternative: dict[str, Any]) -> list[str]:
    try:
        return [_part(found) for found in LocatorAlternative.model_validate(alternative).selectors()]
    except ValueError:
        return []


def _plain(alternative: dict[str, Any]) -> bool:
    return set(alternative) <= {"selector", "xpath"}


async def _iframe_part(owner: Scope, path: Sequence[int]) -> str | None:
    """One chain part naming the `<iframe>` of the frame at `path` (from `owner`'s window) in `owner`'s
    documents, by `owner`'s generator; None when none names it alone."""
    try:
        found = await run_js(owner.target, "(() => { const el = __bp.element.frame(" + json.dumps(list(path)) +
                             "); return el && window.__bpGen ? __bpGen.locatorFor(el) : null; })()",
                             timeout=2.0, world=APP_WORLD)
    except PageError:
        return None
    if not isinstance(found, dict) or not found.get("unique"):
        return None
    if found.get("selector"):
        return str(found["selector"])
    if found.get("xpath"):
        return f"xpath={found['xpath']}"
    for alternative in found.get("alternatives") or []:
        parts = _alternative_parts(alternative)
        if parts:
            return parts[0]
    return None


async def _frame_parts(found: list[Scope], path: tuple[int, ...]) -> list[str] | None:
    """The chain parts from the top down to the frame at `path`: each frame's `<iframe>` in the documents of the
    scope holding it."""
    parts: list[str] = []
    current = path
    while current:
        owner = max((s for s in found if current[:len(s.path)] == s.path and s.path != current),
                    key=lambda s: len(s.path))
        part = await _iframe_part(owner, current[len(owner.path):])
        if part is None:
            return None
        parts.insert(0, part)
        current = owner.path
    return parts


async def page_locator(page: QWebEnginePage, loc: dict[str, Any], path: Sequence[int]) -> dict[str, Any]:
    """`loc` (made by the generator of the frame at `path`) as a locator of the page (see the module's doc)."""
    found = await frames.scopes(page)
    frame_path = tuple(int(i) for i in path)
    # The scope of the frame's documents: the frame's own, or one above it; while the frame loads its next
    # document (the step's click submitted its form) it may not answer: it is one itself, then.
    above = [s for s in found if frame_path[:len(s.path)] == s.path and not s.main]
    home = max(above, key=lambda s: len(s.path)).path if above else frame_path
    parts = await _frame_parts(found, frame_path)
    out = copy.deepcopy(loc)
    alternatives: list[dict[str, Any]] = list(out.get("alternatives") or [])
    primary = out.get("selector") or (f"xpath={out['xpath']}" if out.get("xpath") else None)

    async def elsewhere(part: str) -> int:
        try:
            return await locators.count(page, part, outside=home)
        except locators.LocatorError:
            return 1

    kept = [a for a in alternatives if (p := _alternative_parts(a)) and await elsewhere(p[0]) == 0]
    chains: list[dict[str, Any]] = []
    if parts:
        prefix = " >> ".join(parts)
        for inner in [primary] + [p for a in alternatives for p in _alternative_parts(a)[:1]]:
            chain = {"selector": f"{prefix} >> {inner}"}
            if inner and chain not in chains and len(chains) < MAX_CHAINS:
                chains.append(chain)
    out["alternatives"] = [a for a in kept if not _plain(a)] + chains + [a for a in kept if _plain(a)]
    out.pop("prefer", None)
    if primary and await elsewhere(primary) and out["alternatives"]:
        out["prefer"] = 0  # the primary names something outside the frame too: try the unique ones first
    log.debug("frame step %s: %d chains, %d of %d alternatives kept", primary, len(chains), len(kept),
              len(alternatives))
    return out
