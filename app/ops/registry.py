"""The one registry of operations that the GUI, the command line, the MCP server and the engine call.

An operation is a typed async function with a pydantic parameter model. `OperationRegistry.call` is the
single door: it accepts the original BrowserPilot's call forms (`app.ops.compat`), validates parameters
(unknown names are rejected with the list of valid ones), runs the function and wraps what it returns in the
envelope `{ok, control, ...data, notes?}` (an operation on a tab builds its own `Envelope`, which `call` sends
flat and the typed `run` hands over as it is); failures become `{ok: false, control, error}` with one line a
person or a model can act on. `notes` says which form won when a call gave both, and similar remarks.

An operation returns its result model (`Operation.result`), or a whole `Envelope` of it when it has the
envelope's own fields to say (a page operation: the tab, its control, a take-over, dialogs, new tabs). The
registry holds the answer as a typed `Envelope` (`run`, the engine's and the GUI's door); `call` writes it in its
flat wire form once, at the edge (MCP, the command line).

A caller whose secrets are bound to their sites (an agent run, a workflow run: `OpContext.secrets`) gets a
call refused, before the operation runs, when a parameter other than the operation's `secret_field` names
one of them (code `secret_refused`, with the secret, the tool and the site; workflows/secret_binding.py).
"""

from __future__ import annotations

import logging
import os
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Generic, TypeAlias, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError
from pydantic.alias_generators import to_camel

from app.ops import compat
from app.ops.context import OpContext
from plumbing import loggers
from workflows.envelope import ENVELOPE_KEYS, Envelope, OpenResult, Result
from workflows.operations import Op, OperationsPort
from workflows.secret_binding import SecretRefused, site_of

log = logging.getLogger(loggers.OPS)

CHECK_RESULTS_VARIABLE = "BROWSERPILOT_CHECK_RESULTS"

P = TypeVar("P", bound="Params")
R = TypeVar("R", bound=Result)


class Params(BaseModel):
    """Base of every parameter model: camelCase names outside, unknown names refused."""

    # defer_build: an operation's validator is built on its first call or listing, not at start-up (the app
    # answers its first call sooner; bench/mcp_latency.py, cold start).
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", defer_build=True)
    # Set by the registry when x/y were given as pixels on a screenshot (the original's shotWidth/...).
    _shot: compat.Shot | None = PrivateAttr(default=None)

    @property
    def shot(self) -> compat.Shot | None:
        return self._shot


class OpError(Exception):
    """An operation failed in a way the caller should hear about; `data` is merged into the envelope."""

    def __init__(self, message: str, **data: Any) -> None:
        super().__init__(message)
        self.data = data


# What an operation's function returns: its result model, or an `Envelope` of it (an operation on a tab: around
# its part's result model, app/ops/page_session.py); a flat object is read as the wire form of its data. (A
# string: making `Envelope[Any]` builds a pydantic class, ~50 ms of every start.)
Answer: TypeAlias = "Result | Envelope[Any] | dict[str, Any]"
OpFunc = Callable[[OpContext, Any], Awaitable[Answer]]

# Whether the operation running in this task only reads (`Operation.read_only`): `app.ops.page_session.on_page`
# does not pause a person's recording for it (reading sends the page no input).
reading_only: ContextVar[bool] = ContextVar("reading_only", default=False)


@dataclass(frozen=True)
class Operation(Generic[P, R]):
    name: str
    params: type[P]
    func: Callable[[OpContext, P], Awaitable[Answer]]
    description: str
    # What it answers when ok: the `data` of its `Envelope` (workflows/results*.py, app/ops/results.py). Every
    # operation of the app names a model of its own (tests/unit/app/ops/test_registry.py).
    result: type[R] = OpenResult  # type: ignore[assignment]
    read_only: bool = False
    destructive: bool = False
    needs_browser: bool = False
    # The parameter whose `<secret:name>` the operation itself fills in, where the secret's binding allows
    # (the text typed or the option chosen); a bound secret anywhere else refuses the call.
    secret_field: str | None = None
    # The tool group it is listed in (app/catalog/profiles.py GROUPS: core, network, recording, …): which MCP clients
    # and the built-in agent see it without asking. Every operation names one (tests/unit/app/ops/test_registry.py).
    group: str | None = None

    def parameter_names(self) -> list[str]:
        return [f.alias or name for name, f in self.params.model_fields.items()]


