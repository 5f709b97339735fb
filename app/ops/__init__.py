"""The operations registry: one implementation of each operation, shared by GUI, CLI, MCP and engine."""

from __future__ import annotations

from app.ops import (env_ops, env_transfer_ops, group_ops, inspect_ops, mock_ops, net_ops, page_ops, record_ops,
                     schedule_ops, tab_ops, trace_ops, workflow_ops)
from app.ops.context import OpContext
from app.ops.registry import Operation, OperationRegistry, OpError, Params, failure, operation

__all__ = ["OpContext", "Operation", "OperationRegistry", "OpError", "Params", "build_registry", "failure", "operation"]


def build_registry() -> OperationRegistry:
    registry = OperationRegistry()
    registry.add(*env_ops.OPERATIONS)
    registry.add(*env_transfer_ops.OPERATIONS)
    registry.add(*tab_ops.OPERATIONS)
    registry.add(*group_ops.OPERATIONS)
    registry.add(*page_ops.OPERATIONS)
    registry.add(*net_ops.OPERATIONS)
    registry.add(*inspect_ops.OPERATIONS)
    registry.add(*mock_ops.OPERATIONS)
    registry.add(*workflow_ops.OPERATIONS)
    registry.add(*record_ops.OPERATIONS)
    registry.add(*schedule_ops.OPERATIONS)
    registry.add(*trace_ops.OPERATIONS)
    _add_agent(registry)
    _add_distributed(registry)
    return registry


def _add_distributed(registry: OperationRegistry) -> None:
    """`workflow_distribute` (imported here: app/distributed builds on this package)."""
    from app.distributed import operation as distributed

    registry.add(*distributed.OPERATIONS)


def _add_agent(registry: OperationRegistry) -> None:
    """The built-in agent's `agent_run` (imported here: app/agent builds on this package)."""
    from app.agent import ops as agent_ops

    registry.add(*agent_ops.OPERATIONS)
