"""The base of every node type, the registry of node types, and what a node sees while it runs.

A node type is one class: a subclass of `NodeData` that sets `node_type` declares its fields (pydantic), its
behaviour (`async run(ctx)`) and what the UI shows of it — its `label` (English, marked for Qt's translation
tooling with `QT_TRANSLATE_NOOP("NodeKind", ...)`, translated by the UI under that context), the keys of its
output (`output_keys`, `readable_keys`), its structured fields (`structured_fields`) and how a recording says
a step of its type in words (`recording_words`) — and registers itself in `NODE_TYPES` when the class is
created. Adding a node type is one module plus its translations. The executor (`workflows.engine`) keeps only
the graph walk, the variables, pause/resume and locating; it hands each node a `RunContext`.

A node whose `data` does not fit its type's fields, or whose type is unknown, still loads (as the original
app loads it) as `RawNodeData`: its fields are kept as they came, the document reports a warning, and the
node fails with those problems only if a run reaches it. Pure Python: no Qt here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, NoReturn, Protocol, TypeVar

from pydantic import PrivateAttr

from workflows.nodes.structured import Spec
from workflows.nodes.values import DocumentModel, Seconds, Text

if TYPE_CHECKING:
    from workflows.envelope import Envelope, Result
    from workflows.nodes.conditions import Condition
    from workflows.operations import Op
    from workflows.nodes.locators import NodeLocator
    from workflows.ports import Locator
    from workflows.template import Variables

R = TypeVar("R", bound="Result")

NODE_TYPES: dict[str, type["NodeData"]] = {}
"""`data.type` → the class of that node type, filled as the classes are defined."""

LABEL_CONTEXT = "NodeKind"
"""The translation context of node labels (the literal in each `QT_TRANSLATE_NOOP` call must be this)."""
MAX_TEXT_IN_WORDS = 40


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:  # noqa: N802 (the name Qt's lupdate collects)
    """Mark `text` for Qt's translation tooling and return it as it is. `pyside6-lupdate` (run over app/ and
    workflows/nodes/ by packaging/compile_translations.py) collects it into the catalogue under `context`;
    the UI translates it there (app/ui/node_kinds.py). No Qt is imported: this is only a marker."""
    return text


SUMMARY_CONTEXT = "NodeSummary"
"""The translation context of the node types' summaries (`NodeData.summary`)."""

FIELD_CONTEXT = "NodeField"
"""The translation context of the fields' labels (FIELD_LABELS)."""

