"""The operations registry: every layer's operations in one registry, shared by GUI, CLI, MCP and engine.

Built here, where the app is wired, because the agent's `agent_run` and the workers' `workflow_distribute` build
on the operations (app/agent, app/distributed import app/ops, never the other way)."""

from __future__ import annotations

from app.agent import ops as agent_ops
from app.distributed import operation as distributed_ops
from app.ops import (env_ops, env_transfer_ops, group_ops, inspect_ops, mock_ops, net_ops, page_ops, recording_ops,
                     run_ops, schedule_ops, tab_ops, trace_ops, workflow_ops)
from app.ops.registry import OperationRegistry

OPERATION_MODULES = (env_ops, env_transfer_ops, tab_ops, group_ops, page_ops, net_ops, inspect_ops, mock_ops,
                     workflow_ops, run_ops, recording_ops, schedule_ops, trace_ops, agent_ops, distributed_ops)


def build_registry() -> OperationRegistry:
    registry = OperationRegistry()
    for module in OPERATION_MODULES:
        registry.add(*module.OPERATIONS)
    return registry
