"""The 22 node types of a workflow, one class each, and the parts of a graph (BrowserPilot 0.3.0 format,
docs/workflows.md).

- `values`: the model base and field types; `locators`: page locators with alternatives; `conditions`:
  if-else and until conditions; `graph`: nodes, edges and graphs; `base`: `NodeData`, the registry
  `NODE_TYPES` and the `RunContext` a running node sees.
- One module per group of types: `flow` (start end if-else loop), `page` (goto click fill select press scroll
  swipe upload), `wait_extract` (wait extract export), `data` (script code cdp http-request download),
  `people` (handoff captcha). Importing this package registers all 22.
Pure Python: no Qt here.
"""

from __future__ import annotations

# Imported in the order docs/workflows.md lists the types in, which is the order of NODE_TYPES.
from workflows.nodes import flow, page, wait_extract, data, people  # noqa: F401,I001  (registers the types)
from workflows.nodes.base import NODE_TYPES, NodeData, NodeFailed, PageNodeData, RawNodeData, RunContext
from workflows.nodes.conditions import Case, Condition, compare
from workflows.nodes.data import CdpData, CodeData, CodeVariable, DownloadData, HttpRequestData, OutputSpec, ScriptData
from workflows.nodes.flow import (DEFAULT_UNTIL_MAX, EndData, EndOutput, IfElseData, LoopData, StartData,
                                  StartVariable)
from workflows.nodes.graph import RESERVED_HANDLE, Edge, Graph, Node, Position, fill_edge_defaults
from workflows.nodes.locators import LocatorAlternative, LocatorCandidate, NodeLocator
from workflows.nodes.page import (ClickData, FillData, GotoData, PressData, ScrollData, SelectData, SwipeData,
                                  UploadData)
from workflows.nodes.people import CaptchaData, HandoffData
from workflows.nodes.values import FAILS, DocumentModel, NonEmptyText, Number, Seconds, Text, problem
from workflows.nodes.wait_extract import ExportData, ExtractData, WaitData

for _model in (Graph, Node, LoopData):
    _model.model_rebuild()

PAGE_NODE_TYPES = frozenset(kind for kind, model in NODE_TYPES.items() if issubclass(model, PageNodeData))

__all__ = [
    "CaptchaData", "Case", "CdpData", "ClickData", "CodeData", "CodeVariable", "Condition", "DEFAULT_UNTIL_MAX",
    "DocumentModel", "DownloadData", "FAILS", "Edge", "EndData", "EndOutput", "ExportData", "ExtractData", "FillData",
    "GotoData", "Graph", "HandoffData", "HttpRequestData", "IfElseData", "LocatorAlternative", "LocatorCandidate",
    "LoopData", "NODE_TYPES", "Node", "NodeData", "NodeFailed", "NodeLocator", "NonEmptyText", "Number",
    "OutputSpec", "PAGE_NODE_TYPES", "PageNodeData", "Position", "PressData", "RESERVED_HANDLE", "RawNodeData",
    "RunContext", "ScriptData", "ScrollData", "Seconds", "SelectData", "StartData", "StartVariable", "SwipeData",
    "Text", "UploadData", "WaitData", "compare", "fill_edge_defaults", "problem",
]
