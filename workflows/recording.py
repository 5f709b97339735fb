"""A recording: a person's raw steps (from resources/js/recorder.js and the tab) merged into workflow steps the
way people think about them, edited by the person, and written as a BrowserPilot 0.3.0 document.

Pure Python (no Qt): `Recording.add(raw)` applies its merge rules — a field's typing becomes one
`fill` with its final value; a double click one `click` with a count; a click that only focused a field, or
opened a `<select>`, gives way to the fill/select that follows; the click that opened a file chooser becomes
the `upload`; wheel scrolling is a step only when it loaded content (an infinite list, a lazy page: the page
grew meanwhile; scrolling that only brought the next target into view is not, since acting on an element
scrolls to it), merges per direction and, when an action on an element follows, becomes `scroll` *until*
that element; a secret field becomes a `secret` start variable and its value is never held
here. A mouse drag on anything but a slider becomes a `swipe` in its main direction that replays the drag
exactly (ours: `offset` in the element where it started, `dx`/`dy`); the page's click after it is not a step.
A click that opened a new tab the recording followed into gets `followNewTab` (ours), so replay follows too. Editing: `delete`, `set_value`, `make_input`, `set_locator`, `insert` (handoff, captcha, wait, capture
text, check). `document(name)` builds the workflow; every step's primary locator is plain CSS or XPath and
its ranked alternatives follow in `locator.alternatives` (an element inside web components that no plain CSS or
XPath finds alone has the alternatives only). A person's action that nothing can find again is kept as a step
marked `missing`, and `document` refuses while one is there.
"""

from __future__ import annotations

import copy
import re
import secrets as _secrets
from dataclasses import dataclass, field
from typing import Any, Literal

from workflows.nodes import NODE_TYPES
from workflows.nodes.base import clip
from workflows.nodes.wait_extract import CHECK_TIMEOUT

Insertable = Literal["handoff", "captcha", "wait", "capture", "check"]
PICKED: tuple[str, ...] = ("wait", "capture", "check")  # insertions that need an element picked in the page


class RecordingError(ValueError):
    """An edit that does not fit the recording (unknown step, wrong kind of step, bad name)."""


def _target_key(loc: dict[str, Any]) -> tuple[Any, ...]:
    """What names a step's element: its primary, or (an element in a shadow root that no plain CSS or XPath
    finds) its first alternative."""
    if loc.get("selector") or loc.get("xpath"):
        return (loc.get("selector"), loc.get("xpath"))
    alternatives = loc.get("alternatives") or []
    return ("alternative", repr(alternatives[0])) if alternatives else ("none", id(loc))


