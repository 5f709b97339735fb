"""How the real-application bench judges a replay: by the records the application's own database holds
before and after it, never by what the tool says; and how a recording is moved to the replay's servers."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from bench.realapps.corpus import App, Variant

SETTLE_S = 5.0  # after a replay ends, how long a save may still take to land (queues, WebSockets)


def judge(app: App, before: list[dict[str, Any]], after: list[dict[str, Any]], tool_ok: bool, error: str
          ) -> tuple[str, str, list[dict[str, Any]]]:
    """ok: exactly one new record, every expected field right, and the tool said it succeeded; wrong: a wrong
    value, more than one record, or an existing record changed; lost: the tool said ok and nothing landed;
    failed: the tool said it failed (also when the record landed: the person would run it again). The verdict,
    why, and the new records."""
    old = {row["id"]: row for row in before}
    new = [row for row in after if row["id"] not in old]
    changed = [row for row in after if row["id"] in old and row != old[row["id"]]]
    want = app.expected.fields
    if changed:
        return "wrong", f"changed an existing record: {changed[0]}", new
    if len(new) > 1:
        return "wrong", f"{len(new)} records created", new
    if len(new) == 1:
        diffs = {key: new[0].get(key) for key in want if new[0].get(key) != want[key]}
        if diffs:
            return "wrong", "wrong fields: " + ", ".join(f"{k}={v!r} (want {want[k]!r})" for k, v in diffs.items()), new
        # a right record under a reported failure is no success: the person would run it again (a duplicate)
        return ("ok", "", new) if tool_ok else ("failed", f"the record landed right, but the tool failed: {error}", new)
    return ("lost", "the tool said ok; nothing was created", new) if tool_ok else ("failed", error or "", new)


def settle(app: App, variant: Variant, work: Path, before: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records once what the replay sent had time to land (up to SETTLE_S, earlier when one appeared)."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        after = app.records(variant, work)
        if len(after) > len(before) or time.monotonic() >= deadline:
            time.sleep(0.3)
            return app.records(variant, work)
        time.sleep(0.2)


def rebase(text: str, recorded: dict[str, str], now: dict[str, str]) -> str:
    """A recording's addresses moved from the recording's servers to the replay's (same roles: the app, the
    portal): the only edit made to any tool's recording."""
    for role, origin in recorded.items():
        text = text.replace(origin, now[role])
    return text
