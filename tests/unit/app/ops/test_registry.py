"""The operations registry: one door, one envelope, clear errors for bad parameters."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.catalog.tools import ToolCatalog
from app.mcp.service import McpService
from app.ops import OpContext, Operation, OperationRegistry, Params, editor_ops, env_ops
from app.ops.results import EnvResult
from app.wiring.registry import build_registry
from plumbing.datadir import DataDir
from app.stores.settings import SettingsStore
from envs.store import EnvStore
from workflows.envelope import Envelope, OpenResult, Result
from workflows.operations import ENGINE_OPERATIONS, TAB_LIST, Op
from workflows.results import ClickResult, TabListResult


def call(tmp_path: Path, name: str, params: dict[str, object] | None = None) -> dict[str, object]:
    data = DataDir(tmp_path)
    ctx = OpContext(data=data, envs=EnvStore(data))
    return asyncio.run(build_registry().call(ctx, name, params))


def test_success_envelope(tmp_path: Path) -> None:
    result = call(tmp_path, "env_create", {"name": "Work", "remark": "x"})
    assert result["ok"] is True and result["control"] is None
    assert result["environment"]["name"] == "Work"  # type: ignore[index]


def test_unknown_parameter_lists_the_valid_ones(tmp_path: Path) -> None:
    result = call(tmp_path, "env_create", {"name": "Work", "colour": "red"})
    assert result == {"ok": False, "control": None,
                      "error": "unknown parameter 'colour' for env_create; valid parameters: name, remark, userAgent, languages, "
                               "timezone, geolocation",
                      "code": "invalid_parameters"}


def test_missing_parameter_and_unknown_operation(tmp_path: Path) -> None:
    assert call(tmp_path, "env_update", {})["error"] == "env_update needs the parameter 'env'"
    result = call(tmp_path, "env_explode")
    assert result["ok"] is False and "unknown operation 'env_explode'" in str(result["error"])
    assert "env_list" in str(result["error"])


def test_domain_errors_become_failed_envelopes(tmp_path: Path) -> None:
    result = call(tmp_path, "env_delete", {"env": "env-default"})
    assert result["ok"] is False and "cannot be deleted" in str(result["error"])


def test_browser_operations_say_they_need_the_app(tmp_path: Path) -> None:
    result = call(tmp_path, "env_open", {"env": "env-default"})
    assert result["ok"] is False and "needs the running app" in str(result["error"])


def test_every_operation_declares_its_own_result_model(tmp_path: Path) -> None:
    """Every operation the app registers (the registry's, the GUI's editor_open, the MCP server's app_status) and
    MCP's tools_enable say what they answer: a model of their own, never the shapeless `OpenResult`."""
    data = DataDir(tmp_path)
    registry = build_registry()
    registry.add(*editor_ops.OPERATIONS)
    McpService(data, registry, OpContext(data=data, envs=EnvStore(data)), SettingsStore(data))  # adds app_status
    catalog = ToolCatalog(registry)
    names = catalog.names()
    assert {"editor_open", "app_status", "tools_enable", "page_inspect", "agent_read"} <= set(names)
    assert len(names) >= 100
    for name in names:
        op = catalog.operation(name)
        assert op is not None and issubclass(op.result, Result), name
    untyped = [name for name in names if catalog.operation(name).result is OpenResult]
    assert untyped == []


def test_the_typed_call_reads_the_envelope_as_fields(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    ctx = OpContext(data=data, envs=EnvStore(data))
    registry = build_registry()
    created = asyncio.run(registry.run(ctx, env_ops.env_create, env_ops.EnvCreateParams(name="Work")))
    assert created.ok and isinstance(created.data, EnvResult)
    assert created.data.environment.name == "Work" and created.data.env.startswith("env-")
    refused = asyncio.run(registry.run(ctx, env_ops.env_delete, {"env": "env-default"}))
    assert not refused.ok and refused.data is None and "cannot be deleted" in str(refused.error)
    unknown = asyncio.run(registry.run(ctx, env_ops.env_create, {"name": "X", "colour": "red"}))
    assert unknown.code == "invalid_parameters" and "valid parameters: name" in str(unknown.error)


def test_the_operations_the_engine_names_are_registered_with_the_result_models_it_reads() -> None:
    registry = build_registry()
    assert ENGINE_OPERATIONS and all(registry.get(op.name).result is op.result for op in ENGINE_OPERATIONS)


def test_a_runs_port_is_the_typed_call(tmp_path: Path) -> None:
    """What the engine's `OperationsPort` answers: the operation's envelope read into the `Op`'s model; an
    operation this app does not have is a failure, not an exception."""
    data = DataDir(tmp_path)
    port = build_registry().port(OpContext(data=data, envs=EnvStore(data)))
    listed = asyncio.run(port(TAB_LIST, {"env": "env-default"}))
    assert not listed.ok and listed.code == "no_browser" and "needs the running app" in str(listed.error)
    missing = asyncio.run(port(Op("page_teleport", TabListResult), {}))
    assert not missing.ok and missing.code == "unknown_operation" and "page_teleport" in str(missing.error)
    unknown = asyncio.run(port(TAB_LIST, {"env": "env-default", "colour": "red"}))
    assert unknown.code == "invalid_parameters" and "colour" in str(unknown.error)


def test_an_answer_outside_its_result_model_fails_the_call_when_results_are_checked(tmp_path: Path) -> None:
    class Shaped(Result):
        count: int

    async def wrong(ctx: OpContext, params: Params) -> dict[str, object]:
        return {"count": "many"}

    registry = OperationRegistry(check_results=True)
    registry.add(Operation(name="shaped", params=Params, func=wrong, description="", result=Shaped))
    data = DataDir(tmp_path)
    result = asyncio.run(registry.call(OpContext(data=data, envs=EnvStore(data)), "shaped", {}))
    assert result["ok"] is False and result["code"] == "invalid_result" and "Shaped" in str(result["error"])


def test_an_envelope_parses_from_its_wire_form_and_keeps_what_a_failure_added() -> None:
    wire = {"ok": True, "control": "agent", "tabId": "tab-1", "takenOver": True, "newTabs": ["tab-2"],
            "dialogs": [{"type": "alert"}], "x": 10.0, "y": 20.5, "element": "button 'Go'", "url": "http://a/",
            "notes": ["n"]}
    clicked = Envelope.parse(wire, ClickResult)
    assert (clicked.taken_over, clicked.new_tabs, clicked.tab_id, clicked.notes) == (True, ["tab-2"], "tab-1", ["n"])
    assert clicked.data is not None and (clicked.data.x, clicked.data.element) == (10.0, "button 'Go'")
    failed = Envelope.parse({"ok": False, "control": "agent", "error": "gone", "code": "timeout",
                             "errorShot": "/tmp/s.png", "url": "http://a/"}, ClickResult)
    assert (failed.error_shot, failed.code, failed.data, failed.details) == ("/tmp/s.png", "timeout", None,
                                                                           {"url": "http://a/"})


def test_an_envelope_goes_back_to_the_wire_form_it_came_from() -> None:
    wire = {"ok": True, "control": "agent", "tabId": "tab-1", "takenOver": True, "dialogs": [{"type": "alert"}],
            "newTabs": ["tab-2"], "url": "http://a/", "x": 10, "y": 20.5, "element": "button 'Go'", "extra": [1],
            "notes": ["n"]}
    assert Envelope.parse(wire, ClickResult).wire() == wire
    failed = {"ok": False, "control": None, "url": "http://a/", "error": "gone", "code": "timeout",
              "errorShot": "/tmp/s.png"}
    assert Envelope.parse(failed, ClickResult).wire() == failed


def test_an_operation_answering_its_envelope_is_handed_over_as_it_is(tmp_path: Path) -> None:
    """An operation on a tab answers an `Envelope` around its part's model: the typed call returns that very
    object (no wire form, no second validation), the MCP/CLI call its flat form; the call's own notes come
    first, and the tests' result check still validates the data."""
    clicked = ClickResult(x=1, y=2.5)

    async def click(ctx: OpContext, params: Params) -> Envelope[ClickResult]:
        return Envelope.model_construct(ok=True, control="agent", tab_id="tab-1", notes=["the part's"], data=clicked)

    async def wrong(ctx: OpContext, params: Params) -> Envelope[ClickResult]:
        return Envelope.model_construct(ok=True, control="agent", data=ClickResult.model_construct(y=0))  # no x

    registry = OperationRegistry(check_results=True)
    registry.add(Operation(name="click", params=Params, func=click, description="", result=ClickResult),
                 Operation(name="wrong", params=Params, func=wrong, description="", result=ClickResult))
    data = DataDir(tmp_path)
    ctx = OpContext(data=data, envs=EnvStore(data))
    typed = asyncio.run(registry.run(ctx, registry.get("click"), {}))
    assert typed.ok and typed.data is clicked and typed.tab_id == "tab-1"
    flat = asyncio.run(registry.call(ctx, "click", {}))
    assert flat == {"ok": True, "control": "agent", "tabId": "tab-1", "x": 1, "y": 2.5, "notes": ["the part's"]}
    refused = asyncio.run(registry.call(ctx, "wrong", {}))
    assert refused["ok"] is False and refused["code"] == "invalid_result"