def operation(
    name: str,
    params: type[P],
    result: type[R],
    *,
    read_only: bool = False,
    destructive: bool = False,
    needs_browser: bool = False,
    secret_field: str | None = None,
    group: str | None = None,
) -> Callable[[Callable[[OpContext, P], Awaitable[Any]]], Operation[P, R]]:
    """Declare an operation: its parameters, its result model; the function's docstring is its description."""

    def wrap(func: Callable[[OpContext, P], Awaitable[Any]]) -> Operation[P, R]:
        return Operation(
            name=name,
            params=params,
            func=func,
            description=(func.__doc__ or "").strip(),
            result=result,
            read_only=read_only,
            destructive=destructive,
            needs_browser=needs_browser,
            secret_field=secret_field,
            group=group,
        )

    return wrap


def _nested_model(model: type[BaseModel], path: tuple[Any, ...]) -> type[BaseModel] | None:
    """The model of the object at `path` (field names or aliases) inside `model`, through Optional and unions."""
    for part in path:
        field_info = next((f for name, f in model.model_fields.items() if part in (name, f.alias)), None)
        if field_info is None:
            return None
        pending, found = [field_info.annotation], None
        while pending and found is None:
            kind = pending.pop(0)
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                found = kind
            else:
                pending.extend(get_args(kind))
        if found is None:
            return None
        model = found
    return model


def describe_validation_error(op: Operation[Any, Any], exc: ValidationError) -> str:
    for err in exc.errors():  # an unknown key inside an object parameter (a locator's, say): name the valid keys
        if err["type"] == "extra_forbidden" and len(err["loc"]) > 1:
            inner = _nested_model(op.params, tuple(err["loc"][:-1]))
            if inner is not None:
                where = ".".join(str(part) for part in err["loc"][:-1])
                valid = ", ".join(f.alias or name for name, f in inner.model_fields.items())
                return f"unknown key {str(err['loc'][-1])!r} in {where!r} for {op.name}; valid keys: {valid}"
    unknown = [str(err["loc"][0]) for err in exc.errors() if err["type"] == "extra_forbidden" and len(err["loc"]) == 1]
    if unknown:
        names = ", ".join(repr(name) for name in unknown)
        valid = ", ".join(op.parameter_names()) or "none"
        return f"unknown parameter {names} for {op.name}; valid parameters: {valid}"
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "parameters"
    if first["type"] == "missing":
        return f"{op.name} needs the parameter {where!r}"
    return f"invalid parameter {where!r} for {op.name}: {first['msg']}"


