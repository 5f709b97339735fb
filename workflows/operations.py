"""The operations as the engine calls them: each named with its result model, and the port that calls them.

The engine (workflows/engine.py, workflows/nodes, workflows/manager.py) reaches pages and tabs only through
operations (app/ops, one registry for the GUI, MCP, the CLI, the agent and the engine). It names each one it
calls by an `Op` of this table, which says the operation's registry name and the result model its answer is
read into, so a node reads typed fields (`answer.result.url`, `answer.taken_over`) instead of keys. The app
wires `OperationsPort` to the registry's typed call (`OperationRegistry.port`: the same door as an MCP call,
the same refusal of bound secrets, without the original's call forms, which are taken at the MCP and CLI edge);
a test checks that every `Op` here is registered with this very result model. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from workflows.envelope import Envelope, Result
from workflows.results import (CdpResult, ClickResult, ControlResult, DirectResult, DragResult, FileResult,
                               FindResult, HarResult, HealResult, KeyResult, LoadResult, QueryResult,
                               ScreenshotResult, ScriptResult, ScrollResult, SelectResult, SettleResult,
                               TabCloseResult, TabListResult, TabOpenResult, TypeResult, UploadResult)

R = TypeVar("R", bound=Result)


@dataclass(frozen=True)
class Op(Generic[R]):
    """One operation the engine calls: its name in the registry, and the model of its answer's data."""

    name: str
    result: type[R]


class OperationsPort(Protocol):
    """The operations registry as a run sees it: an `Envelope` for every call, never an exception (a failure is
    `ok: false` with its error and code)."""

    async def __call__(self, op: Op[R], params: dict[str, Any]) -> Envelope[R]: ...


# Pages: what page nodes do.
PAGE_NAVIGATE = Op("page_navigate", LoadResult)
PAGE_CLICK = Op("page_click", ClickResult)
PAGE_TYPE = Op("page_type", TypeResult)
PAGE_PASTE = Op("page_paste", TypeResult)
PAGE_SELECT = Op("page_select", SelectResult)
PAGE_KEY = Op("page_key", KeyResult)
PAGE_SCROLL = Op("page_scroll", ScrollResult)
PAGE_SWIPE = Op("page_swipe", ScrollResult)
PAGE_DRAG = Op("page_drag", DragResult)
PAGE_UPLOAD = Op("page_upload", UploadResult)
PAGE_DOWNLOAD = Op("page_download", FileResult)
PAGE_SCRIPT = Op("page_script", ScriptResult)
PAGE_CDP = Op("page_cdp", CdpResult)
NET_REQUEST = Op("net_request", DirectResult)
# Finding, healing and waiting.
PAGE_FIND = Op("page_find", FindResult)
PAGE_HEAL_MODEL = Op("page_heal_model", HealResult)
PAGE_QUERY = Op("page_query", QueryResult)
# Who controls the tab, and the run's end.
PAGE_LOCK = Op("page_lock", ControlResult)
PAGE_UNLOCK = Op("page_unlock", ControlResult)
PAGE_HANDOFF = Op("page_handoff", ControlResult)
PAGE_SETTLE = Op("page_settle", SettleResult)
PAGE_SCREENSHOT = Op("page_screenshot", ScreenshotResult)
NET_EXPORT = Op("net_export", HarResult)
# Tabs.
TAB_LIST = Op("tab_list", TabListResult)
TAB_OPEN = Op("tab_open", TabOpenResult)
TAB_CLOSE = Op("tab_close", TabCloseResult)

ENGINE_OPERATIONS: tuple[Op[Any], ...] = (
    PAGE_NAVIGATE, PAGE_CLICK, PAGE_TYPE, PAGE_PASTE, PAGE_SELECT, PAGE_KEY, PAGE_SCROLL, PAGE_SWIPE, PAGE_DRAG,
    PAGE_UPLOAD, PAGE_DOWNLOAD, PAGE_SCRIPT, PAGE_CDP, NET_REQUEST, PAGE_FIND, PAGE_HEAL_MODEL, PAGE_QUERY, PAGE_LOCK,
    PAGE_UNLOCK, PAGE_HANDOFF, PAGE_SETTLE, PAGE_SCREENSHOT, NET_EXPORT, TAB_LIST, TAB_OPEN, TAB_CLOSE)
