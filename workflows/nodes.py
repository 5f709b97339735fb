"""The parts of a workflow graph: the `data` model of each of the 22 node types, locators, conditions, nodes,
edges and graphs (BrowserPilot 0.3.0 document format, DESIGN.md §5).

Every model keeps unknown fields (`extra="allow"`) and remembers which fields the file set, so a document
dumps back to what it was read from (plus filled-in edge defaults): import → export → import is lossless and
files we write still load in the original app, which ignores keys it does not know.

`NODE_TYPES` is the registry of node types: `data.type` → its `NodeData` model. `Node.data` is validated as
the model its `type` names; an unknown type is an error (the original accepted it, we do not).

Locators on page nodes are the original `{selector?, xpath?}` plus an optional ordered `alternatives` list
(`{role, name}`, `{testid}`, `{label}`, `{text}`, `{placeholder}`, `{selector}`, `{xpath}`);
`NodeLocator.candidates()` turns one into the `workflows.ports.Locator`s replay tries in turn.

Numbers may arrive as strings (`"timeout": "20"`); numeric fields accept both. Timeouts are in seconds,
except a condition's `timeoutMs`. Pure Python: no Qt here.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, ClassVar, Literal, NamedTuple, Union

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Discriminator, Field,
                      PlainValidator, Tag, field_validator, model_validator)
from pydantic_core import PydanticCustomError

from workflows.ports import Locator

DEFAULT_UNTIL_MAX = 40
"""Passes an `until` loop makes at most when its `max` is not given."""

RESERVED_HANDLE = "false"
"""The `sourceHandle` of an if-else's else branch."""


def problem(message: str) -> PydanticCustomError:
    """A validation error whose message reads after the field name: `locator` + `needs selector or xpath`."""
    return PydanticCustomError("bp", message)


class DocumentModel(BaseModel):
    """Base of every document model: unknown keys are kept; `always_dumped` fields are written even when
    they hold their default, so every file we write has the same shape."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    always_dumped: ClassVar[tuple[str, ...]] = ()

    def model_post_init(self, context: Any, /) -> None:
        self.__pydantic_fields_set__.update(self.always_dumped)


# -- value types ---------------------------------------------------------------------------------------------
def _number(value: Any) -> int | float:
    if isinstance(value, bool):
        raise problem("must be a number")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise problem("must be a finite number")
        return value
    if isinstance(value, str):
        text = value.strip()
        if text and len(text) <= 40:
            try:
                return int(text)
            except ValueError:
                pass
            try:
                number = float(text)
            except ValueError:
                pass
            else:
                if math.isfinite(number):
                    return number
    raise problem("must be a number")


def _seconds(value: Any) -> int | float:
    number = _number(value)
    if number < 0:
        raise problem("must not be negative")
    return number


def _count(minimum: int) -> Any:
    def check(value: Any) -> int:
        number = _number(value)
        if number != int(number):
            raise problem("must be a whole number")
        if number < minimum:
            raise problem(f"must be at least {minimum}")
        return int(number)
    return check


def _text(value: Any) -> Any:
    """Text fields accept numbers too (`"text": 42` types "42"); anything else fails as not a string."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return value
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
    return str(value)


def _non_blank(value: str) -> str:
    if not value.strip():
        raise problem("must not be empty")
    return value


def _path_item(value: Any) -> str | int:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise problem("must be a name or an index")


Number = Annotated[int | float, PlainValidator(_number)]
Seconds = Annotated[int | float, PlainValidator(_seconds)]
PositiveInt = Annotated[int, PlainValidator(_count(1))]
NonNegativeInt = Annotated[int, PlainValidator(_count(0))]
Text = Annotated[str, BeforeValidator(_text)]
"""A text field (templated unless noted); numbers are accepted and kept as their text."""
NonEmptyText = Annotated[str, BeforeValidator(_text), AfterValidator(_non_blank)]
PathItem = Annotated[str | int, PlainValidator(_path_item)]
ValuePath = Annotated[list[PathItem], Field(min_length=1)]
"""A value selector: `[namespace-or-node-id, key, ...]`, e.g. `["input", "email"]`, `["loop", "item"]`."""


