"""Flow node types: `start`, `end`, `if-else` and `loop`.

- `start` declares the run's inputs (`variables`); the executor checks them before the first node.
- `end` collects its `outputs` (`{variable, value_selector}`) into the run's outputs; several `end` nodes
  merge theirs. Inside a loop body an `end` collects that pass's result (it does not end the run).
- `if-else` takes the first case whose conditions all hold and leaves by the edge whose `sourceHandle` is
  that `case_id`, otherwise by `"false"`.
- `loop` runs its body once per item of `items_selector` (mode `list`, `max` defaults to the list's length and
  a longer list fails) or until `until` holds after a pass (mode `until`, `max` default 40). Its output is
  `{output: [one result per pass], index}`; a pass's result is what an `end` in the body collected, else the
  output of the last body node of that pass that produced one. Pure Python: no Qt here.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from workflows.nodes.base import QT_TRANSLATE_NOOP, NodeData, RunContext
from workflows.nodes.conditions import CONDITION_FIELDS, Case, Condition
from workflows.nodes.graph import RESERVED_HANDLE, Edge, Graph, Node, fill_edge_defaults
from workflows.nodes.structured import Spec, Sub
from workflows.nodes.values import FAILS, DocumentModel, Number, PathItem, Text
from workflows.secret_binding import SecretError, SecretRule

DEFAULT_UNTIL_MAX = 40
"""Passes an `until` loop makes at most when its `max` is not given."""
KNOWN_INPUT_TYPES = ("text-input", "string", "paragraph", "number", "select", "radio", "checkbox", "time",
                     "datetime", "time-range", "multi-select", "secret")
OFFERED_INPUT_TYPES = ("text-input", "string", "paragraph", "number", "select", "radio", "checkbox", "time")
"""The input types the start node's editor offers (any text may be typed)."""


class StartVariable(DocumentModel):
    """An input of the workflow, asked for before a run; `secret` values are masked and redacted."""

    variable: Text
    label: Text | None = None
    type: Text | None = None
    required: bool = True
    options: list[Any] | None = None
    default: Any = None  # shown pre-filled in the run form (a recorded value); kept as written
    domains: list[Text] | None = None
    """Ours (the original ignores it): for a `secret`, the sites where it may be typed (domain patterns, `*`
    anywhere; workflows/secret_binding.py). The run then holds `<secret:name>` in its variables and the value is
    filled in only when a fill or select types it into a field of such a site; any other use fails the node.
    Without it, a secret is filled in wherever its template is used, as in the original."""

    @property
    def kind(self) -> str:
        return self.type or "text-input"

    @property
    def option_texts(self) -> list[str]:
        """Options as the original lists them: non-empty strings, trimmed."""
        return [option.strip() for option in self.options or [] if isinstance(option, str) and option.strip()]

    def lint(self) -> list[str]:
        problems = []
        if not self.variable.strip():
            problems.append("a variable without a name is ignored")
        elif re.search(r"[^A-Za-z0-9_\u4e00-\u9fff-]", self.variable):
            problems.append(f"the name {self.variable!r} cannot be written in a {{{{#input.…#}}}} template "
                            "(templates take letters, digits, _, - and CJK characters)")
        if self.type is not None and self.type not in KNOWN_INPUT_TYPES:
            problems.append(f"type {self.type!r} is not one we know: it is asked for as text")
        if self.domains is not None:
            if self.kind != "secret":
                problems.append("domains bind only a secret input; ignored here")
            else:
                try:
                    SecretRule(self.variable or "secret", self.domains)
                except SecretError as exc:
                    problems.append(str(exc) + FAILS)
        return problems


