"""The built-in agent's tool set: core's page tools first, the rest of core and every other group on demand."""

from __future__ import annotations

from app.agent.tools import AgentTools
from app.catalog.profiles import ToolSelection
from app.catalog.tools import ToolCatalog
from app.wiring.registry import build_registry

OUTSIDE_THE_TAB = {"env_list", "env_create", "tab_open", "tab_list", "tab_close", "workflow_list", "workflow_write",
                   "workflow_run", "run_list", "run_read"}


def test_the_agent_starts_with_cores_page_tools_and_lists_the_rest_of_core_on_demand() -> None:
    registry = build_registry()
    tools = AgentTools(registry)
    core = set(ToolCatalog(registry).names(ToolSelection()))
    first = tools.names()
    assert set(first) == core - OUTSIDE_THE_TAB  # the page tools and tools_enable
    assert all(name.startswith("page_") for name in first if name != "tools_enable")
    assert [entry["name"] for entry in tools.definitions()] == [*first, "done"]

    assert not tools.allowed("workflow_run")
    assert tools.how_to_list("workflow_run") == '; tools_enable {"groups": ["core"]} lists it'
    assert tools.how_to_list("page_script") == '; tools_enable {"groups": ["devtools"]} lists it'
    assert tools.how_to_list("page_lock") == ""  # the run holds its tab's control: never the agent's

    answer = tools.enable({"groups": ["core"]})
    assert answer["ok"] and answer["listChanged"] and set(answer["added"]) == OUTSIDE_THE_TAB
    assert set(tools.names()) == core and tools.allowed("workflow_run")
    assert "workflow_run" in [entry["name"] for entry in tools.definitions()]
    again = tools.enable({"groups": ["core"]})
    assert again["ok"] and again["added"] == [] and not again["listChanged"]
    assert not tools.enable({"groups": ["nonsense"]})["ok"]