# -- locators ------------------------------------------------------------------------------------------------
_ROLE_NAME = re.compile(r"[A-Za-z][A-Za-z-]*")
_REGEX_SPECIAL = re.compile(r"[\\^$.*+?()[\]{}|/]")
_ALTERNATIVE_KINDS = ("testid", "label", "text", "placeholder", "selector", "xpath")


def _quote(value: str) -> str:
    """A double-quoted string for the selector engines (backslash escapes the next character)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _engine_text(value: str, exact: bool) -> str:
    """The body of `text=`/`label=`/`placeholder=`: exact → quoted (exact match); otherwise unquoted (a
    case-insensitive substring), or the same as a regular expression when the text cannot stand unquoted."""
    if exact:
        return _quote(value)
    stripped = value.strip()
    if stripped and ">>" not in stripped and stripped[0] not in "\"'/":
        return stripped
    escaped = _REGEX_SPECIAL.sub(lambda m: "\\" + m.group(0), stripped).replace(">", "\\x3e")
    return "/" + escaped + "/i"  # `>` escaped: the engines split chains on `>>` outside quotes


def _is_xpath(value: str) -> bool:
    return value.startswith(("/", "("))


class LocatorAlternative(DocumentModel):
    """One more way to find the element, tried in order after the locator's own selector/xpath.

    Exactly one kind: `{role, name?}` (ARIA role and accessible name; `{name}` alone when the role is
    unknown, e.g. from a Chrome recording), `{testid}`, `{label}`, `{text}`, `{placeholder}`, `{selector}`
    (CSS or an engine selector) or `{xpath}`. `exact: true` matches name/text/label/placeholder exactly
    instead of as a case-insensitive substring.
    """

    role: str | None = None
    name: Text | None = None
    exact: bool | None = None
    testid: Text | None = None
    label: Text | None = None
    text: Text | None = None
    placeholder: Text | None = None
    selector: str | None = None
    xpath: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> "LocatorAlternative":
        kinds = (["role/name"] if self.role is not None or self.name is not None else []) + \
            [kind for kind in _ALTERNATIVE_KINDS if getattr(self, kind) is not None]
        if len(kinds) != 1:
            found = f" (found {', '.join(kinds)})" if kinds else ""
            raise problem("needs exactly one of role/name, testid, label, text, placeholder, selector or "
                          f"xpath{found}")
        if kinds[0] == "role/name":
            if self.role is not None and not _ROLE_NAME.fullmatch(self.role.strip()):
                raise problem('role must be an ARIA role such as "button"')
            if self.role is None and not (self.name or "").strip():
                raise problem("name must not be empty")
            return self
        value = getattr(self, kinds[0])
        if not value.strip():
            raise problem(f"{kinds[0]} must not be empty")
        if kinds[0] == "xpath" and not _is_xpath(value.strip()):
            raise problem("xpath must start with /")
        return self

    @property
    def kind(self) -> str:
        if self.role is not None or self.name is not None:
            return "role" if self.role is not None else "name"
        return next(kind for kind in _ALTERNATIVE_KINDS if getattr(self, kind) is not None)

    def selectors(self) -> list[Locator]:
        """The port locators for this alternative: one, or two (`label=` then `text=`) for a name without a
        role."""
        exact = bool(self.exact)
        if self.role is not None:
            role = self.role.strip().lower()
            if not (self.name or "").strip():
                return [Locator(selector=f"role={role}")]
            name = _quote(self.name.strip()) + ("s" if exact else "")  # type: ignore[union-attr]
            return [Locator(selector=f"role={role}[name={name}]")]
        if self.name is not None:
            body = _engine_text(self.name, exact)
            return [Locator(selector=f"label={body}"), Locator(selector=f"text={body}")]
        if self.testid is not None:
            return [Locator(selector=f"testid={_quote(self.testid.strip())}")]
        for engine in ("label", "text", "placeholder"):
            value = getattr(self, engine)
            if value is not None:
                return [Locator(selector=f"{engine}={_engine_text(value, exact)}")]
        if self.selector is not None:
            return [_selector_locator(self.selector)]
        return [Locator(xpath=(self.xpath or "").strip())]


def _selector_locator(selector: str) -> Locator:
    """The original app treats a selector starting with `/` as an XPath (a `>>` chain stays a selector: the
    engine reads its XPath parts itself)."""
    selector = selector.strip()
    return Locator(xpath=selector) if _is_xpath(selector) and ">>" not in selector else Locator(selector=selector)


class LocatorCandidate(NamedTuple):
    """A port locator and where it came from in the node's locator: `selector`, `xpath` or
    `alternatives[i]` (for the run trace: which alternative matched)."""

    source: str
    locator: Locator


class NodeLocator(DocumentModel):
    """`locator` of a page node: `{selector?, xpath?}` as in the original (empty strings count as absent),
    plus ordered `alternatives`. A bare string is read as `{selector}` (or `{xpath}` when it starts with `/`).
    """

    selector: str | None = None
    xpath: str | None = None
    alternatives: list[LocatorAlternative] | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"xpath": value} if _is_xpath(value.strip()) else {"selector": value}
        return value

    @model_validator(mode="after")
    def _has_target(self) -> "NodeLocator":
        if not ((self.selector or "").strip() or (self.xpath or "").strip() or self.alternatives):
            raise problem("needs selector or xpath")
        if (self.xpath or "").strip() and not _is_xpath(self.xpath.strip()):  # type: ignore[union-attr]
            raise problem("xpath must start with /")
        return self

    def labeled_candidates(self) -> list[LocatorCandidate]:
        """Every way to find the element, in the order replay tries them (duplicates removed): the
        selector, the xpath, then the alternatives in order."""
        out: list[LocatorCandidate] = []
        seen: set[tuple[str | None, str | None]] = set()

        def add(source: str, locator: Locator) -> None:
            key = (locator.selector, locator.xpath)
            if key not in seen:
                seen.add(key)
                out.append(LocatorCandidate(source, locator))

        if (self.selector or "").strip():
            add("selector", _selector_locator(self.selector))  # type: ignore[arg-type]
        if (self.xpath or "").strip():
            add("xpath", Locator(xpath=self.xpath.strip()))  # type: ignore[union-attr]
        for index, alternative in enumerate(self.alternatives or []):
            for locator in alternative.selectors():
                add(f"alternatives[{index}]", locator)
        return out

    def candidates(self) -> list[Locator]:
        """The `workflows.ports.Locator`s to try, in order."""
        return [candidate.locator for candidate in self.labeled_candidates()]

    def label(self) -> str:
        """A short description for messages: the first candidate."""
        first = self.labeled_candidates()
        return first[0].locator.label() if first else "(no locator)"


# -- conditions ----------------------------------------------------------------------------------------------
Operator = Literal["contains", "not contains", "starts with", "start with", "ends with", "end with", "is",
                   "is not", "empty", "not empty", "null", "not null", "=", "==", "≠", "!=", ">", "<", "≥",
                   ">=", "≤", "<=", "locator"]
CANONICAL_OPERATORS: dict[str, str] = {
    "start with": "starts with", "end with": "ends with", "null": "empty", "not null": "not empty",
    "==": "=", "!=": "≠", ">=": "≥", "<=": "≤",
}
"""Accepted spellings → the canonical operator `Condition.operator()` returns."""
NUMERIC_OPERATORS = frozenset({"=", "≠", ">", "<", "≥", "≤"})
UNARY_OPERATORS = frozenset({"empty", "not empty"})


class Condition(DocumentModel):
    """`{comparison_operator, variable_selector, value?}`; the `locator` operator instead needs `locator`
    (or a selector/XPath string in `value`) and waits up to `timeoutMs` for it to appear."""

    comparison_operator: Operator
    variable_selector: ValuePath | None = None
    value: Any = None
    locator: NodeLocator | None = None
    timeoutMs: Annotated[int | float, PlainValidator(_seconds)] | None = None

    @model_validator(mode="after")
    def _operands(self) -> "Condition":
        operator = self.operator()
        if operator == "locator":
            if self.locator is None and not (isinstance(self.value, str) and self.value.strip()):
                raise problem('needs a locator (or a selector in value) for the operator "locator"')
        elif self.variable_selector is None:
            raise problem(f'needs variable_selector for the operator "{operator}"')
        if operator in NUMERIC_OPERATORS and self.value is None:
            raise problem(f'needs a value for the operator "{operator}"')
        return self

    def operator(self) -> str:
        """The canonical operator: contains, not contains, starts with, ends with, is, is not, empty,
        not empty, =, ≠, >, <, ≥, ≤ or locator."""
        return CANONICAL_OPERATORS.get(self.comparison_operator, self.comparison_operator)

    def target_locator(self) -> NodeLocator | None:
        """For the `locator` operator: `locator`, or the selector/XPath string given in `value`."""
        if self.locator is not None:
            return self.locator
        if isinstance(self.value, str) and self.value.strip():
            return NodeLocator.model_validate(self.value.strip())
        return None


class Case(DocumentModel):
    """One if-else branch: when its conditions hold (all of them; any with `logical_operator: "or"`), the
    run leaves by the edge whose `sourceHandle` is `case_id`."""

    case_id: NonEmptyText
    conditions: Annotated[list[Condition], Field(min_length=1)]
    logical_operator: Literal["and", "or"] = "and"


# -- node data -----------------------------------------------------------------------------------------------
class NodeData(DocumentModel):
    """What every node's `data` has: its `type` and an optional `title`."""

    always_dumped: ClassVar[tuple[str, ...]] = ("type",)
    type: str
    title: Text | None = None


