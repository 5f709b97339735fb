"""Secrets of an agent run: `<secret:name>` in the model's words becomes the value only where its binding lets
it be typed (workflows/secret_binding.py, enforced by the operations), and every form of the value becomes
`<secret:name>` again in everything the model, the records and the logs see (`workflows.redaction`: the one
redaction of the app). Pure Python.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from workflows.redaction import Redactor

from workflows.secret_binding import NAME, PLACEHOLDER, SecretError

__all__ = ["PLACEHOLDER", "SecretError", "Secrets", "parse_secret"]


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

    def check_names(self, value: Any) -> None:
        """Raise `SecretError` when a tool input names a secret this run does not have."""
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        unknown = sorted({match.group(1) for match in PLACEHOLDER.finditer(text)} - set(self.values))
        if unknown:
            known = ", ".join(self.names()) or "none"
            raise SecretError(f"there is no secret named {unknown[0]!r} (secrets of this run: {known})")

    def used_in(self, value: Any) -> list[str]:
        """Names of the secrets a tool input refers to."""
        text = json.dumps(value, ensure_ascii=False)
        return sorted({match.group(1) for match in PLACEHOLDER.finditer(text)} & set(self.values))

    def redact(self, value: Any) -> Any:
        """A copy of a JSON value (keys too) with every form of every secret replaced by `<secret:name>`."""
        return self.redactor(value)
