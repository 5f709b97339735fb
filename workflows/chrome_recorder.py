"""Import Chrome DevTools Recorder recordings (the JSON `@puppeteer/replay` reads: `{title, steps: [...]}`).

The result is a valid `WorkflowDocument`: start → one node per replayable step, in order → end, named after
the recording's `title`. Anything not replayed exactly is reported in the notes by step index
(`steps[4] (hover): …`); no step is ever dropped silently.

Steps:
- `navigate` → goto; `click` → click (`secondary`/`auxiliary` buttons → right/middle); `doubleClick` → click
  with `count: 2`; `hover` → wait for the element to appear (there is no hover node; reported).
- `change` → fill (`entry: type`, the value as text). A recording does not say whether the element is a
  <select>: when a CSS/XPath selector names a `select` element the step becomes a select node, otherwise a
  fill (reported nowhere: it is the common case; the executor may treat a fill on a <select> as a select).
- `keyDown`/`keyUp` → press nodes, paired: modifiers held at a key's keyDown make the shortcut (`ctrl+a`,
  `shift+tab`, `enter`); a modifier pressed and released alone, an unknown key or an unmatched keyUp is
  reported.
- `scroll` → scroll in the direction of the recorded position change (the page, or the element of its
  selectors); the exact position is kept in `to: {x, y}` and the approximation reported once.
- `waitForElement` → wait (`appear`, or `gone` for `count: 0` with `==`/`<=`); other counts, `visible:
  false`, `properties` and `attributes` are reported as not checked.
- `waitForExpression` → a script node that polls the expression in the page until it is true or times out.
- `emulateNetworkConditions` → a cdp node (`Network.emulateNetworkConditions`).
- `setViewport` is dropped with a note (the tab keeps its window's size); `close`, `customStep` and unknown
  types are reported as unsupported.
- Click `offsetX`/`offsetY` are kept on the node but the click goes to the element's actionable point (the
  page port clicks elements, not offsets within them); reported once.
- A step `timeout` (ms) becomes the node's `timeout` (s).

Selectors: `selectors` is a list; each entry a string or a list of strings (a chain through shadow roots).
Each becomes a locator alternative, in the recording's order: `aria/Name[role="button"]` → `{role, name,
exact}`; `aria/Name` (role unknown) → `{name, exact}`, which replay tries as `label="Name"` then
`text="Name"`; `text/…` → `{text}`; `xpath/…` → `{xpath}`; `pierce/…` → `{selector}` (our CSS engine pierces
open shadow roots); CSS → `{selector}` (`>>>` deep combinators become ` >> ` chains). A chain becomes one
`{selector: "a >> b"}`. The locator's own `selector` (or `xpath`) is the first plain CSS (else pierce CSS,
else XPath) selector, so the file also runs in the original app; the rest go to `alternatives`. What the
selectors tell of the element (its role and name, id, name attribute, placeholder) becomes its `fingerprint`
when its kind is known, so replay can heal it. Pure Python.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
from typing import Any, Callable, NamedTuple

from pydantic import ValidationError

from plumbing import loggers
from workflows.document import (DocumentError, WorkflowDocument, plain_json_problem, validate_document,
                                validation_problems)
from workflows.nodes import NODE_TYPES, LocatorAlternative

log = logging.getLogger(loggers.WORKFLOWS)

DEFAULT_NAME = "Imported recording"
EXPRESSION_TIMEOUT_MS = 30_000
"""How long a `waitForExpression` without its own timeout polls."""
MAX_CHAIN_VARIANTS = 4
MAX_TIMEOUT_MS = 86_400_000


class RecorderImport(NamedTuple):
    """What `import_recording` returns: the document and the notes (by step index)."""

    document: WorkflowDocument
    problems: list[str]


def looks_like_recording(raw: Any) -> bool:
    """Whether a parsed JSON value is a Recorder recording rather than a workflow document."""
    return isinstance(raw, dict) and isinstance(raw.get("steps"), list) and "workflow" not in raw \
        and "kind" not in raw


# -- selectors ---------------------------------------------------------------------------------------------
_ARIA_ATTR = re.compile(r"""\[\s*(?P<attr>[A-Za-z-]+)\s*=\s*(?P<q>["'])(?P<value>(?:\\.|(?!(?P=q)).)*)(?P=q)\s*\]""")
_SELECT_CSS = re.compile(r"(?:^|[\s>+~])select(?=$|[#.\[:\s])", re.IGNORECASE)
_SELECT_XPATH = re.compile(r"/select(?:\[[^\]]*\])*$", re.IGNORECASE)


class _Unsupported(Exception):
    """A selector we cannot use; the message says why."""


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _parse_aria(body: str) -> dict[str, Any]:
    """`Name[role="button"]` → `{role: "button", name: "Name", exact: True}` (either part may be absent)."""
    found: dict[str, str] = {}

    def take(match: re.Match[str]) -> str:
        found.setdefault(match["attr"].lower(), _unescape(match["value"]))
        return ""

    rest = _ARIA_ATTR.sub(take, body).strip()
    name = rest or found.get("name", "")
    role = found.get("role", "").strip()
    if role and not re.fullmatch(r"[A-Za-z][A-Za-z-]*", role):
        raise _Unsupported(f"unknown ARIA role {role!r}")
    if not name.strip() and not role:
        raise _Unsupported("an aria selector without a name or role")
    out: dict[str, Any] = {}
    if role:
        out["role"] = role
    if name.strip():
        out["name"] = name.strip()
        out["exact"] = True
    return out


def _part(selector: str) -> tuple[str, str]:
    """A recorder selector → (kind, body): kind aria, text, xpath, pierce or css."""
    for prefix in ("aria", "text", "xpath", "pierce"):
        if selector.startswith(prefix + "/"):
            return prefix, selector[len(prefix) + 1:]
    if "::-p-" in selector:
        raise _Unsupported("a Puppeteer ::-p- pseudo-element selector")
    return "css", selector


def _css(body: str) -> str:
    body = body.strip()
    if not body:
        raise _Unsupported("an empty selector")
    return re.sub(r"\s*>>>>?\s*", " >> ", body) if ">>>" in body else body


def _single(selector: str) -> tuple[str, dict[str, Any]]:
    """One selector → (its kind, a locator alternative)."""
    kind, body = _part(selector)
    if kind == "aria":
        return kind, _parse_aria(body)
    if not body.strip():
        raise _Unsupported("an empty selector")
    if kind == "text":
        return kind, {"text": body}
    if kind == "xpath":
        if not body.startswith(("/", "(")):
            raise _Unsupported("an XPath that does not start with /")
        return kind, {"xpath": body}
    return kind, {"selector": _css(body)}


def _engine_parts(selector: str) -> list[str]:
    """One link of a chain as engine selectors (several for an aria name without a role)."""
    kind, alternative = _single(selector)
    if kind in ("css", "pierce"):
        return [alternative["selector"]]
    if kind == "xpath":
        return ["xpath=" + alternative["xpath"]]
    converted = LocatorAlternative.model_validate(alternative | ({"exact": False} if kind == "text" else {}))
    return [locator.selector or "" for locator in converted.selectors()]


def _chain(parts: list[str]) -> list[dict[str, Any]]:
    options = [_engine_parts(part) for part in parts]
    return [{"selector": " >> ".join(combo)}
            for combo in itertools.islice(itertools.product(*options), MAX_CHAIN_VARIANTS)]


def _locator(step: dict[str, Any], where: str, notes: list[str]) -> dict[str, Any] | None:
    """The node locator for a step's `selectors`, or None (noted) when none is usable."""
    selectors = step.get("selectors")
    if not isinstance(selectors, list):
        return None
    entries: list[tuple[str, dict[str, Any]]] = []
    for index, entry in enumerate(selectors):
        parts = [entry] if isinstance(entry, str) else entry
        if not isinstance(parts, list) or not parts or not all(isinstance(p, str) for p in parts):
            notes.append(f"{where}: selectors[{index}] ignored: not a selector or a list of selectors")
            continue
        try:
            if len(parts) == 1:
                entries.append(_single(parts[0]))
            else:
                entries += [("chain", alternative) for alternative in _chain(parts)]
        except _Unsupported as exc:
            notes.append(f"{where}: selectors[{index}] ignored: {exc}")
    if not entries:
        return None
    primary = next((e for kind in ("css", "pierce", "xpath") for e in entries if e[0] == kind), None)
    locator: dict[str, Any] = dict(primary[1]) if primary else {}
    alternatives: list[dict[str, Any]] = []
    for entry in entries:
        if entry is not primary and entry[1] not in alternatives and entry[1] != locator:
            alternatives.append(entry[1])
    if alternatives:
        locator["alternatives"] = alternatives
    fingerprint = _fingerprint(entries, str(step.get("type") or ""))
    if fingerprint:
        locator["fingerprint"] = fingerprint
    return locator


_ROLE_KINDS = {"button": "button", "link": "link", "textbox": "text", "searchbox": "text", "combobox": "select",
               "listbox": "select", "checkbox": "check", "switch": "check", "radio": "radio", "slider": "range"}
_CSS_ATTR = re.compile(r'^(?P<tag>[a-z]+)?\[(?P<attr>name|id|placeholder|aria-label|data-testid)=(?P<q>["\']?)'
                       r'(?P<value>[^"\'\]]+)(?P=q)\]$')


def _fingerprint(entries: list[tuple[str, dict[str, Any]]], step_type: str) -> dict[str, Any] | None:
    """What the recording says of the element (ours, resources/js/heal.js's shape): its kind and name from an
    `aria/Name[role=…]` selector, its id, name or placeholder from simple CSS ones; None when its kind is unknown
    (healing never guesses the kind)."""
    fp: dict[str, Any] = {"v": 1}
    attrs: dict[str, str] = {}
    for kind, alternative in entries:
        if kind == "aria":
            if alternative.get("role"):
                fp.setdefault("role", alternative["role"])
            if alternative.get("name"):
                fp.setdefault("name", alternative["name"])
        elif kind == "css":
            css = alternative["selector"].strip()
            if re.fullmatch(r"#[A-Za-z][\w-]*", css):
                attrs.setdefault("id", css[1:])
            elif match := _CSS_ATTR.match(css):
                attr = "testid" if match["attr"] == "data-testid" else match["attr"]
                if attr == "placeholder":
                    fp.setdefault("placeholder", match["value"])
                else:
                    attrs.setdefault(attr, match["value"])
                if match["tag"]:
                    fp.setdefault("tag", match["tag"])
    kind = _ROLE_KINDS.get(str(fp.get("role") or "").lower())
    if kind is None and step_type == "change" and fp.get("tag") in ("input", "textarea"):
        kind = "text"
    if kind is None:
        return None
    fp["kind"] = kind
    if attrs:
        fp["attrs"] = attrs
    return fp


def _names_select(locator: dict[str, Any]) -> bool:
    """Whether one of the locator's CSS/XPath selectors names a <select> element."""
    candidates = [locator] + list(locator.get("alternatives", []))
    for candidate in candidates:
        css, xpath = candidate.get("selector"), candidate.get("xpath")
        if isinstance(css, str) and _SELECT_CSS.search(re.split(r"\s*>>\s*", css)[-1].split(" ")[-1]):
            return True
        if isinstance(xpath, str) and _SELECT_XPATH.search(xpath):
            return True
    return False


# -- keys --------------------------------------------------------------------------------------------------
_MODIFIERS = {"control": "ctrl", "ctrl": "ctrl", "shift": "shift", "alt": "alt", "meta": "meta", "os": "meta",
              "command": "meta"}
_MODIFIER_ORDER = ("ctrl", "alt", "shift", "meta")
_NAMED = {"enter": "enter", "numpadenter": "enter", "tab": "tab", "escape": "escape", "esc": "escape",
          "backspace": "backspace", "delete": "delete", "insert": "insert", "arrowup": "arrowup",
          "arrowdown": "arrowdown", "arrowleft": "arrowleft", "arrowright": "arrowright", "home": "home",
          "end": "end", "pageup": "pageup", "pagedown": "pagedown", "space": "space",
          **{f"f{n}": f"f{n}" for n in range(1, 13)}}
_NUMPAD = {"numpadadd": "+", "numpadsubtract": "-", "numpadmultiply": "*", "numpaddivide": "/",
           "numpaddecimal": "."}


def _key(raw: str) -> tuple[str, str] | None:
    """A Puppeteer key name → ("mod", "ctrl") or ("key", "enter"/"a"/…); None if we cannot press it."""
    if raw == " ":
        return "key", "space"
    low = raw.lower()
    base = re.sub(r"(left|right)$", "", low) if len(raw) > 1 else low
    if base in _MODIFIERS:
        return "mod", _MODIFIERS[base]
    if low in _NAMED:
        return "key", _NAMED[low]
    if low in _NUMPAD:
        return "key", _NUMPAD[low]
    match = re.fullmatch(r"key([a-z])|digit([0-9])|numpad([0-9])", low)
    if match:
        return "key", next(g for g in match.groups() if g)
    if len(raw) == 1 and raw not in "\r\n\t":
        return "key", raw
    return None


# -- building ----------------------------------------------------------------------------------------------
class _Builder:
    def __init__(self, recording: dict[str, Any]) -> None:
        self.recording = recording
        self.nodes: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.counters: dict[str, int] = {}
        self.held: dict[str, tuple[int, bool]] = {}      # modifier -> (keyDown step, used with a key)
        self.down: dict[str, int] = {}                   # key -> keyDown step
        self.ignored_keys: set[str] = set()
        self.scroll_at: dict[str, tuple[int | float, int | float]] = {}
        self.offset_steps: list[int] = []
        self.scroll_steps: list[int] = []

    def add(self, where: str, kind: str, data: dict[str, Any], step: dict[str, Any]) -> bool:
        """Validate and append a node; a node that does not validate is reported and skipped."""
        timeout = step.get("timeout", self.recording.get("timeout"))
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and 0 <= timeout <= MAX_TIMEOUT_MS \
                and "timeout" in NODE_TYPES[kind].model_fields and "timeout" not in data:
            data["timeout"] = _seconds(timeout)
        data = {"type": kind, **data}
        try:
            NODE_TYPES[kind].model_validate(data)
        except ValidationError as exc:
            reasons = "; ".join(validation_problems(exc, data))
            self.notes.append(f"{where}: skipped: {reasons}")
            return False
        number = self.counters[kind] = self.counters.get(kind, 0) + 1
        node_id = f"{kind}{number}"
        self.nodes.append({"id": node_id, "data": data})
        return True

    def finish(self) -> None:
        for key, index in self.down.items():
            self.notes.append(f"steps[{index}] (keyDown): {key} is never released; replayed as a press")
        for modifier, (index, used) in self.held.items():
            if not used:
                self.notes.append(f"steps[{index}] (keyDown): {modifier} is held and never used with a key; "
                                  "nothing to replay")
        if self.offset_steps:
            self.notes.append(f"{_steps(self.offset_steps)}: click offsets (offsetX/offsetY) are kept on the node, "
                              "but replay clicks the element's actionable point (its centre when it is free)")
        if self.scroll_steps:
            self.notes.append(f"{_steps(self.scroll_steps)}: replayed as one scroll in the recorded direction, "
                              "not to the exact position (kept as `to`)")


def _seconds(ms: float) -> int | float:
    seconds = round(ms / 1000, 3)
    return int(seconds) if seconds == int(seconds) else seconds


def _steps(indexes: list[int]) -> str:
    return "steps " + ", ".join(str(i) for i in indexes) if len(indexes) > 1 else f"steps[{indexes[0]}]"


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _coordinate(value: Any) -> int | float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _number(value: Any, default: float = 0.0) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            return default
    return default


def _navigate(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    url = step.get("url")
    if not isinstance(url, str) or not url.strip():
        b.notes.append(f"{where}: skipped: no url")
        return
    b.add(where, "goto", {"title": f"Go to {url[:80]}", "url": url}, step)


_BUTTONS = {"primary": None, "secondary": "right", "auxiliary": "middle"}


def _click(b: _Builder, step: dict[str, Any], i: int, where: str, count: int = 1) -> None:
    button = step.get("button", "primary")
    if not isinstance(button, str) or button not in _BUTTONS:
        b.notes.append(f"{where}: skipped: the {button!r} mouse button is not supported")
        return
    locator = _locator(step, where, b.notes)
    if locator is None:
        b.notes.append(f"{where}: skipped: no usable selector")
        return
    data: dict[str, Any] = {"title": "Double-click" if count == 2 else "Click", "locator": locator}
    if _BUTTONS[button]:
        data["button"] = _BUTTONS[button]
    if count != 1:
        data["count"] = count
    for name in ("offsetX", "offsetY"):
        if isinstance(step.get(name), (int, float)) and not isinstance(step.get(name), bool):
            data[name] = step[name]
    if _number(step.get("duration")) > 0:
        b.notes.append(f"{where}: a long press ({step['duration']} ms) is replayed as a normal click")
    held = [m for m in b.held]
    if held:
        b.notes.append(f"{where}: {'+'.join(held)} held during the click is not replayed")
    if b.add(where, "click", data, step) and ("offsetX" in data or "offsetY" in data):
        b.offset_steps.append(i)


def _double_click(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    _click(b, step, i, where, count=2)


def _hover(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    locator = _locator(step, where, b.notes)
    if locator is None:
        b.notes.append(f"{where}: skipped: no usable selector")
        return
    if b.add(where, "wait", {"title": "Hover (waits for the element)", "locator": locator, "state": "appear"}, step):
        b.notes.append(f"{where}: there is no hover node; replayed as waiting for the element to appear "
                       "(a menu that opens on hover may need a click instead)")


def _change(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    value = _text(step.get("value"))
    if value is None:
        b.notes.append(f"{where}: skipped: no value")
        return
    locator = _locator(step, where, b.notes)
    if locator is None:
        b.notes.append(f"{where}: skipped: no usable selector")
        return
    if _names_select(locator):
        b.add(where, "select", {"title": "Choose", "locator": locator, "option": value}, step)
    else:
        b.add(where, "fill", {"title": "Type", "locator": locator, "entry": "type", "text": value}, step)


def _key_down(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    raw = step.get("key")
    key = _key(raw) if isinstance(raw, str) and raw else None
    if key is None:
        b.notes.append(f"{where}: skipped: key {raw!r} cannot be replayed")
        if isinstance(raw, str):
            b.ignored_keys.add(raw.lower())
        return
    kind, name = key
    if kind == "mod":
        b.held.setdefault(name, (i, False))
        return
    modifiers = [m for m in _MODIFIER_ORDER if m in b.held]
    for modifier in modifiers:
        b.held[modifier] = (b.held[modifier][0], True)
    if modifiers and len(name) == 1 and name.isalpha():
        name = name.lower()
    shortcut = "+".join(modifiers + [name])
    b.down[name.lower()] = i
    b.add(where, "press", {"title": f"Press {shortcut}", "shortcut": shortcut}, step)


def _key_up(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    raw = step.get("key")
    key = _key(raw) if isinstance(raw, str) and raw else None
    if key is None:
        if isinstance(raw, str) and raw.lower() in b.ignored_keys:
            b.ignored_keys.discard(raw.lower())
        else:
            b.notes.append(f"{where}: skipped: key {raw!r} cannot be replayed")
        return
    kind, name = key
    if kind == "mod":
        if name not in b.held:
            b.notes.append(f"{where}: {name} released without its keyDown; ignored")
            return
        start, used = b.held.pop(name)
        if not used:
            b.notes.append(f"steps[{start}]–[{i}]: {name} pressed and released alone; nothing to replay")
        return
    if b.down.pop(name.lower(), None) is None:
        b.notes.append(f"{where}: {name} released without its keyDown; ignored")


def _scroll(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    x, y = _coordinate(step.get("x")), _coordinate(step.get("y"))
    data: dict[str, Any] = {}
    target = "page"
    if step.get("selectors"):
        locator = _locator(step, where, b.notes)
        if locator is None:
            b.notes.append(f"{where}: skipped: no usable selector")
            return
        data["locator"] = locator
        target = json.dumps(locator, sort_keys=True)
    last_x, last_y = b.scroll_at.get(target, (0, 0))
    b.scroll_at[target] = (x, y)
    moves = ([("down" if y > last_y else "up")] if y != last_y else []) + \
        ([("right" if x > last_x else "left")] if x != last_x else [])
    if not moves:
        b.notes.append(f"{where}: skipped: scrolls to where it already is ({x:g}, {y:g})")
        return
    for direction in moves:
        node = dict(data, title=f"Scroll {direction}", direction=direction, to={"x": x, "y": y})
        if b.add(where, "scroll", node, step) and i not in b.scroll_steps:
            b.scroll_steps.append(i)


def _wait_for_element(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    locator = _locator(step, where, b.notes)
    if locator is None:
        b.notes.append(f"{where}: skipped: no usable selector")
        return
    operator = step.get("operator", ">=")
    count = step.get("count", 1)
    state = "gone" if count == 0 and operator in ("==", "<=") else "appear"
    if state == "appear" and not (count == 1 and operator == ">=") and not (count == 0 and operator == ">="):
        b.notes.append(f"{where}: the element count ({operator} {count}) is not checked; replay waits for the "
                       "element to appear")
    if step.get("visible") is False:
        b.notes.append(f"{where}: visible: false is not checked; replay waits for a visible element")
    for option in ("properties", "attributes"):
        if step.get(option):
            b.notes.append(f"{where}: {option} are not checked")
    title = "Wait until gone" if state == "gone" else "Wait for element"
    b.add(where, "wait", {"title": title, "locator": locator, "state": state}, step)


def _wait_for_expression(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    expression = step.get("expression")
    if not isinstance(expression, str) or not expression.strip():
        b.notes.append(f"{where}: skipped: no expression")
        return
    timeout = step.get("timeout", b.recording.get("timeout"))
    ms = timeout if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) \
        and 0 < timeout <= MAX_TIMEOUT_MS \
        else EXPRESSION_TIMEOUT_MS
    source = (
        "// waitForExpression from a Chrome recording: poll until the expression is true\n"
        f"const deadline = Date.now() + {int(ms)};\n"
        "while (true) {\n"
        f"  if (await (async () => ({expression}\n))()) return {{}};\n"
        "  if (Date.now() > deadline) {\n"
        f"    throw new Error('still false after {ms / 1000:g} s: ' + {json.dumps(expression[:200])});\n"
        "  }\n"
        "  await new Promise((resolve) => setTimeout(resolve, 100));\n"
        "}\n"
    )
    data = {"title": "Wait for expression", "source": source, "timeout": _seconds(ms + 5000)}
    b.add(where, "script", data, step)


def _network(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    download, upload = _number(step.get("download"), -1), _number(step.get("upload"), -1)
    params = {"offline": download == 0 and upload == 0, "latency": _number(step.get("latency")),
              "downloadThroughput": download, "uploadThroughput": upload}
    b.add(where, "cdp", {"title": "Network conditions", "method": "Network.emulateNetworkConditions",
                         "params": params}, step)


def _set_viewport(b: _Builder, step: dict[str, Any], i: int, where: str) -> None:
    size = f" ({step.get('width')}×{step.get('height')})" if "width" in step else ""
    b.notes.append(f"{where}: dropped: the viewport{size} is not replayed; the tab keeps its window's size")


_STEPS: dict[str, Callable[[_Builder, dict[str, Any], int, str], None]] = {
    "navigate": _navigate, "click": _click, "doubleClick": _double_click, "hover": _hover, "change": _change,
    "keyDown": _key_down, "keyUp": _key_up, "scroll": _scroll, "waitForElement": _wait_for_element,
    "waitForExpression": _wait_for_expression, "setViewport": _set_viewport,
    "emulateNetworkConditions": _network,
}


def import_recording(raw: Any) -> RecorderImport:
    """A parsed recording → (a valid workflow document, notes by step index). DocumentError if `raw` is not
    a recording at all."""
    if not isinstance(raw, dict):
        raise DocumentError(["a recording must be a JSON object with a steps list"])
    steps = raw.get("steps")
    if not isinstance(steps, list):
        raise DocumentError(["a recording needs a steps list"])
    plain = plain_json_problem(raw)
    if plain is not None:
        raise DocumentError([plain])
    builder = _Builder(raw)
    for index, step in enumerate(steps):
        if not isinstance(step, dict) or not isinstance(step.get("type"), str):
            builder.notes.append(f"steps[{index}]: skipped: not a step (an object with a type)")
            continue
        kind = step["type"]
        where = f"steps[{index}] ({kind[:40]})"
        handler = _STEPS.get(kind)
        if handler is None:
            builder.notes.append(f"{where}: skipped: this step type is not supported")
            continue
        target = step.get("target")
        if isinstance(target, str) and target != "main":
            builder.notes.append(f"{where}: recorded in another page ({target[:60]}); replayed in the run's tab")
        try:
            handler(builder, step, index, where)
        except Exception as exc:  # noqa: BLE001 - a malformed step is reported, never a crash
            log.warning("recording step %d (%s) could not be imported", index, kind, exc_info=True)
            builder.notes.append(f"{where}: skipped: malformed step ({type(exc).__name__}: {exc})")
    builder.finish()
    document = validate_document(_document(raw, builder.nodes))
    log.info("imported recording %r: %d nodes, %d notes", document.name, len(builder.nodes), len(builder.notes))
    return RecorderImport(document, builder.notes)


def _document(raw: dict[str, Any], nodes: list[dict[str, Any]]) -> dict[str, Any]:
    title = raw.get("title")
    name = title.strip() if isinstance(title, str) and title.strip() else DEFAULT_NAME
    chain = [{"id": "start", "data": {"type": "start", "title": "Start", "variables": []}}] + nodes + \
        [{"id": "end", "data": {"type": "end", "title": "End", "outputs": []}}]
    for index, node in enumerate(chain):
        node["position"] = {"x": 80 + 280 * index, "y": 200}
    edges = [{"id": f"e{i}-{a['id']}-{b['id']}", "source": a["id"], "target": b["id"],
              "sourceHandle": "source", "targetHandle": "target"}
             for i, (a, b) in enumerate(zip(chain, chain[1:]))]
    return {"kind": "app", "version": "0.3.0",
            "app": {"name": name, "mode": "workflow",
                    "description": "Imported from a Chrome DevTools Recorder recording"},
            "workflow": {"environment_variables": [], "conversation_variables": [],
                         "graph": {"nodes": chain, "edges": edges}}}