class PageNodeData(NodeData):
    """A node that acts on the page; `timeout` (seconds) overrides the run's default wait."""

    timeout: Seconds | None = None


class StartVariable(DocumentModel):
    """An input of the workflow, asked for before a run; `secret` values are masked and redacted."""

    variable: NonEmptyText
    label: Text | None = None
    type: Literal["text-input", "string", "paragraph", "number", "select", "radio", "checkbox", "time",
                  "secret"] | None = None
    required: bool = True
    options: list[Text] | None = None

    @field_validator("variable")
    @classmethod
    def _name(cls, value: str) -> str:
        if re.search(r"[\s.#{}]", value):
            raise problem("must be a name without spaces, dots, # or braces")
        return value

    @property
    def kind(self) -> str:
        return self.type or "text-input"


class StartData(NodeData):
    type: Literal["start"]
    variables: list[StartVariable] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique(self) -> "StartData":
        seen: dict[str, int] = {}
        for index, variable in enumerate(self.variables):
            if variable.variable in seen:
                raise problem(f'variables[{index}]: "{variable.variable}" is already declared by '
                              f"variables[{seen[variable.variable]}]")
            seen[variable.variable] = index
        return self


class EndOutput(DocumentModel):
    variable: NonEmptyText
    value_selector: ValuePath


