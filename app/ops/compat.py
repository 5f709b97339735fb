"""The original BrowserPilot's call forms, accepted beside ours, in one place.

`accept(model, raw)` rewrites a call's raw arguments before the registry validates them, keyed only on the
parameter model's fields, so an operation added later gets the same treatment by using the same field names:

- a model with a `locator` field also takes flat `selector` / `xpath` / `ref` (and `pierce`, which changes
  nothing here: our locators always reach into open shadow roots and iframes, another site's too);
- a model with an `until` field also takes `untilSelector` / `untilXpath`;
- a model with `x` and `y` also takes `shotWidth`/`shotHeight` (and `shotX`/`shotY`/`shotScale`): the point
  is then pixels on a screenshot of that size (or on a crop at that origin and scale) and is mapped to the
  viewport by `Shot.to_viewport` once the page is known (`app.ops.page_session.on_page`);
- `via` is accepted and dropped: all our input is trusted Qt input;
- a field that takes an object or a list also takes it as JSON text (`"{\"selector\": \"#x\"}"`).

Where both forms are given, ours wins; `Accepted.notes` says so, and the registry puts the notes in the
envelope (`notes: [...]`).
"""

from __future__ import annotations

import json
import math
import types
import typing
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

FLAT_LOCATOR_KEYS = ("xpath", "selector", "ref")
UNTIL_KEYS = {"untilXpath": "xpath", "untilSelector": "selector"}
SHOT_KEYS = ("shotWidth", "shotHeight", "shotX", "shotY", "shotScale")


class CompatError(ValueError):
    """The original's form was used, but inconsistently (e.g. shotWidth without shotHeight)."""


@dataclass(frozen=True)
class Shot:
    """`x`/`y` were pixels on a screenshot `width` x `height`, or on a crop at (`origin_x`, `origin_y`) in
    viewport CSS pixels scaled by `scale` (the original's `captcha_panel` images)."""

    width: float
    height: float
    origin_x: float | None = None
    origin_y: float | None = None
    scale: float | None = None

    def to_viewport(self, x: float, y: float, view_width: float, view_height: float) -> tuple[float, float]:
        if self.scale is not None and self.origin_x is not None and self.origin_y is not None:
            px, py = self.origin_x + x / self.scale, self.origin_y + y / self.scale
        else:
            px, py = x * view_width / self.width, y * view_height / self.height
        if not (0 <= px < view_width and 0 <= py < view_height):
            raise CompatError(f"the point ({x:g}, {y:g}) on the screenshot maps to ({px:.0f}, {py:.0f}), outside "
                              f"the {view_width:g}x{view_height:g} viewport")
        return px, py


@dataclass
class Accepted:
    params: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    shot: Shot | None = None


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool):
        raise CompatError(f"{name} must be a number")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise CompatError(f"{name} must be a number, not {value!r}") from None
    if not math.isfinite(number):
        raise CompatError(f"{name} must be a finite number")
    return number


def _given(raw: dict[str, Any], key: str) -> bool:
    return raw.get(key) not in (None, "")


def _field_names(model: type[BaseModel]) -> dict[str, Any]:
    """Outside name (alias) -> annotation, for every field of the model."""
    return {f.alias or name: f.annotation for name, f in model.model_fields.items()}