class StartData(NodeData):
    node_type: ClassVar[str] = "start"
    category: ClassVar[str] = "flow"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "start")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "The workflow's inputs: each is asked for before a run.")
    structured_fields: ClassVar[dict[str, Spec]] = {"variables": Spec(
        (Sub("variable", optional=False), Sub("label"), Sub("type", "choice", OFFERED_INPUT_TYPES),
         Sub("required", "bool", default=True), Sub("options", "options"), Sub("default", "value")),
        lambda: {"variable": "", "label": "", "type": "text-input", "required": True}, "variable")}
    type: Literal["start"]
    variables: list[StartVariable] = Field(default_factory=list)

    def declared(self) -> list[StartVariable]:
        """The variables a run asks for (the first of each name; nameless ones are ignored)."""
        seen: set[str] = set()
        out = []
        for variable in self.variables:
            if variable.variable and variable.variable not in seen:
                seen.add(variable.variable)
                out.append(variable)
        return out

    def lint(self) -> list[str]:
        problems = []
        seen: dict[str, int] = {}
        for index, variable in enumerate(self.variables):
            problems += [f"variables[{index}]: {text}" for text in variable.lint()]
            if variable.variable in seen:
                problems.append(f'variables[{index}]: "{variable.variable}" is already declared by '
                                f"variables[{seen[variable.variable]}] (this one is ignored)")
            seen.setdefault(variable.variable, index)
        return problems

    @classmethod
    def readable_keys(cls, data: dict[str, Any]) -> list[str]:
        variables = data.get("variables") or []
        return [str(v.get("variable")) for v in variables if isinstance(v, dict) and v.get("variable")]

    async def run(self, ctx: RunContext) -> Any:
        return ctx.variables.get("input")


class EndOutput(DocumentModel):
    variable: Text
    value_selector: list[PathItem] = Field(default_factory=list)


class EndData(NodeData):
    """The end of a branch: its `outputs` become (part of) the run's outputs."""

    node_type: ClassVar[str] = "end"
    category: ClassVar[str] = "flow"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "end")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "The end of a branch: its outputs become the run's outputs.")
    structured_fields: ClassVar[dict[str, Spec]] = {"outputs": Spec(
        (Sub("variable", optional=False), Sub("value_selector", "selector", optional=False)),
        lambda: {"variable": "", "value_selector": []}, "output")}
    type: Literal["end"]
    outputs: list[EndOutput] = Field(default_factory=list)

    @classmethod
    def readable_keys(cls, data: dict[str, Any]) -> list[str]:
        return [str(o.get("variable")) for o in data.get("outputs") or [] if isinstance(o, dict) and o.get("variable")]

    async def run(self, ctx: RunContext) -> Any:
        collected = {output.variable: ctx.variables.resolve(output.value_selector)
                     for output in self.outputs if output.variable}
        ctx.collect_outputs(collected)
        return collected


class IfElseData(NodeData):
    node_type: ClassVar[str] = "if-else"
    category: ClassVar[str] = "flow"
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "if-else")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Takes the branch of the first case whose conditions all hold, else the false branch.")
    output_keys: ClassVar[tuple[str, ...]] = ("case",)
    structured_fields: ClassVar[dict[str, Spec]] = {"cases": Spec(
        (Sub("case_id", optional=False), Sub("conditions", "conditions")),
        lambda: {"case_id": "", "logical_operator": "and", "conditions": []}, "case")}
    type: Literal["if-else"]
    cases: list[Case] = Field(default_factory=list)

    def handles(self) -> list[str]:
        """The `sourceHandle`s its edges may use: each case_id, then "false"."""
        return [case.case_id for case in self.cases if case.case_id] + [RESERVED_HANDLE]

    def lint(self) -> list[str]:
        problems = [] if self.cases else ["has no cases: a run always leaves by \"false\""]
        seen: dict[str, int] = {}
        for index, case in enumerate(self.cases):
            problems += [f"cases[{index}] {text}" for text in case.lint()]
            for number, condition in enumerate(case.conditions):
                problems += [f"cases[{index}].conditions[{number}]: {text}" for text in condition.lint()]
            if case.case_id == RESERVED_HANDLE:
                problems.append(f'cases[{index}]: case_id "false" is also the else branch\'s handle')
            elif case.case_id in seen:
                problems.append(f'cases[{index}]: case_id "{case.case_id}" is already used by cases[{seen[case.case_id]}]'
                                " (only the first can be taken)")
            seen.setdefault(case.case_id, index)
        return problems

    async def run(self, ctx: RunContext) -> Any:
        for case in self.cases:
            if not case.case_id or not case.conditions:
                continue
            for condition in case.conditions:
                if not await ctx.condition(condition):
                    break
            else:
                ctx.take_handle(case.case_id)
                return {"case": case.case_id}
        ctx.take_handle(RESERVED_HANDLE)
        return {"case": RESERVED_HANDLE}