def _same_target(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    if not a or not b:
        return False
    return _target_key(a) == _target_key(b)


def _findable(loc: dict[str, Any]) -> bool:
    """Whether replay can find the element again: a primary, or an alternative (role and name, label, a chain
    through the shadow hosts)."""
    return bool(loc.get("selector") or loc.get("xpath") or loc.get("alternatives"))


def plain_locator(loc: dict[str, Any]) -> dict[str, Any]:
    """The node's locator: the primary `selector` or `xpath`, then the ranked `alternatives` (and `prefer`), and
    the element's `fingerprint` (ours: replay heals with it when no locator finds the element)."""
    out: dict[str, Any] = {}
    for key in ("selector", "xpath"):
        if loc.get(key):
            out[key] = loc[key]
    if loc.get("alternatives"):
        out["alternatives"] = copy.deepcopy(loc["alternatives"])
        if loc.get("prefer") is not None:
            out["prefer"] = loc["prefer"]
    if loc.get("fingerprint"):
        out["fingerprint"] = copy.deepcopy(loc["fingerprint"])
    return out


def locator_text(loc: dict[str, Any] | None) -> str:
    if not loc:
        return ""
    return str(loc.get("selector") or loc.get("xpath") or "")


_VARIABLE = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass
class Step:
    """One step of the recording, soon one node: `type` is the node type and `data` its fields."""

    id: str
    type: str
    data: dict[str, Any]
    target: str = ""  # what the person acted on, in words: `textbox "Full name"`
    note: str = ""  # e.g. "no unique locator: clicked at a point inside …"
    secret: str | None = None  # the start variable of a secret field
    input_name: str | None = None  # set by make_input: the start variable the value comes from
    default: str | None = None  # the recorded value of a made input
    seq: float | None = None  # when the page sent the raw step that made it (resources/js/recorder.js `seq`)
    missing: str = ""  # why the person's action could not be recorded (the step must be redone or deleted)

    @property
    def locator(self) -> dict[str, Any] | None:
        loc = self.data.get("locator")
        return loc if isinstance(loc, dict) else None

    def words(self) -> str:
        """The step in words, as the Recording panel lists it: its node type says them."""
        if self.missing:
            did = {"fill": "typing", "select": "a choice", "swipe": "a drag"}.get(self.type, "a click")
            return f"Not recorded: {did} on {self.target or 'an element'}"
        model = NODE_TYPES.get(self.type)
        return model.recording_words(self.data, self) if model is not None else self.type

    def as_dict(self) -> dict[str, Any]:
        """For `record_status` and the panel: what the step is, in words and as a node."""
        out: dict[str, Any] = {"id": self.id, "type": self.type, "words": self.words(),
                               "locator": locator_text(self.locator), "data": copy.deepcopy(self.data)}
        if self.locator and self.locator.get("alternatives"):
            out["alternatives"] = [_alternative_text(a) for a in self.locator["alternatives"]]
            if self.locator.get("prefer") is not None:  # the panel shows what replay tries first
                out["prefer"] = self.locator["prefer"]
                out["locator"] = out["alternatives"][self.locator["prefer"]]
        for key in ("note", "secret", "input_name", "default", "missing"):
            if getattr(self, key):
                out[key if key != "input_name" else "input"] = getattr(self, key)
        if self.type == "fill" and not self.secret:
            out["suggestedInput"] = self.input_name or suggested_input_name(self)
        return out


def suggested_input_name(step: Step) -> str:
    """A start input's name for the value typed in this step, from the field's label (`Full name` -> `full_name`),
    its accessible name or placeholder; `value` when none of them gives letters to make one of."""
    alternatives = (step.locator or {}).get("alternatives") or []
    names = [str(a[key]) for key in ("label", "name", "placeholder", "testid") for a in alternatives if a.get(key)]
    quoted = re.search(r"'(.+)'", step.target)
    names += [quoted.group(1)] if quoted else []
    for name in names:
        slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:40].strip("_")
        if slug:
            return slug
    return "value"


def _alternative_text(alternative: dict[str, Any]) -> str:
    if "role" in alternative:
        return f'role={alternative["role"]}[name="{alternative.get("name", "")}"]'
    for kind in ("testid", "label", "placeholder", "text", "selector", "xpath"):
        if kind in alternative:
            return alternative[kind] if kind in ("selector", "xpath") else f'{kind}="{alternative[kind]}"'
    return str(alternative)


def _target_words(raw: dict[str, Any]) -> str:
    role, name = str(raw.get("role") or ""), str(raw.get("name") or "")
    if role and name:
        return f"{role} '{clip(name)}'"
    return str(raw.get("desc") or role)