FIELD_LABELS: dict[str, str] = {
    "body": QT_TRANSLATE_NOOP("NodeField", "Body"),
    "button": QT_TRANSLATE_NOOP("NodeField", "Mouse button"),
    "cases": QT_TRANSLATE_NOOP("NodeField", "Cases"),
    "case_id": QT_TRANSLATE_NOOP("NodeField", "Case id"),
    "code": QT_TRANSLATE_NOOP("NodeField", "Code"),
    "code_language": QT_TRANSLATE_NOOP("NodeField", "Language"),
    "comparison_operator": QT_TRANSLATE_NOOP("NodeField", "Comparison"),
    "conditions": QT_TRANSLATE_NOOP("NodeField", "Conditions"),
    "count": QT_TRANSLATE_NOOP("NodeField", "Clicks"),
    "data_selector": QT_TRANSLATE_NOOP("NodeField", "Data from"),
    "default": QT_TRANSLATE_NOOP("NodeField", "Default"),
    "direction": QT_TRANSLATE_NOOP("NodeField", "Direction"),
    "distance": QT_TRANSLATE_NOOP("NodeField", "Distance"),
    "dx": QT_TRANSLATE_NOOP("NodeField", "Across (px)"),
    "dy": QT_TRANSLATE_NOOP("NodeField", "Down (px)"),
    "engine": QT_TRANSLATE_NOOP("NodeField", "Engine"),
    "entry": QT_TRANSLATE_NOOP("NodeField", "Entry"),
    "filename": QT_TRANSLATE_NOOP("NodeField", "File name"),
    "flags": QT_TRANSLATE_NOOP("NodeField", "Flags"),
    "followNewTab": QT_TRANSLATE_NOOP("NodeField", "Follow the new tab"),
    "format": QT_TRANSLATE_NOOP("NodeField", "Format"),
    "group": QT_TRANSLATE_NOOP("NodeField", "Group"),
    "headers": QT_TRANSLATE_NOOP("NodeField", "Headers"),
    "headers_selector": QT_TRANSLATE_NOOP("NodeField", "Headers from"),
    "items_selector": QT_TRANSLATE_NOOP("NodeField", "Items from"),
    "label": QT_TRANSLATE_NOOP("NodeField", "Label"),
    "locator": QT_TRANSLATE_NOOP("NodeField", "Element"),
    "max": QT_TRANSLATE_NOOP("NodeField", "At most"),
    "message": QT_TRANSLATE_NOOP("NodeField", "Message"),
    "method": QT_TRANSLATE_NOOP("NodeField", "Method"),
    "mode": QT_TRANSLATE_NOOP("NodeField", "Mode"),
    "offset": QT_TRANSLATE_NOOP("NodeField", "Offset"),
    "native": QT_TRANSLATE_NOOP("NodeField", "Native select"),
    "option": QT_TRANSLATE_NOOP("NodeField", "Option"),
    "options": QT_TRANSLATE_NOOP("NodeField", "Options"),
    "outputs": QT_TRANSLATE_NOOP("NodeField", "Outputs"),
    "params": QT_TRANSLATE_NOOP("NodeField", "Parameters"),
    "paths": QT_TRANSLATE_NOOP("NodeField", "Files"),
    "pattern": QT_TRANSLATE_NOOP("NodeField", "Pattern"),
    "required": QT_TRANSLATE_NOOP("NodeField", "Required"),
    "retries": QT_TRANSLATE_NOOP("NodeField", "Retries"),
    "rows_selector": QT_TRANSLATE_NOOP("NodeField", "Rows from"),
    "saveAs": QT_TRANSLATE_NOOP("NodeField", "Save as"),
    "savePath": QT_TRANSLATE_NOOP("NodeField", "Save to"),
    "shortcut": QT_TRANSLATE_NOOP("NodeField", "Keys"),
    "shotHeight": QT_TRANSLATE_NOOP("NodeField", "Screenshot height"),
    "shotWidth": QT_TRANSLATE_NOOP("NodeField", "Screenshot width"),
    "source": QT_TRANSLATE_NOOP("NodeField", "Script"),
    "state": QT_TRANSLATE_NOOP("NodeField", "Wait until"),
    "text": QT_TRANSLATE_NOOP("NodeField", "Text"),
    "timeout": QT_TRANSLATE_NOOP("NodeField", "Timeout"),
    "title": QT_TRANSLATE_NOOP("NodeField", "Title"),
    "type": QT_TRANSLATE_NOOP("NodeField", "Type"),
    "until": QT_TRANSLATE_NOOP("NodeField", "Until"),
    "url": QT_TRANSLATE_NOOP("NodeField", "Address"),
    "value": QT_TRANSLATE_NOOP("NodeField", "Value"),
    "value_selector": QT_TRANSLATE_NOOP("NodeField", "Value from"),
    "variable": QT_TRANSLATE_NOOP("NodeField", "Variable"),
    "variable_selector": QT_TRANSLATE_NOOP("NodeField", "Variable"),
    "variables": QT_TRANSLATE_NOOP("NodeField", "Variables"),
    "via": QT_TRANSLATE_NOOP("NodeField", "Input by"),
    "x": QT_TRANSLATE_NOOP("NodeField", "x"),
    "y": QT_TRANSLATE_NOOP("NodeField", "y"),
}
"""A person's name for each field of the node types (and of their structured lists' records), in English; the
UI translates it under FIELD_CONTEXT (app/ui/node_kinds.py `field_label`). The document keeps the field's key."""


def clip(text: str, size: int = MAX_TEXT_IN_WORDS) -> str:
    """Text shortened for a step's words: at most `size` characters, with … when cut."""
    return text if len(text) <= size else text[: size - 1] + "…"


class RecordedStep(Protocol):
    """What a recording knows of a step besides its node's data (workflows.recording.Step)."""

    target: str  # what the person acted on, in words: `textbox 'Full name'`
    secret: str | None  # the start variable of a secret field
    input_name: str | None  # the start variable a made input takes its value from


def target_phrase(step: RecordedStep) -> str:
    """" textbox 'Full name'" (with its leading space), or nothing when the step has no target."""
    return f" {step.target}" if step.target else ""


class NodeRef(Protocol):
    """A node as a running node sees it (workflows/nodes/graph.py `Node`)."""

    id: str
    data: Any


class GraphView(Protocol):
    """A graph level as a running node sees it (workflows/nodes/graph.py `Graph`)."""

    def outgoing(self, node_id: str, handle: str = "source") -> list[str]: ...

    def get(self, node_id: str) -> Any: ...


class NodeFailed(Exception):
    """A node could not do its job; the run ends there with this message (and a screenshot when given)."""

    def __init__(self, node: NodeRef, message: str, screenshot: str | None = None) -> None:
        super().__init__(message)
        self.node = node
        self.screenshot = screenshot