class EndData(NodeData):
    """The end of a run: its `outputs` become the run's outputs."""

    type: Literal["end"]
    outputs: list[EndOutput] = Field(default_factory=list)


class IfElseData(NodeData):
    type: Literal["if-else"]
    cases: Annotated[list[Case], Field(min_length=1)]

    @model_validator(mode="after")
    def _case_ids(self) -> "IfElseData":
        seen: dict[str, int] = {}
        for index, case in enumerate(self.cases):
            if case.case_id == RESERVED_HANDLE:
                raise problem(f'cases[{index}]: case_id "false" is reserved for the else branch')
            if case.case_id in seen:
                raise problem(f'cases[{index}]: case_id "{case.case_id}" is already used by cases[{seen[case.case_id]}]')
            seen[case.case_id] = index
        return self

    def handles(self) -> list[str]:
        """The `sourceHandle`s its edges may use: each case_id, then "false"."""
        return [case.case_id for case in self.cases] + [RESERVED_HANDLE]


class LoopData(NodeData):
    """Runs its body (`nodes`/`edges`, its own level) once per item of `items_selector` (`list`) or until
    `until` holds, checked after each pass, at most `max` passes (default 40 for `until`)."""

    always_dumped: ClassVar[tuple[str, ...]] = ("type", "edges")
    type: Literal["loop"]
    mode: Literal["list", "until"]
    nodes: list[Node]
    edges: list[Edge] = Field(default_factory=list)
    items_selector: ValuePath | None = None
    until: Condition | None = None
    max: PositiveInt | None = None

    @field_validator("nodes")
    @classmethod
    def _body(cls, value: list[Node]) -> list[Node]:
        if not value:
            raise problem("must not be empty: a loop needs a body")
        return value

    @model_validator(mode="after")
    def _mode(self) -> "LoopData":
        if self.mode == "list" and self.items_selector is None:
            raise problem('needs items_selector in mode "list"')
        if self.mode == "until" and self.until is None:
            raise problem('needs until (a condition) in mode "until"')
        fill_edge_defaults(self.edges)
        return self

    @property
    def graph(self) -> Graph:
        """The body as a graph (the same node and edge objects)."""
        return Graph.model_construct(nodes=self.nodes, edges=self.edges)

    @property
    def max_passes(self) -> int | None:
        """`max`, or 40 for an until loop; None: every item of the list."""
        if self.max is not None:
            return self.max
        return DEFAULT_UNTIL_MAX if self.mode == "until" else None


