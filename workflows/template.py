"""Variables of a run and `{{#path#}}` templates.

Namespaces: `sys` (url, title, tabId, env), `env` (the workflow's environment variables), `input` (the
start variables), `loop` (index from 1, item) and each node id (that node's output). A value selector is
a path array `[namespace-or-node-id, key, ...]`; a template writes the same path with dots:
`{{#fill1.value#}}`, `{{#loop.item.name#}}`. A missing variable is an error that names the path.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping, Sequence

TEMPLATE = re.compile(r"\{\{#\s*([^#{}]+?)\s*#\}\}")


class VariableError(Exception):
    """A template or selector names a variable that does not exist."""


class Variables:
    """The variables visible to one node: a chain of scopes (a loop pass sees its own `loop`)."""

    def __init__(self, values: dict[str, Any] | None = None, parent: "Variables | None" = None) -> None:
        self._values: dict[str, Any] = dict(values or {})
        self._parent = parent

    def child(self, **values: Any) -> "Variables":
        return Variables(values, self)

    def set(self, name: str, value: Any) -> None:
        self._values[name] = value

    def own_values(self, names: list[str]) -> dict[str, Any]:
        """The values set in this scope (not its parents) for these names."""
        return {name: self._values[name] for name in names if name in self._values}

    def namespace(self, name: str) -> tuple[bool, Any]:
        scope: Variables | None = self
        while scope is not None:
            if name in scope._values:
                return True, scope._values[name]
            scope = scope._parent
        return False, None

    def resolve(self, path: Sequence[Any]) -> Any:
        """The value at a selector path; raises `VariableError` naming the path when any step is missing."""
        if not path:
            raise VariableError("an empty variable selector")
        parts = [str(part) for part in path]
        found, value = self.namespace(parts[0])
        if not found:
            raise VariableError(f"the variable {'.'.join(parts)} does not exist ({parts[0]!r} is not a node id or "
                                f"namespace that has run)")
        for index, part in enumerate(parts[1:], start=1):
            value, ok = _step(value, part)
            if not ok:
                raise VariableError(f"the variable {'.'.join(parts)} does not exist (no {part!r} in "
                                    f"{'.'.join(parts[:index])})")
        return value

    def render(self, text: Any) -> Any:
        """Fill every `{{#path#}}` in a string. A string that is exactly one template keeps the value's type."""
        if not isinstance(text, str) or "{{#" not in text:
            return text
        whole = TEMPLATE.fullmatch(text.strip())
        if whole:
            return self.resolve(split_path(whole.group(1)))
        return TEMPLATE.sub(lambda m: as_text(self.resolve(split_path(m.group(1)))), text)

    def render_deep(self, value: Any) -> Any:
        """Render templates in strings inside lists and dicts."""
        if isinstance(value, str):
            return self.render(value)
        if isinstance(value, list):
            return [self.render_deep(item) for item in value]
        if isinstance(value, dict):
            return {key: self.render_deep(item) for key, item in value.items()}
        return value


def split_path(text: str) -> list[str]:
    return [part for part in text.strip().split(".") if part != ""]


def _step(value: Any, part: str) -> tuple[Any, bool]:
    if isinstance(value, Mapping):
        return (value[part], True) if part in value else (None, False)
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        try:
            index = int(part)
        except ValueError:
            return None, False
        if part.startswith("-") or index >= len(value):
            return None, False
        return value[index], True
    return None, False


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False)
