"""A tool result as a model reads it: one header line, then the payload as plain text.

```
ok · tab tab-3f2a · agent · http://127.0.0.1:8000/shop
title: Shop
snapshot:
- heading "Blue widget" [level=1]
- textbox "Name" [ref=e1]
```

- The header: `ok` or `error (code)`, the tab, its control and the page's address, the parts the envelope has;
  a failure's message is the next line, then its notes (`note: …`).
- Then every other key, in the envelope's order: a value on its line (`key: value`); an object as indented
  lines; a list of words on one line; a list of objects, or `{headers, rows}`, as a table (`a | b | c`, one
  row a line); a text of several lines (a snapshot, page text, HTML) as its own lines after `key:`, unescaped
  and last. Nothing is JSON inside a string: a quote stays a quote, a newline a new line.
- A value a text of the payload already says (`title: Shop` atop a snapshot) is not said twice, and a key
  the original BrowserPilot's name duplicates (`envs` beside `environments`, `total` beside `count`…:
  `DUPLICATE_NAMES`) is left out when it holds the same value.

The structured content of the result keeps the whole envelope for programs; this text is only what the model
reads. Plain Python, no SDK.
"""

from __future__ import annotations

from typing import Any

HEADER_KEYS = ("ok", "control", "tabId", "url", "error", "code")
SEPARATOR = " · "
INDENT = "  "

# The original BrowserPilot's result names that repeat one of ours with the same value (the envelope keeps both
# for the original's agents; a model reading text needs one).
DUPLICATE_NAMES = {"envs": "environments", "total": "count", "matches": "elements", "envId": "env",
                   "value": "result", "remark": "description", "nodes": "nodeCount"}


def render(envelope: dict[str, Any]) -> str:
    """The text a model reads for this envelope."""
    ok = bool(envelope.get("ok"))
    lines = [header(envelope)]
    if not ok and envelope.get("error"):
        lines.append(str(envelope["error"]))
    for note in envelope.get("notes") or []:
        lines.append(f"note: {_one_line(note)}")
    body = {key: value for key, value in envelope.items()
            if key not in HEADER_KEYS and key != "notes" and value is not None
            and not _duplicate(envelope, key)}
    texts = {key: value for key, value in body.items() if isinstance(value, str) and "\n" in value.strip()}
    said = {line for text in texts.values() for line in text.splitlines()}
    for key, value in body.items():
        if key not in texts and not (_is_scalar(value) and f"{key}: {_scalar(value)}" in said):
            lines.extend(_entry(key, value, 0))
    for key, value in texts.items():
        lines.append(f"{key}:")
        lines.append(value.strip("\n"))
    return "\n".join(lines)


def header(envelope: dict[str, Any]) -> str:
    if envelope.get("ok"):
        parts = ["ok"]
    else:
        code = envelope.get("code")
        parts = [f"error ({code})" if code and code != "failed" else "error"]
    if envelope.get("tabId"):
        parts.append(f"tab {envelope['tabId']}")
    if envelope.get("control"):
        parts.append(str(envelope["control"]))
    if isinstance(envelope.get("url"), str) and envelope["url"]:
        parts.append(envelope["url"])
    return SEPARATOR.join(parts)


def _duplicate(envelope: dict[str, Any], key: str) -> bool:
    ours = DUPLICATE_NAMES.get(key)
    return ours is not None and ours in envelope and envelope[ours] == envelope[key]


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}" if value == value and abs(value) < 1e15 else str(value)
    return str(value)


def _one_line(value: Any) -> str:
    return " ".join(_scalar(value).split("\n"))


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _entry(key: str, value: Any, depth: int) -> list[str]:
    pad = INDENT * depth
    if _is_scalar(value):
        text = _scalar(value)
        if "\n" in text.strip():
            return [f"{pad}{key}:", *(f"{pad}{INDENT}{line}" for line in text.strip("\n").split("\n"))]
        return [f"{pad}{key}: {text}"]
    if isinstance(value, dict):
        if not value:
            return [f"{pad}{key}: (none)"]
        if _is_table(value):
            return [f"{pad}{key}:", *_table(value["headers"], value["rows"], depth + 1),
                    *(line for k, v in value.items() if k not in ("headers", "rows") and v is not None
                      for line in _entry(k, v, depth + 1))]
        lines = [f"{pad}{key}:"]
        for k, v in value.items():
            if v is not None:
                lines.extend(_entry(str(k), v, depth + 1))
        return lines
    if isinstance(value, (list, tuple)):
        if not value:
            return [f"{pad}{key}: (none)"]
        if all(_is_scalar(item) for item in value):
            words = [_one_line(item) for item in value]
            if sum(len(word) for word in words) <= 200 and not any("," in word for word in words):
                return [f"{pad}{key}: {', '.join(words)}"]
            return [f"{pad}{key}:", *(f"{pad}{INDENT}- {word}" for word in words)]
        if all(isinstance(item, dict) for item in value):
            columns = list(dict.fromkeys(k for item in value for k, v in item.items()
                                         if v is not None and not _duplicate(item, k)))
            return [f"{pad}{key} ({len(value)}):", *_table(columns, [[item.get(c) for c in columns] for item in value],
                                                           depth + 1)]
        return [f"{pad}{key}:", *(f"{pad}{INDENT}- {_inline(item)}" for item in value)]
    return [f"{pad}{key}: {_one_line(value)}"]


def _is_table(value: dict[str, Any]) -> bool:
    headers, rows = value.get("headers"), value.get("rows")
    return (isinstance(headers, list) and all(isinstance(h, str) for h in headers) and isinstance(rows, list)
            and all(isinstance(row, (list, dict)) for row in rows))


def _table(columns: list[Any], rows: list[Any], depth: int) -> list[str]:
    pad = INDENT * depth
    lines = [pad + " | ".join(_one_line(column) for column in columns)] if columns else []
    for row in rows:
        cells = [row.get(column) for column in columns] if isinstance(row, dict) else list(row)
        lines.append(pad + " | ".join(_inline(cell) for cell in cells))
    return lines


def _inline(value: Any) -> str:
    """A value inside a table cell or a list item, on one line."""
    if value is None:
        return ""
    if _is_scalar(value):
        return _one_line(value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_inline(v)}" for k, v in value.items() if v is not None)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(item) for item in value) + "]"
    return _one_line(value)