class GotoData(PageNodeData):
    type: Literal["goto"]
    url: NonEmptyText


MouseButton = Literal["left", "right", "middle"]


class ClickData(PageNodeData):
    """Click an element (`locator`, then optionally wait for `until` to appear, clicking again if needed), or
    a point `x, y` (CSS px; scaled from a `shotWidth` × `shotHeight` screenshot when given)."""

    type: Literal["click"]
    locator: NodeLocator | None = None
    until: NodeLocator | None = None
    x: Number | None = None
    y: Number | None = None
    shotWidth: Number | None = None
    shotHeight: Number | None = None
    button: MouseButton | None = None
    count: Annotated[int, PlainValidator(_count(1))] | None = None

    @model_validator(mode="after")
    def _target(self) -> "ClickData":
        if (self.x is None) != (self.y is None):
            raise problem("needs both x and y")
        if self.locator is None and self.x is None:
            raise problem("needs a locator, or x and y")
        for name in ("shotWidth", "shotHeight"):
            size = getattr(self, name)
            if size is not None and size <= 0:
                raise problem(f"{name} must be greater than 0")
        if self.count is not None and self.count > 3:
            raise problem("count must be 1, 2 or 3")
        return self


class FillData(PageNodeData):
    """Type (`entry: type`, default) or paste (`entry: paste`) `text` into the element."""

    type: Literal["fill"]
    locator: NodeLocator
    entry: Literal["type", "paste"] = "type"
    text: Text


class SelectData(PageNodeData):
    type: Literal["select"]
    locator: NodeLocator
    option: Text


class PressData(PageNodeData):
    """Press a key or shortcut: `enter`, `tab`, `ctrl+a`, `shift+tab`…"""

    type: Literal["press"]
    shortcut: NonEmptyText


Direction = Literal["up", "down", "left", "right"]


class ScrollData(PageNodeData):
    """Scroll the page (or the `locator`'s element) once, or until `until` appears. Left/right are an
    extension (the original scrolls up or down)."""

    type: Literal["scroll"]
    direction: Direction = "down"
    locator: NodeLocator | None = None
    until: NodeLocator | None = None


class SwipeData(PageNodeData):
    type: Literal["swipe"]
    direction: Direction = "down"
    locator: NodeLocator | None = None
    until: NodeLocator | None = None


class UploadData(PageNodeData):
    type: Literal["upload"]
    locator: NodeLocator
    paths: Annotated[list[NonEmptyText], Field(min_length=1)]


class WaitData(PageNodeData):
    """Wait until the element appears (default) or is gone, at most `timeout` seconds."""

    type: Literal["wait"]
    locator: NodeLocator
    state: Literal["appear", "gone"] = "appear"


