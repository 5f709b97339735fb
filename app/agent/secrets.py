"""Secrets of an agent run: `<secret:name>` in the model's words becomes the value only when a tool runs, and
every form of the value becomes `<secret:name>` again in everything the model, the records and the logs see
(`workflows.redaction`: the one redaction of the app). Pure Python.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

from workflows.redaction import Redactor

PLACEHOLDER = re.compile(r"<secret:([A-Za-z0-9_.-]+)>")
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class SecretError(ValueError):
    """A bad secret definition or a placeholder naming no secret."""


def parse_secret(pair: str) -> tuple[str, str]:
    """`NAME=VALUE` (as given to `--secret`) -> (name, value)."""
    name, sep, value = pair.partition("=")
    name = name.strip()
    if not sep or not NAME.match(name):
        raise SecretError(f"a secret is NAME=VALUE with a name of letters, digits, _ . -; not {pair.split('=')[0]!r}")
    if not value:
        raise SecretError(f"the secret {name!r} has an empty value")
    return name, value


class Secrets:
    """The run's secrets by name."""

    def __init__(self, values: Mapping[str, str] | None = None) -> None:
        self.values = {name: value for name, value in (values or {}).items() if value}
        for name in self.values:
            if not NAME.match(name):
                raise SecretError(f"bad secret name {name!r}: use letters, digits, _ . -")
        self.redactor = Redactor.by_name(self.values)

    def names(self) -> list[str]:
        return sorted(self.values)

    def __bool__(self) -> bool:
        return bool(self.values)

    def substitute(self, value: Any) -> Any:
        """A copy of a tool input with every `<secret:name>` replaced by its value."""
        if isinstance(value, str):
            def one(match: re.Match[str]) -> str:
                name = match.group(1)
                if name not in self.values:
                    known = ", ".join(self.names()) or "none"
                    raise SecretError(f"there is no secret named {name!r} (secrets of this run: {known})")
                return self.values[name]
            return PLACEHOLDER.sub(one, value)
        if isinstance(value, list):
            return [self.substitute(item) for item in value]
        if isinstance(value, dict):
            return {key: self.substitute(item) for key, item in value.items()}
        return value

    def used_in(self, value: Any) -> list[str]:
        """Names of the secrets a tool input refers to."""
        text = json.dumps(value, ensure_ascii=False)
        return sorted({match.group(1) for match in PLACEHOLDER.finditer(text)} & set(self.values))

    def redact(self, value: Any) -> Any:
        """A copy of a JSON value (keys too) with every form of every secret replaced by `<secret:name>`."""
        return self.redactor(value)