class RunContext(Protocol):
    """What a running node may use: its place, the variable pool, the operations and the executor's help."""

    node: NodeRef
    graph: GraphView
    variables: "Variables"
    tab_id: str
    env_id: str

    def fail(self, message: str, screenshot: str | None = None) -> NoReturn: ...

    def render(self, text: Any) -> str: ...

    async def op(self, op: Op[R], params: dict[str, Any], *, resumable: bool = True) -> Envelope[R]:
        """Call an operation on the run's tab; a failure fails the node (`NodeFailed`), so the answer is ok."""
        ...

    async def try_op(self, op: Op[R], params: dict[str, Any]) -> Envelope[R]:
        """Call an operation on the run's tab; its answer whatever it is."""
        ...

    async def locate(self, locator: "NodeLocator", timeout: float) -> dict[str, Any]: ...

    def render_locator(self, locator: "NodeLocator | Locator") -> dict[str, Any]: ...

    def acting_timeout_ms(self) -> int: ...

    async def wait_presence(self, locator: dict[str, Any], present: bool, timeout: float) -> bool: ...

    async def condition(self, condition: "Condition") -> bool: ...

    async def code(self, source: str, inputs: dict[str, Any], timeout: float) -> Any: ...

    async def run_pass(self, body: GraphView, index: int) -> dict[str, Any]: ...

    def take_handle(self, handle: str) -> None: ...

    def collect_outputs(self, outputs: dict[str, Any]) -> None: ...

    def add_file(self, path: str) -> None: ...

    async def keep(self, path: str | None) -> str | None: ...

    async def take_file(self, path: str, name: str | None = None) -> str: ...

    @property
    def folder(self) -> Any: ...

    @property
    def default_timeout(self) -> float: ...


class NodeData(DocumentModel):
    """What every node's `data` has: its `type` and an optional `title`.

    Class attributes of a node type: `node_type` (its `data.type`), `category` (flow, page, wait & extract,
    data & debug, people), `produces_output` (the original's rule for a run's or a loop pass's result: the
    output of the last node that produced one counts), `label` (the name the UI shows, in English: the type
    itself unless declared, `QT_TRANSLATE_NOOP("NodeKind", ...)`), `output_keys` (what later nodes can read
    of its output, offered as `{{#node.key#}}`) and `structured_fields` (nested fields edited as records)."""

    always_dumped: ClassVar[tuple[str, ...]] = ("type",)
    node_type: ClassVar[str] = ""
    category: ClassVar[str] = ""
    produces_output: ClassVar[bool] = False
    label: ClassVar[str] = ""
    summary: ClassVar[str] = ""  # what the node does, in a sentence for a person (QT_TRANSLATE_NOOP("NodeSummary"))
    output_keys: ClassVar[tuple[str, ...]] = ()
    structured_fields: ClassVar[dict[str, Spec]] = {}
    type: str
    title: Text | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kind = cls.__dict__.get("node_type")
        if kind:
            if kind in NODE_TYPES:
                raise TypeError(f"node type {kind!r} is declared twice")
            if not cls.__dict__.get("label"):
                cls.label = kind  # shown as it is written in the file (and not translated)
            NODE_TYPES[kind] = cls

    @classmethod
    def readable_keys(cls, data: dict[str, Any]) -> list[str]:
        """The keys of this node's output that later nodes can read, for a node with this `data` (saved JSON):
        `output_keys`, unless the node declares its outputs in its data (code, script, end, start)."""
        return list(cls.output_keys)

    @classmethod
    def recording_words(cls, data: dict[str, Any], step: RecordedStep) -> str:
        """A recorded step of this type in words, as the Recording panel lists it (`data`: the node's data)."""
        return cls.node_type

    def lint(self) -> list[str]:
        """Things a person should know about this node that do not stop it from loading."""
        return []

    @property
    def follows_new_tab(self) -> bool:
        """The rest of the run acts in a tab this node's operation opens (a recorded click that opened one)."""
        return False

    async def run(self, ctx: RunContext) -> Any:
        """Do the node's job; return its output (None: no output)."""
        ctx.fail(f"the node type {self.type!r} cannot run")


class PageNodeData(NodeData):
    """A node that acts on the page; `timeout` (seconds) overrides the run's default wait."""

    category: ClassVar[str] = "page"
    timeout: Seconds | None = None


class RawNodeData(NodeData):
    """A node kept as it came because its type is unknown or its fields do not fit; it fails when reached."""

    _problems: list[str] = PrivateAttr(default_factory=list)
    _errors: list[Any] = PrivateAttr(default_factory=list)

    @classmethod
    def with_problems(cls, data: dict[str, Any], problems: list[str]) -> "RawNodeData":
        raw = cls.model_validate(data)
        raw._problems = list(problems)
        return raw

    @property
    def problems(self) -> list[str]:
        return list(self._problems)

    async def run(self, ctx: RunContext) -> Any:
        if self.type not in NODE_TYPES:
            ctx.fail(f"the node type {self.type!r} is not known here, so this node cannot run (known: "
                     f"{', '.join(NODE_TYPES)})")
        ctx.fail("this node cannot run: " + "; ".join(self._problems))