def _kinds(annotation: Any) -> set[str]:
    """What a field accepts, coarsely: 'str', 'dict' (an object or a model) and 'list'."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_kinds(arg) for arg in typing.get_args(annotation)))
    if origin is typing.Annotated:
        return _kinds(typing.get_args(annotation)[0])
    if annotation is str:
        return {"str"}
    if annotation is Any:
        return {"str", "dict", "list"}
    if origin in (dict, typing.Dict) or annotation is dict:
        return {"dict"}
    if origin in (list, tuple, typing.List) or annotation in (list, tuple):
        return {"list"}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return {"dict"}
    if origin is typing.Literal:
        return {"str"} if any(isinstance(arg, str) for arg in typing.get_args(annotation)) else set()
    return set()


def _parse_json_text(fields: dict[str, Any], raw: dict[str, Any], notes: list[str]) -> None:
    for key, value in list(raw.items()):
        if key not in fields or not isinstance(value, str) or not value.strip()[:1] in ("{", "["):
            continue
        kinds = _kinds(fields[key])
        if not kinds & {"dict", "list"}:
            continue
        try:
            parsed = json.loads(value)
        except ValueError:
            continue
        wanted = "dict" if isinstance(parsed, dict) else "list" if isinstance(parsed, list) else None
        if wanted not in kinds:
            continue
        raw[key] = parsed
        if "str" not in kinds:
            notes.append(f"{key} was given as JSON text; it was parsed")


def _flat_locator(raw: dict[str, Any], keys: dict[str, str], target: str, notes: list[str]) -> None:
    """Move flat locator keys (outside name -> Locator field) into `raw[target]`."""
    flat = {field_name: raw.pop(key) for key, field_name in keys.items() if key in raw}
    flat = {name: value for name, value in flat.items() if value not in (None, "")}
    if not flat:
        return
    given = ", ".join(key for key, name in keys.items() if name in flat)
    if raw.get(target) is not None:
        notes.append(f"{target} won over the flat {given}")
        return
    if len(flat) > 1:
        chosen = next(name for name in ("xpath", "selector", "ref") if name in flat)
        notes.append(f"{given} were all given; {chosen} won")
        flat = {chosen: flat[chosen]}
    raw[target] = flat


def _shot(raw: dict[str, Any]) -> Shot | None:
    present = {key: raw.pop(key) for key in SHOT_KEYS if key in raw}
    present = {key: value for key, value in present.items() if value not in (None, "")}
    if not present:
        return None
    if not (_given(raw, "x") and _given(raw, "y")):
        raise CompatError("shotWidth/shotHeight describe the screenshot that x and y were read from; give x and y too")
    if ("shotWidth" in present) != ("shotHeight" in present):
        raise CompatError("shotWidth and shotHeight go together")
    crop = [key for key in ("shotX", "shotY", "shotScale") if key in present]
    if crop and len(crop) != 3:
        raise CompatError("shotX, shotY and shotScale go together")
    if "shotWidth" not in present:
        raise CompatError("shotX, shotY and shotScale need shotWidth and shotHeight too")
    width, height = _number("shotWidth", present["shotWidth"]), _number("shotHeight", present["shotHeight"])
    if width <= 0 or height <= 0:
        raise CompatError("shotWidth and shotHeight must be positive")
    if not crop:
        return Shot(width, height)
    scale = _number("shotScale", present["shotScale"])
    if scale <= 0:
        raise CompatError("shotScale must be positive")
    return Shot(width, height, _number("shotX", present["shotX"]), _number("shotY", present["shotY"]), scale)


def accept(model: type[BaseModel], raw: dict[str, Any]) -> Accepted:
    """Rewrite the original's forms in `raw` into ours (a copy); see the module docstring."""
    params = dict(raw)
    notes: list[str] = []
    fields = _field_names(model)
    if "via" in params and "via" not in fields:
        params.pop("via")
        notes.append("via was ignored: all input here is trusted input from the app")
    if "locator" in fields:
        _parse_json_text({"locator": fields["locator"]}, params, notes)
        if "pierce" in params and "pierce" not in fields:
            if params.pop("pierce"):
                notes.append("pierce changes nothing here: locators always reach into open shadow roots and "
                             "iframes, another site's too")
        _flat_locator(params, {key: key for key in FLAT_LOCATOR_KEYS if key not in fields}, "locator", notes)
    if "until" in fields:
        _flat_locator(params, {key: name for key, name in UNTIL_KEYS.items() if key not in fields}, "until", notes)
    shot = None
    if "x" in fields and "y" in fields:
        for key in ("x", "y"):
            if params.get(key) == "":
                params.pop(key)
        shot = _shot(params)
    _parse_json_text(fields, params, notes)
    return Accepted(params, notes, shot)


def original_schema(model: type[BaseModel], schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (the model's JSON schema by alias) widened to the forms `accept` takes, so a client that checks
    arguments against the listed schema lets the original's calls through: flat `selector`/`xpath`/`pierce`
    (and then no required `locator`), `untilSelector`/`untilXpath`, `x`/`y` as text with
    `shotWidth`/`shotHeight`/`shotX`/`shotY`/`shotScale`, `via`, and objects or lists as JSON text."""
    fields = _field_names(model)
    properties = dict(schema.get("properties") or {})
    required = [name for name in schema.get("required") or []]
    text = {"type": "string"}
    for name, annotation in fields.items():
        kinds = _kinds(annotation)
        if name in properties and kinds & {"dict", "list"} and "str" not in kinds:
            properties[name] = {"anyOf": [properties[name], text]}
    if "locator" in fields:
        for key in FLAT_LOCATOR_KEYS:
            properties.setdefault(key, dict(text))
        properties.setdefault("pierce", {"type": "boolean"})
        required = [name for name in required if name != "locator"]
    if "until" in fields:
        for key in UNTIL_KEYS:
            properties.setdefault(key, dict(text))
    if "x" in fields and "y" in fields:
        for key in ("x", "y"):
            if key in properties:
                properties[key] = {"anyOf": [properties[key], text]}
        for key in SHOT_KEYS:
            properties.setdefault(key, {"anyOf": [{"type": "number"}, dict(text)]})
    if "via" not in fields:
        properties["via"] = {"type": "string", "enum": ["cdp", "native", "inject"]}
    widened = {**schema, "properties": properties}
    if required:
        widened["required"] = required
    else:
        widened.pop("required", None)
    return widened


def original_forms(model: type[BaseModel]) -> str | None:
    """One line for a tool's description: which of the original's forms this tool also takes."""
    fields = _field_names(model)
    forms: list[str] = []
    if "locator" in fields:
        forms.append("flat selector/xpath/pierce")
    if "until" in fields:
        forms.append("untilSelector/untilXpath")
    if "x" in fields and "y" in fields:
        forms.append("x/y with shotWidth/shotHeight (+shotX/shotY/shotScale)")
    if any(_kinds(annotation) & {"dict", "list"} for annotation in fields.values()):
        forms.append("objects as JSON text")
    if not forms:
        return None
    return "Also accepts the original BrowserPilot's " + ", ".join(forms) + ", via (ignored)."
