"""Redaction of secrets: every form a secret's value takes in what people, models, records and logs read is
replaced, in one pass, by what stands for it (`<secret:name>` for a named secret, `[REDACTED]` otherwise).

The one implementation for run records and run events (`workflows.engine`), HAR files (`app.browser.netcapture`),
log lines (`redacting_logs`) and the built-in agent (`app.agent.secrets`). The forms of a value `v`:

- as given;
- URL-encoded: Python's `quote` (with and without `/` kept), `quote_plus` (a space as `+`), and what browsers
  send: a form body (`application/x-www-form-urlencoded`, which keeps `*` and escapes `~`), JavaScript's
  `encodeURIComponent` (keeps `!'()*`) and the query of a typed address (only spaces, quotes, `#<>` and
  non-ASCII escaped);
- JSON-escaped, with non-ASCII as `\\uXXXX` or as is;
- HTML-escaped: `&amp; &lt; &gt; &quot; &#x27;` (Python), `&#39; &#34;` (most template engines), and with the
  quotes left as they are (text between tags);
- base64-encoded (standard and URL-safe, with and without padding): a token, a Basic authorization header;
- inside base64 bodies: a JSON object `{"encoding": "base64", "text": ...}` (HAR content) has its decoded
  bytes redacted and is encoded again (text that is not base64 is redacted as text);
- everywhere in a JSON value: strings, dictionary keys, list and tuple items.

Longer forms win over shorter ones at the same place, what replaced a form is never searched again (one
regular expression, one pass), and redacting twice gives what redacting once gave. Pure Python.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import html
import json
import logging
import re
from typing import Any, Iterable, Iterator, Mapping
from urllib.parse import quote, quote_plus

REDACTED = "[REDACTED]"

# What a browser leaves as it is in each encoding (the URL Standard's percent-encode sets, complemented).
_FORM_SAFE = "*-._"  # application/x-www-form-urlencoded (and a space becomes "+")
_COMPONENT_SAFE = "-_.!~*'()"  # encodeURIComponent
_QUERY_SAFE = "!$%&'()*+,-./:;=?@[\\]^_`{|}~"  # the query percent-encode set: space " # < > and non-ASCII


def placeholder(name: str) -> str:
    """What a named secret's value becomes: `<secret:name>`."""
    return f"<secret:{name}>"


def _form_urlencoded(value: str) -> str:
    """A browser's form body encoding (Python's `quote_plus` always keeps `~` and escapes `*`)."""
    return "".join(chr(byte) if chr(byte).isascii() and (chr(byte).isalnum() or chr(byte) in _FORM_SAFE)
                   else "+" if byte == 0x20 else f"%{byte:02X}" for byte in value.encode("utf-8"))


def _base64_forms(value: str) -> list[str]:
    """The value's UTF-8 bytes in base64, standard and URL-safe, with and without padding (a token in a URL, a
    Basic authorization header, a data: URL)."""
    standard = base64.b64encode(value.encode("utf-8")).decode("ascii")
    url_safe = base64.urlsafe_b64encode(value.encode("utf-8")).decode("ascii")
    return [standard, standard.rstrip("="), url_safe, url_safe.rstrip("=")]


def forms(value: str) -> list[str]:
    """Every form of a secret's value that is replaced (see the module docstring), without repeats."""
    if not value:
        return []
    escaped = html.escape(value)
    found = [
        value,
        quote(value, safe=""), quote(value), quote_plus(value, safe=""), quote_plus(value, safe="/"),
        _form_urlencoded(value), quote(value, safe=_COMPONENT_SAFE), quote(value, safe=_QUERY_SAFE),
        json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1],
        escaped, escaped.replace("&#x27;", "&#39;").replace("&quot;", "&#34;"), html.escape(value, quote=False),
        *_base64_forms(value),
    ]
    return list(dict.fromkeys(form for form in found if form))


class Redactor:
    """Replaces every form of some secrets' values. Made once per run (or agent run, or HAR) and used many
    times; an empty one changes nothing and costs nothing."""

    def __init__(self, replacements: Mapping[str, str]) -> None:
        """`replacements`: a secret's value -> what replaces it and each of its forms."""
        by_form: dict[str, str] = {}
        for value, replacement in replacements.items():
            if isinstance(value, str):
                for form in forms(value):
                    by_form.setdefault(form, replacement)
        # What replaces a form stays as it is, so that redacting again changes nothing ("secret" in "<secret:x>").
        for replacement in set(by_form.values()):
            by_form.setdefault(replacement, replacement)
        self._by_form = by_form
        self._by_bytes = {form.encode("utf-8"): replacement.encode("utf-8") for form, replacement in by_form.items()}
        # Longest first: at one place the longest form matches (a form never hides inside a shorter one).
        ordered = sorted(by_form, key=len, reverse=True)
        self._text = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        self._bytes = re.compile(b"|".join(re.escape(form.encode("utf-8")) for form in ordered)) if ordered else None

    @classmethod
    def by_name(cls, secrets: Mapping[str, str]) -> "Redactor":
        """For named secrets (name -> value): each value becomes `<secret:name>`."""
        return cls({value: placeholder(name) for name, value in secrets.items() if value})

    @classmethod
    def of(cls, secrets: Iterable[str] | Mapping[str, str]) -> "Redactor":
        """For a list of values (each becomes `[REDACTED]`) or a mapping from a value to its replacement."""
        if isinstance(secrets, Mapping):
            return cls(secrets)
        return cls({value: REDACTED for value in secrets})

    def __bool__(self) -> bool:
        return self._text is not None

    def text(self, text: str) -> str:
        """One string with every form replaced."""
        if self._text is None:
            return text
        return self._text.sub(lambda match: self._by_form[match.group(0)], text)

    def data(self, data: bytes) -> bytes:
        """Bytes (UTF-8 text in them) with every form replaced."""
        if self._bytes is None:
            return data
        return self._bytes.sub(lambda match: self._by_bytes[match.group(0)], data)

    def __call__(self, value: Any) -> Any:
        """A copy of a JSON value (keys, list and tuple items too) with every form replaced."""
        if self._text is None:
            return value
        return self._walk(value)

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self._walk(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self._walk(item) for item in value)
        if isinstance(value, dict):
            copy = {self.text(key) if isinstance(key, str) else key: self._walk(item) for key, item in value.items()}
            if value.get("encoding") == "base64" and isinstance(value.get("text"), str):
                copy["text"] = self._base64(value["text"])
            return copy
        return value

    def _base64(self, text: str) -> str:
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return self.text(text)  # not base64 after all: whatever it holds is text
        redacted = self.data(raw)
        return text if redacted == raw else base64.b64encode(redacted).decode("ascii")


def redact(value: Any, secrets: Mapping[str, str]) -> Any:
    """A copy of a JSON value with every form of each named secret (name -> value) replaced by `<secret:name>`."""
    return Redactor.by_name(secrets)(value)


class RedactingFilter(logging.Filter):
    """A log handler's filter that redacts each record's message, exception text and stack."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a broken format: the handler reports it as logging always does
            return True
        record.msg, record.args = self.redactor.text(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redactor.text(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redactor.text(record.stack_info)
        return True


@contextlib.contextmanager
def redacting_logs(redactor: Redactor) -> Iterator[None]:
    """While the block runs, every handler of the root logger redacts what it writes."""
    if not redactor:
        yield
        return
    handlers = list(logging.getLogger().handlers)
    redacting = RedactingFilter(redactor)
    for handler in handlers:
        handler.addFilter(redacting)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(redacting)
