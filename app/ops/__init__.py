"""The operations: one implementation of each, shared by GUI, CLI, MCP, the agent and the engine.

Each `*_ops.py` module lists its `OPERATIONS`; the registry that holds them all, with the agent's and the
workers' operations that build on this package, is made where the app is wired (app/wiring/registry.py)."""

from __future__ import annotations

from app.ops.context import OpContext
from app.ops.registry import Operation, OperationRegistry, OpError, Params, failure, operation

__all__ = ["OpContext", "Operation", "OperationRegistry", "OpError", "Params", "failure", "operation"]