@dataclass
class OperationRegistry:
    operations: dict[str, Operation[Any, Any]] = field(default_factory=dict)
    # Validate every answer against its operation's result model, and fail the call (code `invalid_result`)
    # when it does not fit: on in the tests (BROWSERPILOT_CHECK_RESULTS=1, tests/conftest.py), off in use.
    check_results: bool = field(default_factory=lambda: os.environ.get(CHECK_RESULTS_VARIABLE) == "1")

    def add(self, *ops: Operation[Any, Any]) -> None:
        for op in ops:
            if op.name in self.operations:
                raise ValueError(f"operation {op.name} is registered twice")
            self.operations[op.name] = op

    def names(self) -> list[str]:
        return sorted(self.operations)

    def get(self, name: str) -> Operation[Any, Any]:
        return self.operations[name]

    async def call(self, ctx: OpContext, name: str, raw: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one operation by name with a caller's JSON (the original BrowserPilot's call forms accepted) and
        return its envelope in its wire form. Never raises for a caller's mistake."""
        op = self.operations.get(name)
        if op is None:
            return failure(f"unknown operation {name!r}; known operations: {', '.join(self.names())}",
                           code="unknown_operation")
        try:
            accepted = compat.accept(op.params, raw or {})
            params = op.params.model_validate(accepted.params)
        except compat.CompatError as exc:
            return failure(f"invalid parameters for {op.name}: {exc}", code="invalid_parameters")
        except ValidationError as exc:
            return failure(describe_validation_error(op, exc), code="invalid_parameters")
        params._shot = accepted.shot
        return (await self._answer(ctx, op, params, accepted.notes)).wire()

    async def run(self, ctx: OpContext, op: Operation[P, R], params: P | dict[str, Any]) -> Envelope[R]:
        """Run one operation in process, typed: its parameters as its `Params` model (or a dict of its own
        names, validated; the original's call forms are not taken here: they are rewritten at the MCP and
        command-line edge), its answer as an `Envelope` of its result model. The same door as `call`: the
        same checks, the same refusal of bound secrets."""
        if not isinstance(params, BaseModel):
            try:
                params = op.params.model_validate(params)
            except ValidationError as exc:
                return Envelope[op.result].failed(describe_validation_error(op, exc),  # type: ignore[name-defined]
                                                  code="invalid_parameters")
        return await self._answer(ctx, op, params, [])

    def port(self, ctx: OpContext) -> OperationsPort:
        """The typed call as a workflow run's `OperationsPort` (workflows/operations.py), acting with `ctx`: the
        engine names an operation by its `Op` and reads the answer as that `Op`'s result model."""

        async def call(op: Op[R], params: dict[str, Any]) -> Envelope[R]:
            registered = self.operations.get(op.name)
            if registered is None:  # an app without that part (a worker has no model to heal with, say)
                return Envelope[op.result].failed(f"unknown operation {op.name!r}",  # type: ignore[name-defined]
                                                  code="unknown_operation")
            return await self.run(ctx, registered, params)

        return call

    async def _answer(self, ctx: OpContext, op: Operation[Any, R], params: Params, notes: list[str]) -> Envelope[R]:
        """Run `op` behind the door's checks; its answer, or the failure, as a typed envelope (`notes`: the
        call's own, before the operation's)."""
        name = op.name
        if op.needs_browser and ctx.browser is None:
            return _failed(op, f"{name} needs the running app with its browser; start `browserpilot` first",
                           notes, code="no_browser")
        if ctx.secrets:
            refused = _secret_refusal(ctx, op, params)
            if refused is not None:
                log.info("%s refused: %s", name, refused)
                return _failed(op, str(refused), notes, code=refused.code, secret=refused.secret,
                               site=refused.site, tool=name)
        reading = reading_only.set(op.read_only)
        try:
            answer = await op.func(ctx, params)
        except OpError as exc:
            log.info("%s failed: %s", name, exc)
            return _failed(op, str(exc), notes, **{"code": "failed", **exc.data})
        except ctx.page_errors as exc:  # a page error outside `on_page` (a recording's, say)
            log.info("%s failed: %s", name, exc)
            return _failed(op, str(exc), notes, code=getattr(exc, "code", "page_error"))
        except ctx.expected_errors as exc:
            log.info("%s failed: %s", name, exc)
            problems = getattr(exc, "problems", None)  # a document's: every problem, each naming its place
            return _failed(op, str(exc), notes, code=expected_error_code(exc),
                           **({"problems": list(problems)} if isinstance(problems, list) else {}))
        finally:
            reading_only.reset(reading)
        try:
            envelope = self._typed(op, answer)
        except (ValidationError, TypeError) as exc:
            log.error("%s answered outside its result model %s: %s", name, op.result.__name__, exc)
            return _failed(op, f"{name} answered outside its result model {op.result.__name__}: {exc}", notes,
                           code="invalid_result")
        if notes:
            envelope.notes = notes + envelope.notes
        return envelope

    def _typed(self, op: Operation[Any, R], answer: Answer) -> Envelope[R]:
        """An operation's answer as its typed envelope. With `check_results` (the tests) the data must fit the
        result model as JSON Schema would read it (a `ValidationError` or `TypeError` otherwise); without, data
        that does not fit is handed over unchecked, with a warning: a run does not stop on it."""
        if isinstance(answer, dict):
            wire = {"ok": True, "control": None, **answer}
            return Envelope.parse(wire, op.result, strict=True) if self.check_results else read_envelope(wire, op)
        # Not `Envelope[op.result](...)`: a parametrised envelope is a pydantic class of its own, built on first use
        envelope = answer if isinstance(answer, Envelope) else Envelope.model_construct(ok=True, data=answer)
        if self.check_results:
            if not isinstance(envelope.data, op.result):
                raise TypeError(f"{type(envelope.data).__name__} is not a {op.result.__name__}")
            op.result.model_validate(envelope.data.wire(), strict=True)
        return envelope