class ExtractData(NodeData):
    """Match `pattern` (a regular expression, not templated) against the value at `variable_selector`;
    output `{value, matches}` where value is `group` (index or name) of the first match."""

    type: Literal["extract"]
    variable_selector: ValuePath
    pattern: str
    flags: str = ""
    group: int | str | None = None

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, value: str) -> str:
        if not value:
            raise problem("must not be empty")
        return value

    @field_validator("flags")
    @classmethod
    def _flags(cls, value: str) -> str:
        if any(flag not in "dgimsuy" for flag in value):
            raise problem("must use only the letters d, g, i, m, s, u and y")
        return value

    @field_validator("group", mode="plain")
    @classmethod
    def _group(cls, value: Any) -> int | str | None:
        if value is None:
            return None
        if isinstance(value, str) and value.strip() and not value.strip().isdigit():
            return value  # a named group
        try:
            number: int = _count(0)(value)
        except PydanticCustomError:
            raise problem("must be a group number or name") from None
        return number


class ExportData(NodeData):
    """Write a table file into the run folder: from `data_selector` (a value `{filename, headers, rows}`),
    or from `filename` + `headers` (or `headers_selector`) + `rows_selector`. Output `{path}`."""

    type: Literal["export"]
    data_selector: ValuePath | None = None
    filename: NonEmptyText | None = None
    headers: list[Text] | None = None
    headers_selector: ValuePath | None = None
    rows_selector: ValuePath | None = None
    format: Literal["csv", "json", "jsonl", "md", "pdf"] = "csv"

    @model_validator(mode="after")
    def _source(self) -> "ExportData":
        if self.data_selector is not None:
            return self
        missing = [name for name, given in (
            ("filename", self.filename is not None),
            ("headers or headers_selector", self.headers is not None or self.headers_selector is not None),
            ("rows_selector", self.rows_selector is not None)) if not given]
        if missing:
            raise problem(f"needs data_selector, or filename, headers (or headers_selector) and rows_selector "
                          f"(missing {', '.join(missing)})")
        return self


OutputType = Literal["string", "number", "boolean", "object", "array", "array[string]", "array[number]",
                     "array[boolean]", "array[object]", "any"]


class OutputSpec(DocumentModel):
    type: OutputType


class CodeVariable(DocumentModel):
    """A value handed to code/script as `inputs[variable]`: from `value_selector`, or a constant `value`."""

    variable: NonEmptyText
    value_selector: ValuePath | None = None
    value: Any = None

    @model_validator(mode="after")
    def _source(self) -> "CodeVariable":
        if self.value_selector is None and "value" not in self.model_fields_set:
            raise problem("needs value_selector (or a constant value)")
        return self


def _non_blank_code(value: str) -> str:
    if not value.strip():
        raise problem("must not be empty")
    return value


class ScriptData(NodeData):
    """JavaScript run inside the page (async body, one global `inputs`, returns an object); `source` is not
    templated; declared `outputs` are type-checked; `timeout` in seconds."""

    type: Literal["script"]
    source: str
    variables: list[CodeVariable] = Field(default_factory=list)
    outputs: dict[str, OutputSpec] = Field(default_factory=dict)
    timeout: Seconds | None = None

    @field_validator("source")
    @classmethod
    def _source_given(cls, value: str) -> str:
        return _non_blank_code(value)


class CodeData(NodeData):
    """JavaScript in an isolated engine (no network, no page); otherwise as `script`."""

    type: Literal["code"]
    code: str
    code_language: str | None = None
    variables: list[CodeVariable] = Field(default_factory=list)
    outputs: dict[str, OutputSpec] = Field(default_factory=dict)
    timeout: Seconds | None = None

    @field_validator("code")
    @classmethod
    def _code_given(cls, value: str) -> str:
        return _non_blank_code(value)

    @field_validator("code_language")
    @classmethod
    def _language(cls, value: str | None) -> str | None:
        if value is not None and value.strip().lower() not in ("javascript", "js"):
            raise problem("must be javascript (code nodes run JavaScript)")
        return value