@dataclass
class Recording:
    """The steps of one recording, in order. `add` takes raw steps; the other methods are the person's edits."""

    start_url: str | None = None
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be recorded, in words
    picking: Insertable | None = None  # the next click picks the element of this insertion
    picking_name: str | None = None
    _pending_files: list[str] | None = None
    _pending_new_tab: bool = False  # a new tab opened just before its click was reported
    _counter: int = 0

    def __post_init__(self) -> None:
        if self.start_url:
            self._append("goto", {"url": self.start_url})

    # -- raw steps -------------------------------------------------------------------------------------
    def _new_id(self, kind: str) -> str:
        self._counter += 1
        return f"{kind.replace('-', '')}{self._counter}"

    def _append(self, kind: str, data: dict[str, Any], raw: dict[str, Any] | None = None, **extra: Any) -> Step:
        extra.setdefault("target", _target_words(raw) if raw else "")
        step = Step(self._new_id(kind), kind, data, **extra)
        self.steps.append(step)
        return step

    @property
    def last(self) -> Step | None:
        return self.steps[-1] if self.steps else None

    def add(self, raw: dict[str, Any]) -> Step | None:
        """Apply one raw step; returns the step it made or changed (None when it made none)."""
        before = {id(s) for s in self.steps}
        step = self._add(raw)
        seq = raw.get("seq")
        for new in self.steps:
            if id(new) not in before and new.seq is None and isinstance(seq, (int, float)):
                new.seq = seq
        return step

    def _add(self, raw: dict[str, Any]) -> Step | None:
        kind = raw.get("kind")
        if kind == "newTab":
            return self._new_tab()
        pending_new_tab, self._pending_new_tab = self._pending_new_tab, False
        if kind == "blocked":
            return self._missing(raw, str(raw.get("why") or "the recorder could not reach the element"))
        if kind == "goto":
            return self._goto(str(raw["url"]))
        if kind == "files":
            return self._files([str(p) for p in raw.get("paths") or []])
        if kind == "download":
            return self._download()
        loc = raw.get("loc")
        if loc is not None and not _findable(loc):
            return self._missing(raw, f"no locator finds {raw.get('desc') or 'the element'} again")
        if self.picking is not None and kind == "click":
            return self._picked(raw)
        if kind in ("click", "fill", "select", "drag") and self.last is not None and self.last.type == "scroll" \
                and "until" not in self.last.data and loc is not None:
            self.last.data["until"] = plain_locator(loc)
            self.last.data.pop("distance", None)  # replay scrolls until the element, not a distance
            self.last.target = _target_words(raw)
        if kind == "click":
            step = self._click(raw)
            if step is not None and pending_new_tab:
                step.data["followNewTab"] = True
            return step
        if kind == "drag":
            return self._drag(raw)
        if kind == "fill":
            return self._fill(raw)
        if kind == "select":
            return self._select(raw)
        if kind == "press":
            return self._append("press", {"shortcut": str(raw["shortcut"])})
        if kind == "scroll":
            if not raw.get("loaded", True):
                return None  # it only brought the next target into view: acting on an element scrolls to it
            last = self.last
            distance = round(float(raw.get("distance") or 0))
            if last is not None and last.type == "scroll" and last.data.get("direction") == raw["direction"] \
                    and "until" not in last.data:
                if distance:
                    last.data["distance"] = int(last.data.get("distance", 0)) + distance
                return last
            return self._append("scroll", {"direction": raw["direction"], **({"distance": distance} if distance else {})})
        return None

    def _missing(self, raw: dict[str, Any], why: str) -> Step:
        """A person's action that could not be recorded stays in the recording, in its place, marked: the
        workflow cannot be saved until it is deleted or done again in a way that records (`document`)."""
        kind = str(raw.get("action") or raw.get("kind") or "click")
        kind = {"drag": "swipe", "blocked": "click"}.get(kind, kind)
        last = self.last
        target = _target_words(raw) if raw.get("desc") or raw.get("role") else ""
        data: dict[str, Any] = {}
        if kind == "fill" and not raw.get("secret") and raw.get("value") is not None:
            data["text"] = str(raw["value"])
        if last is not None and last.missing == why and last.type == kind and last.target == target:
            last.data.update(data)  # the same action reported again (typing on, each key in a frame)
            return last
        self.notes.append(f"not recorded: {why}")
        fingerprint = (raw.get("loc") or {}).get("fingerprint")
        if fingerprint:
            data["locator"] = {"fingerprint": copy.deepcopy(fingerprint)}
        return self._append(kind if kind in ("click", "fill", "select", "swipe") else "click", data,
                            missing=why, target=target)

    def _goto(self, url: str) -> Step:
        last = self.last
        if last is not None and last.type == "goto":
            last.data["url"] = url
            return last
        return self._append("goto", {"url": url})

    def _click(self, raw: dict[str, Any]) -> Step | None:
        loc = raw["loc"]
        last = self.last
        if raw.get("control") == "select" and last is not None and last.type == "select" \
                and _same_target(last.locator, loc):
            return None  # the click that closed the list of options just chosen: the select step says it all
        detail = int(raw.get("detail") or 1)
        if detail > 1 and last is not None and last.type == "click" and _same_target(last.locator, loc):
            last.data["count"] = min(detail, 3)
            return last
        data: dict[str, Any] = {"locator": plain_locator(loc)}
        if raw.get("button") and raw["button"] != "left":
            data["button"] = raw["button"]
        if raw.get("offset"):
            data["offset"] = dict(raw["offset"])
        note = "no unique locator: a point inside the nearest element that has one; pick another element " \
               "if this is wrong" if raw.get("fallback") else ""
        step = self._append("click", data, raw, note=note)
        if raw.get("control") == "file":
            step.data["_file"] = True
            if self._pending_files:
                self._files(self._pending_files)
        return step

    def _drag(self, raw: dict[str, Any]) -> Step:
        """A drag: a `swipe` in its main direction (what the original app can do with it) that replays the
        drag itself: press at `offset` of the element, move by (dx, dy), release."""
        dx, dy = round(float(raw.get("dx") or 0), 1), round(float(raw.get("dy") or 0), 1)
        if abs(dx) >= abs(dy):
            direction = "right" if dx > 0 else "left"
        else:
            direction = "down" if dy > 0 else "up"
        data: dict[str, Any] = {"locator": plain_locator(raw["loc"]), "direction": direction, "dx": dx, "dy": dy}
        if raw.get("offset"):
            data["offset"] = dict(raw["offset"])
        note = "no unique locator: the drag starts at a point inside the nearest element that has one; pick " \
               "another element if this is wrong" if raw.get("fallback") else ""
        return self._append("swipe", data, raw, note=note)

    def _new_tab(self) -> Step | None:
        """The recording followed into a new tab: the click that opened it makes replay follow too."""
        last = self.last
        if last is not None and last.type == "click":
            last.data["followNewTab"] = True
            return last
        self._pending_new_tab = True  # the tab opened before its click was reported
        return None

    def _files(self, paths: list[str]) -> Step | None:
        """The person chose files: the click that opened the chooser becomes the upload."""
        for step in reversed(self.steps[-3:]):
            if step.type == "click" and step.data.pop("_file", False):
                self._pending_files = None
                if not paths:
                    self.steps.remove(step)
                    return None
                step.type = "upload"
                step.data = {"locator": step.data["locator"], "paths": list(paths)}
                return step
        self._pending_files = list(paths) or None  # the chooser answered before its click arrived
        return None

    def _download(self) -> Step | None:
        last = self.last
        if last is not None and last.type == "click" and last.locator:
            last.type = "download"
            last.data = {"locator": last.data["locator"]}
            return last
        return None

    def _replaces_focus_click(self, loc: dict[str, Any]) -> None:
        last = self.last
        if last is not None and last.type == "click" and _same_target(last.locator, loc) \
                and not last.data.get("button") and (last.data.get("count") or 1) == 1 and not last.data.get("offset"):
            self.steps.pop()

    def _fill(self, raw: dict[str, Any]) -> Step:
        loc = raw["loc"]
        last = self.last
        if last is not None and last.type == "fill" and _same_target(last.locator, loc):
            step = last
        else:
            self._replaces_focus_click(loc)
            step = self._append("fill", {"locator": plain_locator(loc), "text": ""}, raw)
            if raw.get("secret"):
                step.secret = self._secret_name(str(raw.get("variable") or "secret"))
                step.data["text"] = f"{{{{#input.{step.secret}#}}}}"
        if raw.get("paste"):
            step.data["entry"] = "paste"
        if not step.secret and not step.input_name:
            step.data["text"] = str(raw.get("value") or "")
        elif step.input_name:
            step.default = str(raw.get("value") or "")
        return step

    def _widget_choice(self, raw: dict[str, Any]) -> Step:
        """A choice in a custom select widget: one `select` step in place of what the person did in the widget
        since they began using it (the click that opened it, typing in its search box, Enter): the widget as
        `locator` (what the original app clicks before it picks the option by its text), the native <select> it
        keeps in step as `native` (ours: replay opens the widget of that select, and checks it)."""
        begun = raw.get("from")
        if isinstance(begun, (int, float)):
            self.steps = [s for s in self.steps if s.seq is None or s.seq < begun or s.type == "goto"]
        data: dict[str, Any] = {"locator": plain_locator(raw["loc"]), "option": str(raw.get("option") or "")}
        if raw.get("native") and (raw["native"].get("selector") or raw["native"].get("xpath")):
            data["native"] = plain_locator(raw["native"])
        return self._append("select", data, raw)

    def _secret_name(self, wanted: str) -> str:
        taken = {s.secret for s in self.steps if s.secret} | {s.input_name for s in self.steps if s.input_name}
        name, n = wanted, 1
        while name in taken:
            n += 1
            name = f"{wanted}{n}"
        return name

    def _select(self, raw: dict[str, Any]) -> Step:
        loc = raw["loc"]
        if raw.get("widget"):
            return self._widget_choice(raw)
        last = self.last
        if last is not None and last.type == "select" and _same_target(last.locator, loc):
            last.data["option"] = str(raw.get("option") or "")
            return last
        self._replaces_focus_click(loc)
        return self._append("select", {"locator": plain_locator(loc), "option": str(raw.get("option") or "")}, raw)

    def _picked(self, raw: dict[str, Any]) -> Step:
        kind, name = self.picking, self.picking_name
        self.picking, self.picking_name = None, None
        loc = plain_locator(raw["loc"])
        if kind == "capture" and not (loc.get("selector") or loc.get("xpath")):
            return self._missing({**raw, "action": "click"}, "a captured text is read by plain CSS or XPath, and "
                                 "none finds this element (inside a web component): pick another")
        if kind == "capture":
            return self._append("script", {"source": _capture_source(raw["loc"], name or "text"), "variables": [],
                                           "outputs": {name or "text": {"type": "string"}}}, raw)
        data: dict[str, Any] = {"locator": loc, "state": "appear"}
        if kind == "check":
            data["timeout"] = CHECK_TIMEOUT
        return self._append("wait", data, raw)

    # -- the person's edits ----------------------------------------------------------------------------
    def step(self, step_id: str) -> Step:
        for step in self.steps:
            if step.id == step_id:
                return step
        raise RecordingError(f"no step {step_id!r} in this recording (steps: "
                             f"{', '.join(s.id for s in self.steps) or 'none'})")

    def delete(self, step_id: str) -> None:
        self.steps.remove(self.step(step_id))

    def set_value(self, step_id: str, value: str) -> Step:
        """The step's value: typed text, option, keys, address, message."""
        step = self.step(step_id)
        key = {"fill": "text", "select": "option", "press": "shortcut", "goto": "url", "handoff": "message"}.get(step.type)
        if key is None:
            raise RecordingError(f"a {step.type} step has no value to edit")
        if step.secret:
            raise RecordingError("a secret field's value is never recorded; it is asked for at each run")
        if key in ("shortcut", "url") and not value.strip():
            raise RecordingError(f"the {key} must not be empty")
        if step.input_name:
            step.default = value
        else:
            step.data[key] = value
        return step

    def make_input(self, step_id: str, name: str) -> Step:
        """The fill's text becomes the start input `name` (the recorded text is its default)."""
        step = self.step(step_id)
        if step.type != "fill" or step.secret:
            raise RecordingError("only a typed (non-secret) value can become an input")
        if not _VARIABLE.match(name):
            raise RecordingError(f"{name!r} cannot be an input name: use letters, digits, _ and -")
        taken = {s.secret for s in self.steps if s.secret} | {s.input_name for s in self.steps
                                                              if s.input_name and s is not step}
        if name in taken:
            raise RecordingError(f"another step already uses the input {name!r}")
        if step.input_name is None:
            step.default = str(step.data.get("text") or "")
        step.input_name = name
        step.data["text"] = f"{{{{#input.{name}#}}}}"
        return step

    def set_locator(self, step_id: str, index: int) -> Step:
        """Replay tries the step's alternative `index` first (`locator.prefer`); the primary selector/xpath
        stays, for the original app."""
        step = self.step(step_id)
        loc = step.locator
        alternatives = (loc or {}).get("alternatives") or []
        if loc is None or not 0 <= index < len(alternatives):
            raise RecordingError(f"step {step_id} has no alternative {index}")
        loc["prefer"] = index
        step.note = ""
        return step

    def insert(self, kind: Insertable, after: str | None = None, message: str = "", name: str = "") -> Step | None:
        """Insert a step by hand after step `after` (default: at the end). `wait`, `capture` and `check` need
        an element: the person's next click picks it (returns None until then)."""
        if kind in PICKED:
            if kind == "capture" and not _VARIABLE.match(name or "text"):
                raise RecordingError(f"{name!r} cannot be an output name: use letters, digits, _ and -")
            self.picking, self.picking_name = kind, (name or "text") if kind == "capture" else None
            return None
        if kind == "handoff":
            step = Step(self._new_id("handoff"), "handoff", {"message": message or "Please finish this step, then "
                                                                                   "press Done."})
        elif kind == "captcha":
            step = Step(self._new_id("captcha"), "captcha", {"engine": "manual", "retries": 1})
        else:
            raise RecordingError(f"cannot insert {kind!r}: handoff, captcha, wait, capture or check")
        position = len(self.steps) if after is None else self.steps.index(self.step(after)) + 1
        self.steps.insert(position, step)
        return step

    # -- the document ----------------------------------------------------------------------------------
    def variables(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for step in self.steps:
            if step.secret:
                out.append({"variable": step.secret, "label": step.target or step.secret, "type": "secret"})
            elif step.input_name:
                out.append({"variable": step.input_name, "label": step.target or step.input_name,
                            "type": "text-input", "default": step.default or ""})
        return out

    def document(self, name: str, description: str = "") -> dict[str, Any]:
        """The BrowserPilot 0.3.0 document of the steps: start → steps → end (captured texts as outputs)."""
        if not name.strip():
            raise RecordingError("the workflow needs a name")
        missing = [f"step {index} ({step.words()}: {step.missing})" for index, step in enumerate(self.steps, 1)
                   if step.missing]
        if missing:
            raise RecordingError(
                f"{len(missing)} of your actions could not be recorded, so this workflow would not do what you did: "
                + "; ".join(missing) + ". Do each one again in the page (another way to reach the same element, "
                "e.g. by its label, may record), or delete the step if the workflow does not need it; then save.")
        nodes: list[dict[str, Any]] = [{"id": "start", "data": {"type": "start", "title": "Start",
                                                                "variables": self.variables()}}]
        outputs = []
        for step in self.steps:
            data = {k: copy.deepcopy(v) for k, v in step.data.items() if not k.startswith("_")}
            nodes.append({"id": step.id, "data": {"type": step.type, "title": clip(step.words(), 60), **data}})
            if step.type == "script":
                key = next(iter(step.data["outputs"]))
                outputs.append({"variable": key, "value_selector": [step.id, key]})
        nodes.append({"id": "end", "data": {"type": "end", "title": "End", "outputs": outputs}})
        for index, node in enumerate(nodes):
            node["position"] = {"x": 80 + 260 * index, "y": 200}
        edges = [{"id": f"e{i}-{a['id']}-{b['id']}", "source": a["id"], "target": b["id"], "sourceHandle": "source",
                  "targetHandle": "target"} for i, (a, b) in enumerate(zip(nodes, nodes[1:]))]
        return {"kind": "app", "version": "0.3.0",
                "app": {"name": name.strip(), "mode": "workflow",
                        "description": description or "Recorded in BrowserPilot"},
                "workflow": {"environment_variables": [], "conversation_variables": [],
                             "graph": {"nodes": nodes, "edges": edges}}}


def _capture_source(loc: dict[str, Any], name: str) -> str:
    """A `script` node's source returning the element's text (by the primary locator) as `name`."""
    import json

    if loc.get("selector"):
        find = f"document.querySelector({json.dumps(loc['selector'])})"
    else:
        find = (f"document.evaluate({json.dumps(loc['xpath'])}, document, null, "
                "XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue")
    return (f"const el = {find};\n"
            f"if (!el) throw new Error('the element to capture is not on the page');\n"
            f"return {{{json.dumps(name)}: (el.innerText || el.value || el.textContent || '').trim()}};")


def new_session_token() -> str:
    """The random prefix of the recorder's console messages (unknown to the page)."""
    return f"__bprec_{_secrets.token_hex(8)}:"