def read_envelope(wire: dict[str, Any], op: Operation[Any, R]) -> Envelope[R]:
    """A wire envelope of `op` as its typed `Envelope`. Data that does not fit the result model (a bug the
    tests' `check_results` catches) is still handed over, unchecked, with a warning: a run does not stop on it."""
    try:
        return Envelope.parse(wire, op.result)
    except ValidationError as exc:
        log.warning("%s answered outside its result model %s: %s", op.name, op.result.__name__, exc)
        rest = {key: value for key, value in wire.items() if key not in ENVELOPE_KEYS}
        own = {key: wire[key] for key in ENVELOPE_KEYS if wire.get(key) is not None}
        return Envelope[op.result].model_validate(  # type: ignore[name-defined]
            {**own, "data": op.result.model_construct(**rest)} if wire.get("ok") else {**own, "details": rest})


def _failed(op: Operation[Any, R], message: str, notes: list[str], **data: Any) -> Envelope[R]:
    """A failure of `op` as its typed envelope: the call's notes first, then the operation's own."""
    envelope = read_envelope(failure(message, **data), op)
    if notes:
        envelope.notes = notes + envelope.notes
    return envelope


def _secret_refusal(ctx: OpContext, op: Operation[Any, Any], params: Params) -> SecretRefused | None:
    """Why the call may not run with the caller's bound secrets (see the module's docstring), or None."""
    assert ctx.secrets is not None
    values = {name: getattr(params, name) for name in type(params).model_fields}
    tab_id = values.get("tab_id") if isinstance(values.get("tab_id"), str) else None
    url = values.get("url") if isinstance(values.get("url"), str) else None
    if url is not None:  # where it would have gone (what precedes a secret in the address)
        site = site_of(url.split("<secret:")[0])
    else:  # the tab's page
        state = ctx.browser.tab_state(tab_id) if ctx.browser is not None and tab_id else None
        site = site_of(state[0]) if state else None
    return ctx.secrets.refuse_outside(op.name, {name: _plain(value) for name, value in values.items()},
                                      op.secret_field, tab_id, site)


def _plain(value: Any) -> Any:
    """A parameter's value as JSON-ready data (a locator model as its dict)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def expected_error_code(exc: Exception) -> str:
    """The `code` of a caller's or the disk's mistake: what kind of thing was wrong."""
    own = getattr(exc, "code", None)
    if isinstance(own, str):
        return own
    if isinstance(exc, LookupError):
        return "not_found"
    return {"EnvError": "invalid_environment", "StoreError": "store_error", "TabBusyError": "tab_busy",
            "DocumentError": "invalid_document", "RunError": "run_not_started", "VariableError": "invalid_input",
            "GroupError": "invalid_group"}.get(type(exc).__name__, "failed")


def failure(message: str, **data: Any) -> dict[str, Any]:
    envelope: dict[str, Any] = {"ok": False, "control": None, "error": message}
    envelope.update(data)
    return envelope
