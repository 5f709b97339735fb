"""Operation parameter models build their validators on first use (`defer_build`, for a faster start), and that
first use may come from two threads at once: the MCP server's (or bridge endpoint's) tool listing builds each
model's JSON schema on its thread while an operation validates on the Qt thread. This holds the models to
building correctly under that race (pydantic >= 2.14 locks `model_rebuild`; older versions could hand one
thread a half-built model)."""

from __future__ import annotations

import threading
from typing import Any

from pydantic import Field

from app.ops.registry import Params


def fresh_model(index: int) -> type[Params]:
    """A parameter model never used before (so its first use builds it), as the registry's models are."""
    namespace: dict[str, Any] = {
        "__annotations__": {"tab_id": "str | None", "timeout_ms": "int", "labels": "list[str]"},
        "tab_id": Field(default=None, description="The tab."),
        "timeout_ms": Field(default=5000, ge=0),
        "labels": Field(default_factory=list),
        "__module__": __name__,
    }
    return type(f"Deferred{index}Params", (Params,), namespace)


def test_a_deferred_model_used_first_by_two_threads_at_once_validates_and_lists_correctly() -> None:
    for index in range(20):
        model = fresh_model(index)
        assert not model.__pydantic_complete__
        start = threading.Barrier(2)
        results: dict[str, Any] = {}
        errors: list[BaseException] = []

        def listing() -> None:
            try:
                start.wait()
                results["schema"] = model.model_json_schema(by_alias=True)
            except BaseException as exc:  # noqa: BLE001 - collected for the assertion below
                errors.append(exc)

        def call() -> None:
            try:
                start.wait()
                results["params"] = model.model_validate({"tabId": "tab-1", "timeoutMs": 10, "labels": ["a"]})
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=listing), threading.Thread(target=call)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert errors == []
        assert set(results["schema"]["properties"]) == {"tabId", "timeoutMs", "labels"}
        params = results["params"]
        assert (params.tab_id, params.timeout_ms, params.labels) == ("tab-1", 10, ["a"])
        assert model.__pydantic_complete__
