"""Wait and extract node types: `wait`, `extract` and `export`.

- `wait`: until the element is present in the page (`state: appear`, the default) or absent (`gone`), at most
  `timeout` seconds (default 10, at least 1; no upper cap), as the original's waits define them (present in
  the DOM, visible or not).
- `extract`: a regular expression with JavaScript's semantics (run in the isolated code engine, not Python's
  `re`) over the text form of the value at `variable_selector`; flags of `i m s g u` (`g` always implied);
  `group` defaults to 1 and falls back to the whole match when that group did not take part; no match fails
  the node. Output `{value, matches}`.
- `export`: a table file in the run folder (`workflows.export`), listed in the run's files. Output `{path}`.
Pure Python: no Qt here.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import field_validator

from plumbing.savemanager import in_thread
from workflows.export import table_from, write_table
from workflows.nodes.base import QT_TRANSLATE_NOOP, NodeData, PageNodeData, RecordedStep, RunContext, target_phrase
from workflows.nodes.locators import NodeLocator
from workflows.nodes.values import FAILS, NonEmptyText, PathItem, Text, _count, problem
from workflows.template import js_text

DEFAULT_WAIT_SECONDS = 10.0
CHECK_TIMEOUT = 5
"""Seconds a recording's `check` (a wait node) waits for its element: how its words tell it from a wait."""
EXTRACT_FLAGS = "imsgu"
EXTRACT_TIMEOUT = 10.0
_EXTRACT_SOURCE = """
const flags = inputs.flags.includes('g') ? inputs.flags : inputs.flags + 'g';
const expression = new RegExp(inputs.pattern, flags);
const matches = [];
for (const found of inputs.text.matchAll(expression)) {
  const picked = typeof inputs.group === 'number' ? found[inputs.group] : (found.groups || {})[inputs.group];
  matches.push(picked ?? found[0] ?? '');
}
return matches;
"""


class WaitData(PageNodeData):
    """Wait until the element is present (default) or gone, at most `timeout` seconds (default 10)."""

    node_type: ClassVar[str] = "wait"
    category: ClassVar[str] = "wait & extract"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "wait")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Waits until an element appears or is gone, at most the timeout (seconds).")
    type: Literal["wait"]
    locator: NodeLocator
    state: Text = "appear"

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        if data.get("timeout") == CHECK_TIMEOUT:
            return f"Check that{target_phrase(step)} is there"
        return f"Wait for{target_phrase(step)}"

    def lint(self) -> list[str]:
        return [] if self.state in ("appear", "gone") else [f'state {self.state!r} is read as "appear"']

    async def run(self, ctx: RunContext) -> Any:
        gone = self.state == "gone"
        timeout = max(1.0, float(self.timeout) if self.timeout else DEFAULT_WAIT_SECONDS)
        candidates = [ctx.render_locator(candidate) for candidate in self.locator.candidates()]
        if not await ctx.wait_presence(candidates, not gone, timeout):
            what = "still there" if gone else "not there"
            ctx.fail(f"{self.locator.label()} was {what} after waiting {timeout:g} s")
        return {"state": "gone" if gone else "appear"}


class ExtractData(NodeData):
    """Match `pattern` (a regular expression, not templated) against the value at `variable_selector`;
    output `{value, matches}` where value is `group` (index, or name) of the first match."""

    node_type: ClassVar[str] = "extract"
    category: ClassVar[str] = "wait & extract"
    produces_output: ClassVar[bool] = True
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "extract")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Takes a part of a value with a regular expression.")
    output_keys: ClassVar[tuple[str, ...]] = ("value", "matches")
    type: Literal["extract"]
    variable_selector: list[PathItem]
    pattern: NonEmptyText
    flags: Text = ""
    group: int | str | None = None

    @field_validator("group", mode="plain")
    @classmethod
    def _group(cls, value: Any) -> int | str | None:
        if value is None:
            return None
        if isinstance(value, str) and value.strip() and not value.strip().isdigit():
            return value  # a named group
        try:
            number: int = _count(0)(value)
        except Exception:
            raise problem("must be a group number or name") from None
        return number

    def lint(self) -> list[str]:
        wrong = sorted({flag for flag in self.flags if flag not in EXTRACT_FLAGS})
        problems = [f"flags may only use i, m, s, g and u (found {', '.join(wrong)})" + FAILS] if wrong else []
        if len(self.variable_selector) < 2:
            problems.append("variable_selector needs at least two parts (a node id or namespace, then a key)" + FAILS)
        return problems

    async def run(self, ctx: RunContext) -> Any:
        text = js_text(ctx.variables.resolve(self.variable_selector))
        if any(flag not in EXTRACT_FLAGS for flag in self.flags):
            ctx.fail("flags may only use i, m, s, g and u")
        group = self.group if self.group is not None else 1
        try:
            matches = await ctx.code(_EXTRACT_SOURCE, {"text": text, "pattern": self.pattern, "flags": self.flags,
                                                       "group": group}, EXTRACT_TIMEOUT)
        except Exception as exc:
            ctx.fail(f"the pattern cannot be used: {exc}")
        if not matches:
            ctx.fail(f"the pattern {self.pattern!r} matched nothing in {'.'.join(map(str, self.variable_selector))}")
        return {"value": matches[0], "matches": matches}


class ExportData(NodeData):
    """Write a table file into the run folder: from `data_selector` (a value `{filename, headers, rows}`),
    or from `filename` + `headers` (or `headers_selector`) + `rows_selector`. Output `{path}`."""

    node_type: ClassVar[str] = "export"
    category: ClassVar[str] = "wait & extract"
    produces_output: ClassVar[bool] = True
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "export")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Writes a table file (CSV, Excel, JSON and more) into the run's folder.")
    output_keys: ClassVar[tuple[str, ...]] = ("path", "filename")
    type: Literal["export"]
    data_selector: list[PathItem] | None = None
    filename: Text | None = None
    headers: list[Any] | None = None
    headers_selector: list[PathItem] | None = None
    rows_selector: list[PathItem] | None = None
    format: Literal["csv", "json", "jsonl", "md", "pdf", "xlsx"] = "csv"

    def lint(self) -> list[str]:
        if self.data_selector is not None:
            return []
        missing = [name for name, given in (
            ("filename", self.filename is not None),
            ("headers or headers_selector", self.headers is not None or self.headers_selector is not None),
            ("rows_selector", self.rows_selector is not None)) if not given]
        return [f"needs data_selector, or filename, headers (or headers_selector) and rows_selector (missing "
                f"{', '.join(missing)})" + FAILS] if missing else []

    async def run(self, ctx: RunContext) -> Any:
        problems = self.lint()
        if problems:
            ctx.fail(problems[0].removesuffix(FAILS))
        filename, headers, rows = table_from(self, ctx.variables)  # the variables are read here, the file written
        path = await in_thread(write_table, ctx.folder, filename, headers, rows, self.format)  # on a worker thread
        ctx.add_file(str(path))
        return {"path": str(path)}
