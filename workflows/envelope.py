"""The envelope every operation answers with, as one typed model (no Qt here).

On the wire (MCP's structured content, the CLI's `--json`, the original BrowserPilot's agents) an envelope is
one flat JSON object: `{ok, control, tabId?, takenOver?, dialogs?, newTabs?, ...data, error?, code?,
errorShot?, notes?}`. In process an envelope is an `Envelope[T]`, where `T` is the operation's result model
(`Operation.result`): the bookkeeping is fields (`taken_over`, `new_tabs`, `error_shot`), the rest is the typed
`data` on success, and on failure what the error added (`problems`, `secret`, `site`, a failed run's `run`…) is
`details`. An operation on a tab builds its `Envelope` around the model its tab's part answered
(app/ops/page_session.py), which the engine reads as it is; `Envelope.wire` makes the flat object for the
wire, and `Envelope.parse` reads one back (an operation that still answers a flat object, a test's check).

`Result` is the base of every result model: camelCase names outside, and keys a model does not name are kept
(a result may carry more than its model promises, never less). `OpenResult` is any object: no operation of the
app declares it (a test holds that every one has a model of its own); a stand-in operation may.

`wire_schema` is the JSON schema of the flat form for a result model, what MCP publishes as a tool's
`outputSchema`: the data's properties beside the envelope's, the data's required names required only when
`ok` is true (a failure carries none of them).
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

Control = Literal["agent", "handoff", "shared"]

# The wire names of the envelope's own keys; every other key of a flat envelope is the operation's.
ENVELOPE_KEYS = ("ok", "control", "tabId", "takenOver", "dialogs", "newTabs", "error", "code", "errorShot", "notes")


class Result(BaseModel):
    """Base of an operation's result model (the envelope's data)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow", defer_build=True)

    def wire(self) -> dict[str, Any]:
        """The data as it came on the wire: its names, the keys it had (none added for unset fields), the keys
        the model does not name."""
        return self.model_dump(by_alias=True, exclude_unset=True)


class OpenResult(Result):
    """An operation's result whose shape is not modelled yet: any JSON object."""


T = TypeVar("T", bound=Result)


class Envelope(BaseModel, Generic[T]):
    """One operation's answer, read from its flat wire form by `Envelope.parse`."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    ok: bool
    control: Control | None = None
    tab_id: str | None = None
    taken_over: bool = False  # a person pressed Take over since the tab's last result
    dialogs: list[dict[str, Any]] = Field(default_factory=list)  # JavaScript dialogs answered meanwhile
    new_tabs: list[str] = Field(default_factory=list)  # tabs the page opened meanwhile, oldest first
    error: str | None = None
    code: str | None = None
    error_shot: str | None = None  # a PNG of the tab when the failure happened
    notes: list[str] = Field(default_factory=list)
    data: T | None = None  # the operation's result, when ok
    details: dict[str, Any] = Field(default_factory=dict)  # what a failure added besides its error

    @property
    def result(self) -> T:
        """The data of an answer that is ok (a `ValueError` naming the error otherwise)."""
        if not self.ok or self.data is None:
            raise ValueError(f"the operation failed: {self.error}")
        return self.data

    def wire(self) -> dict[str, Any]:
        """The flat wire form (see the module's docstring): the envelope's keys that say something, the data's
        (or, on failure, the details') beside them."""
        flat: dict[str, Any] = {"ok": self.ok, "control": self.control}
        if self.tab_id is not None:
            flat["tabId"] = self.tab_id
        if self.taken_over or "taken_over" in self.model_fields_set:  # the original's run results always say it
            flat["takenOver"] = self.taken_over
        if self.dialogs:
            flat["dialogs"] = self.dialogs
        if self.new_tabs:
            flat["newTabs"] = self.new_tabs
        if self.error is not None:
            flat["error"] = self.error
        if self.code is not None:
            flat["code"] = self.code
        if self.ok and self.data is not None:
            flat.update(self.data.wire())
        flat.update(self.details)
        if self.error_shot is not None:
            flat["errorShot"] = self.error_shot
        if self.notes:
            flat["notes"] = self.notes
        return flat

    @classmethod
    def failed(cls, error: str, code: str) -> Envelope[T]:
        """A failure made before any operation ran (an unknown operation, parameters that do not fit)."""
        return cls.model_validate({"ok": False, "error": error, "code": code})

    @classmethod
    def parse(cls, wire: dict[str, Any], result: type[T], *, strict: bool = False) -> Envelope[T]:
        """Read a flat envelope; the data is validated into `result` (a `ValidationError` when it does not fit;
        `strict`: as JSON Schema would, no `1` for a flag, no `"3"` for a number)."""
        own = {key: wire[key] for key in ENVELOPE_KEYS if key in wire and wire[key] is not None}
        rest = {key: value for key, value in wire.items() if key not in ENVELOPE_KEYS}
        if wire.get("ok"):
            data = result.model_validate(rest, strict=strict)
            return cls[result].model_validate({**own, "data": data})  # type: ignore[index]
        return cls[result].model_validate({**own, "details": rest})  # type: ignore[index]


def envelope_properties() -> dict[str, Any]:
    """The JSON schema of the envelope's own keys on the wire."""
    schema = Envelope[OpenResult].model_json_schema(by_alias=True)
    properties = dict(schema["properties"])
    for key in ("data", "details"):
        properties.pop(key)
    return properties


def wire_schema(result: type[Result]) -> dict[str, Any]:
    """The flat envelope's JSON schema for `result` (see the module's docstring); shared types under `$defs`."""
    data = result.model_json_schema(by_alias=True, mode="serialization")
    properties = {**envelope_properties(), **data.get("properties", {})}
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": ["ok"]}
    if data.get("required"):
        schema["if"] = {"properties": {"ok": {"const": True}}}
        schema["then"] = {"required": data["required"]}
    if data.get("$defs"):
        schema["$defs"] = data["$defs"]
    return schema