def _json_object_or_text(value: Any) -> dict[str, Any] | str:
    if isinstance(value, str) or (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
        return value
    raise problem("must be an object (or its JSON text)")


class CdpData(NodeData):
    """One Chrome DevTools Protocol command: `method` such as `Network.enable`, `params` an object (or its
    JSON text, templated)."""

    type: Literal["cdp"]
    method: NonEmptyText
    params: Annotated[dict[str, Any] | str, PlainValidator(_json_object_or_text)] = Field(default_factory=dict)

    @field_validator("method")
    @classmethod
    def _method(cls, value: str) -> str:
        if not re.fullmatch(r"\s*[A-Za-z]+\.[A-Za-z]+\s*", value):
            raise problem('must look like "Domain.method", e.g. "Network.enable"')
        return value


HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


def _headers(value: Any) -> str | dict[str, Any]:
    if isinstance(value, str) or (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
        return value
    raise problem('must be text with one "Name: value" per line (or an object)')


class HttpRequestData(NodeData):
    """An HTTP request: `via: page` (default, a fetch inside the page with its cookies) or `direct`.
    `headers`: one `Name: value` per line. Output `{status_code, body, json}`."""

    type: Literal["http-request"]
    method: str = "GET"
    url: NonEmptyText
    headers: Annotated[str | dict[str, Any], PlainValidator(_headers)] = ""
    body: Any = None
    via: Literal["page", "direct"] = "page"
    timeout: Seconds | None = None

    @field_validator("method")
    @classmethod
    def _method(cls, value: str) -> str:
        if value.strip().upper() not in HTTP_METHODS:
            raise problem(f"must be one of {', '.join(HTTP_METHODS)}")
        return value

    @property
    def http_method(self) -> str:
        return self.method.strip().upper()


class DownloadData(PageNodeData):
    """Download by clicking `locator` or fetching `url`; saved in the run folder as `saveAs` (the original's
    `savePath` is read the same way). Output `{path, name, bytes, mime}`."""

    type: Literal["download"]
    locator: NodeLocator | None = None
    url: Text | None = None
    saveAs: Text | None = None
    savePath: Text | None = None

    @model_validator(mode="after")
    def _target(self) -> "DownloadData":
        if self.locator is None and not (self.url or "").strip():
            raise problem("needs a locator or a url")
        return self

    @property
    def save_name(self) -> str | None:
        return self.saveAs or self.savePath or None


class HandoffData(NodeData):
    """Hand the tab to the person with `message`; `timeout` seconds (default 10 minutes)."""

    type: Literal["handoff"]
    message: Text = ""
    timeout: Seconds | None = None


class CaptchaData(NodeData):
    """Hand the tab to the person while a captcha (known widget or `locator`) is present. `engine` and
    `retries` are the original's fields, accepted and reported: solving is left to the person."""

    type: Literal["captcha"]
    engine: Text | None = None
    retries: NonNegativeInt | None = None
    locator: NodeLocator | None = None
    timeout: Seconds | None = None


NODE_TYPES: dict[str, type[NodeData]] = {
    "start": StartData, "end": EndData, "if-else": IfElseData, "loop": LoopData,
    "goto": GotoData, "click": ClickData, "fill": FillData, "select": SelectData, "press": PressData,
    "scroll": ScrollData, "swipe": SwipeData, "upload": UploadData,
    "wait": WaitData, "extract": ExtractData, "export": ExportData,
    "script": ScriptData, "code": CodeData, "cdp": CdpData, "http-request": HttpRequestData,
    "download": DownloadData,
    "handoff": HandoffData, "captcha": CaptchaData,
}
"""The 22 node types: `data.type` → the model of `data`."""

PAGE_NODE_TYPES = frozenset({"goto", "click", "fill", "select", "press", "scroll", "swipe", "upload", "wait",
                             "download"})


def _data_tag(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if isinstance(kind, str) and kind in NODE_TYPES else None


AnyNodeData = Annotated[
    Union[
        Annotated[StartData, Tag("start")], Annotated[EndData, Tag("end")],
        Annotated[IfElseData, Tag("if-else")], Annotated[LoopData, Tag("loop")],
        Annotated[GotoData, Tag("goto")], Annotated[ClickData, Tag("click")], Annotated[FillData, Tag("fill")],
        Annotated[SelectData, Tag("select")], Annotated[PressData, Tag("press")],
        Annotated[ScrollData, Tag("scroll")], Annotated[SwipeData, Tag("swipe")],
        Annotated[UploadData, Tag("upload")], Annotated[WaitData, Tag("wait")],
        Annotated[ExtractData, Tag("extract")], Annotated[ExportData, Tag("export")],
        Annotated[ScriptData, Tag("script")], Annotated[CodeData, Tag("code")], Annotated[CdpData, Tag("cdp")],
        Annotated[HttpRequestData, Tag("http-request")], Annotated[DownloadData, Tag("download")],
        Annotated[HandoffData, Tag("handoff")], Annotated[CaptchaData, Tag("captcha")],
    ],
    Discriminator(_data_tag, custom_error_type="node_type", custom_error_message="unknown node type"),
]
"""`Node.data`: validated as the model its `type` names."""


# -- nodes, edges, graphs ------------------------------------------------------------------------------------
def _node_id(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


NodeId = Annotated[str, BeforeValidator(_node_id), AfterValidator(_non_blank)]


class Position(DocumentModel):
    x: Number
    y: Number


class Node(DocumentModel):
    id: NodeId
    data: AnyNodeData
    position: Position | None = None

    @property
    def type(self) -> str:
        return self.data.type

    @property
    def title(self) -> str:
        return self.data.title or self.id


class Edge(DocumentModel):
    """`{id?, source, target, sourceHandle?, targetHandle?}`; missing ones are filled with
    `e<i>-<source>-<target>`, `source` and `target` (i: the edge's index in its list)."""

    id: NodeId | None = None
    source: NodeId
    target: NodeId
    sourceHandle: Text | None = None
    targetHandle: Text | None = None


def fill_edge_defaults(edges: list[Edge]) -> None:
    for index, edge in enumerate(edges):
        if edge.id is None:
            edge.id = f"e{index}-{edge.source}-{edge.target}"
        if edge.sourceHandle is None:
            edge.sourceHandle = "source"
        if edge.targetHandle is None:
            edge.targetHandle = "target"


class Graph(DocumentModel):
    """One level of a workflow: the top level, or a loop's body. Structure (ids, edges, cycles, handles) is
    checked by `workflows.document.validate_document`."""

    always_dumped: ClassVar[tuple[str, ...]] = ("nodes", "edges")
    nodes: list[Node] = Field(default_factory=list)
    edges: list[Edge] = Field(default_factory=list)

    @model_validator(mode="after")
    def _defaults(self) -> "Graph":
        fill_edge_defaults(self.edges)
        return self

    def get(self, node_id: str) -> Node | None:
        return next((node for node in self.nodes if node.id == node_id), None)

    def node(self, node_id: str) -> Node:
        """The node with this id at this level; KeyError if there is none."""
        found = self.get(node_id)
        if found is None:
            raise KeyError(f'no node "{node_id}" here')
        return found

    def entry_nodes(self) -> list[Node]:
        """Nodes no edge leads to, in document order."""
        targets = {edge.target for edge in self.edges}
        return [node for node in self.nodes if node.id not in targets]

    def start_node(self) -> Node:
        """The `start` node at the top level; in a loop body, its one entry node (no edge leads to it)."""
        start = next((node for node in self.nodes if node.type == "start"), None)
        if start is not None:
            return start
        entries = self.entry_nodes()
        if len(entries) != 1:
            raise KeyError(f"this graph has {len(entries)} entry nodes, not one")
        return entries[0]

    def successors(self, node_id: str, handle: str | None = None) -> list[str]:
        """Targets of the edges leaving `node_id`, in document order without repeats. For an if-else with a
        `handle` (the matching case_id, or "false"), only the edges whose `sourceHandle` is that handle; for
        any other node (or no handle), every outgoing edge."""
        node = self.get(node_id)
        by_handle = handle is not None and node is not None and node.type == "if-else"
        out: list[str] = []
        for edge in self.edges:
            if edge.source == node_id and (not by_handle or (edge.sourceHandle or "source") == handle) \
                    and edge.target not in out:
                out.append(edge.target)
        return out

    def predecessors(self, node_id: str) -> list[str]:
        out: list[str] = []
        for edge in self.edges:
            if edge.target == node_id and edge.source not in out:
                out.append(edge.source)
        return out


LoopData.model_rebuild()