class LoopData(NodeData):
    """Runs its body (`nodes`/`edges`, its own level) once per item of `items_selector` (`list`) or until
    `until` holds, checked after each pass, at most `max` passes (default 40 for `until`)."""

    node_type: ClassVar[str] = "loop"
    category: ClassVar[str] = "flow"
    produces_output: ClassVar[bool] = True
    label: ClassVar[str] = QT_TRANSLATE_NOOP("NodeKind", "loop")
    summary: ClassVar[str] = QT_TRANSLATE_NOOP("NodeSummary", "Runs its body once per item of a list, or until a condition holds.")
    output_keys: ClassVar[tuple[str, ...]] = ("output", "index")
    structured_fields: ClassVar[dict[str, Spec]] = {"until": Spec(
        CONDITION_FIELDS.subs, CONDITION_FIELDS.new_item, "condition", max_items=1, shape="one")}
    always_dumped: ClassVar[tuple[str, ...]] = ("type", "edges")
    type: Literal["loop"]
    mode: Text = "list"
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)
    items_selector: list[PathItem] | None = None
    until: Condition | None = None
    max: Annotated[Number | None, Field()] = None

    @model_validator(mode="after")
    def _edges(self) -> "LoopData":
        fill_edge_defaults(self.edges)
        return self

    @property
    def graph(self) -> Graph:
        """The body as a graph (the same node and edge objects)."""
        return Graph.model_construct(nodes=self.nodes, edges=self.edges)

    @property
    def until_mode(self) -> bool:
        return self.mode == "until"

    @property
    def max_passes(self) -> int | None:
        """`max`, or 40 for an until loop; None: as many as the list has items."""
        if self.max is not None:
            return int(self.max)
        return DEFAULT_UNTIL_MAX if self.until_mode else None

    def lint(self) -> list[str]:
        problems = []
        if self.mode not in ("list", "until"):
            problems.append(f'mode {self.mode!r} is read as "list"')
        if self.until_mode and self.until is None:
            problems.append('needs until (a condition) in mode "until"' + FAILS)
        if not self.until_mode and self.items_selector is None:
            problems.append('needs items_selector in mode "list"' + FAILS)
        if self.until is not None:
            problems += [f"until: {text}" for text in self.until.lint()]
        if self.max is not None and (self.max != int(self.max) or self.max < 1):
            problems.append(f"max {self.max!r} should be a whole number of at least 1")
        return problems

    async def run(self, ctx: RunContext) -> Any:
        until = self.until_mode
        if until and self.until is None:
            ctx.fail('the loop needs an until condition in mode "until"')
        items: list[Any] = []
        if not until:
            if self.items_selector is None:
                ctx.fail('the loop needs items_selector in mode "list"')
            found = ctx.variables.resolve(self.items_selector)
            if not isinstance(found, list):
                ctx.fail(f"items_selector {'.'.join(map(str, self.items_selector))} is not a list "
                         f"(it is {type(found).__name__})")
            items = found
        limit = self.max_passes if self.max_passes is not None else max(len(items), 1)
        if not until and len(items) > limit:
            ctx.fail(f"the list has {len(items)} items, more than this loop's max of {limit}")
        passes: list[Any] = []
        saved = ctx.variables.get("loop")
        held = not until
        try:
            for index in range(len(items) if not until else limit):
                state: dict[str, Any] = {"index": index + 1}
                if not until:
                    state["item"] = items[index]
                ctx.variables.set("loop", state)
                # Our extension: the loop's own id shows the pass too, so a nested loop reaches the outer one.
                ctx.variables.set(ctx.node.id, {"output": passes, **state})
                result = await ctx.run_pass(self.graph, index + 1)
                passes.append(dict(result) if isinstance(result, dict) else result)
                if until and await ctx.condition(self.until):  # type: ignore[arg-type]
                    held = True
                    break
        finally:
            if saved:
                ctx.variables.set("loop", saved)
        if not held:
            ctx.fail(f"the until condition did not hold after {limit} passes")
        return {"output": passes, "index": len(passes)}
