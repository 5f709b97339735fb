"""The variable pool of a run and `{{#path#}}` templates, with the original BrowserPilot's rules.

The pool is one flat mapping shared by the whole run: the namespaces `sys` (url, title, tabId, env), `env`
(the workflow's environment variables), `input` (the start variables), `loop` (index from 1, item; the
innermost running loop's) and each node id (that node's output). After a loop its inner nodes' outputs (from
the last pass) stay readable.

A value selector is a path array `[namespace-or-node-id, key, ...]` of at least two segments; a template
writes the same path with dots: `{{#fill1.value#}}`, `{{#loop.item.name#}}`. A path holds only ASCII word
characters, CJK characters, `.` and `-`; anything else (`{{# a.b #}}`) is literal text. A missing variable is
an error naming the whole path. Objects and arrays are read by key and index; an array's `length` can be
read. Values render as JavaScript would print them (`js_text`). Pure Python: no Qt here.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Mapping, Sequence

TEMPLATE = re.compile(r"\{\{#([A-Za-z0-9_\u4e00-\u9fff.-]+)#\}\}")


class VariableError(Exception):
    """A template or selector names a variable that does not exist, or is not a selector."""


class Variables:
    """The run's variable pool."""

    def __init__(self, values: dict[str, Any] | None = None) -> None:
        self._values: dict[str, Any] = dict(values or {})

    def set(self, name: str, value: Any) -> None:
        self._values[name] = value

    def get(self, name: str) -> Any:
        return self._values.get(name)

    def pop(self, name: str) -> Any:
        return self._values.pop(name, None)

    def namespace(self, name: str) -> tuple[bool, Any]:
        return (name in self._values), self._values.get(name)

    def resolve(self, path: Sequence[Any]) -> Any:
        """The value at a selector path; raises `VariableError` naming the path when any step is missing."""
        if not isinstance(path, (list, tuple)):
            raise VariableError("a variable selector must be a list of names")
        parts = [str(part) for part in path]
        shown = ".".join(parts)
        if len(parts) < 2:
            raise VariableError(f"the variable selector {shown or '[]'} needs at least two parts "
                                "(a node id or namespace, then a key)")
        value = self._values.get(parts[0])
        if not isinstance(value, (Mapping, list)) or (parts[0] not in self._values):
            raise VariableError(f"the variable {shown} does not exist ({parts[0]!r} is not a node id or "
                                "namespace that has a value yet)")
        for index, part in enumerate(parts[1:], start=1):
            value, ok = step(value, part)
            if not ok:
                raise VariableError(f"the variable {shown} does not exist (no {part!r} in "
                                    f"{'.'.join(parts[:index])})")
        return value

    def render(self, text: Any) -> Any:
        """Fill every `{{#path#}}` of a string with the value's text; anything but a string is returned as it is."""
        if not isinstance(text, str) or "{{#" not in text:
            return text
        return TEMPLATE.sub(lambda m: js_text(self.resolve(m.group(1).split("."))), text)

    def render_deep(self, value: Any) -> Any:
        """Render templates in strings inside lists and dicts."""
        if isinstance(value, str):
            return self.render(value)
        if isinstance(value, list):
            return [self.render_deep(item) for item in value]
        if isinstance(value, dict):
            return {key: self.render_deep(item) for key, item in value.items()}
        return value


def step(value: Any, part: str) -> tuple[Any, bool]:
    """One step of a path, as JavaScript's `part in value` then `value[part]` would take it."""
    if isinstance(value, Mapping):
        return (value[part], True) if part in value else (None, False)
    if isinstance(value, list):
        if part == "length":
            return len(value), True
        if part.isdigit() and str(int(part)) == part and int(part) < len(value):
            return value[int(part)], True
    return None, False


def js_number(value: float | int) -> str:
    """A number as JavaScript's `String(number)` prints it: `1` not `1.0`, `1e+21`, `1e-7`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exponent = repr(abs(value)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    shift = int(exponent) if exponent else 0
    if whole.strip("0"):
        point = len(whole.lstrip("0")) + shift   # value = 0.DIGITS × 10^point
    else:
        point = shift - (len(fraction) - len(fraction.lstrip("0")))
    digits = (whole + fraction).strip("0")
    count = len(digits)
    if count <= point <= 21:
        text = digits + "0" * (point - count)
    elif 0 < point <= 21:
        text = digits[:point] + "." + digits[point:]
    elif -6 < point <= 0:
        text = "0." + "0" * (-point) + digits
    else:
        power = point - 1
        text = digits[0] + ("." + digits[1:] if count > 1 else "") + ("e+" if power >= 0 else "e-") + str(abs(power))
    return sign + text


def js_json(value: Any) -> str:
    """Compact `JSON.stringify(value)` (numbers as JavaScript prints them, non-ASCII kept)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value) if isinstance(value, int) or math.isfinite(value) else "null"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{json.dumps(str(k), ensure_ascii=False)}:{js_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(js_json(item) for item in value) + "]"
    return json.dumps(str(value), ensure_ascii=False)


def js_text(value: Any) -> str:
    """The text form of a value, as the original renders templates and compares conditions: strings as they
    are, numbers and booleans as JavaScript prints them, objects and arrays as compact JSON, null as empty."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return js_number(value)
    return js_json(value)


def js_string(value: Any) -> str:
    """JavaScript's `String(value)`: arrays joined by commas (null items empty), objects `[object Object]`."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return js_number(value)
    if isinstance(value, (list, tuple)):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


as_text = js_text
"""The name the rest of the code base uses for `js_text`."""
