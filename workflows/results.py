"""What the operations on pages and tabs answer: the result models the engine reads, Qt-free.

Each is the `data` of an operation's `Envelope` (workflows/envelope.py) and the operation's declared result
(`Operation.result`, app/ops): the workflow engine reads these fields (workflows/operations.py names the
operations it calls with their models), MCP publishes them as `outputSchema`. The tab's parts (app/browser/parts,
protocols in workflows/ports.py) answer with these very models, which the operations hand on as their data
without rewriting them; where a part's answer is not an operation's (a script's bare value, the events since
the last answer), its model is here too. The other operations' results (environments, workflows, runs) are in
app/ops/results.py.

Names are camelCase on the wire. A result may carry more than its model names (`Result` keeps unknown keys),
never less; a value the page or a caller chooses (a script's value, a CDP answer, an element's attributes)
stays `Any`. `Number` is a JSON number kept as it came (an integer stays one: a node's output, a template and
a run's events show `100`, not `100.0`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from workflows.envelope import Control, Result

Number = Annotated[int | float, WithJsonSchema({"type": "number"})]


# -- pages -----------------------------------------------------------------------------------------------
class PageResult(Result):
    """What every operation on a tab reports besides its own data: the tab's address now."""

    url: str | None = None


class LoadResult(PageResult):  # page_navigate, page_back, page_forward, page_reload
    title: str
    status: int | None = None  # the HTTP status of the document, when known


class ClickResult(PageResult):
    x: Number
    y: Number
    element: str | None = None  # how the clicked element reads ("button 'Save'")


class TypeResult(PageResult):  # page_type, page_paste
    typed: int  # characters
    element: str | None = None
    clicked: bool | None = None  # false: the field had the focus already, not clicked
    x: Number | None = None  # the point clicked first, when given as x/y
    y: Number | None = None


class SelectResult(PageResult):
    element: str | None = None
    text: str  # the option chosen, as it reads
    value: str | None = None
    index: int | None = None
    widget: bool | None = None  # chosen in a custom select widget, as a person does
    typed: bool | None = None  # typed into the widget's search box first
    method: Literal["value"] | None = None  # the keyboard did not land: the value was set


class KeyResult(PageResult):
    shortcut: str


class ScrollResult(PageResult):  # page_scroll, page_swipe
    steps: int
    distance: int | None = None  # pixels moved, without until
    visible: bool | None = None  # with until: it came into view


class DragResult(PageResult):
    from_: list[Number] = Field(alias="from")
    to: list[Number]
    element: str | None = None


class UploadResult(PageResult):
    element: str | None = None
    files: list[str]


class FileResult(PageResult):  # page_download, page_save_media
    path: str
    name: str
    bytes: int
    mime: str | None = None


class PdfResult(PageResult):
    path: str
    bytes: int
    pages: int | None = None


class ScreenshotResult(PageResult):
    path: str
    width: int
    height: int
    bytes: int
    truncated: bool | None = None  # the page was larger than a capture can be


class WaitResult(PageResult):
    state: Literal["appear", "gone"]
    visible: int  # how many matches are visible (appear), 0 (gone)


class QueryResult(PageResult):
    count: int
    elements: list[dict[str, Any]]  # ref, tag, description, text, attrs, rect, visible, hittable, enabled, …
    total: int  # the original's names for count and elements
    matches: list[dict[str, Any]]


class FindResult(PageResult):
    status: str  # found | healed | none | unsure
    index: int | None = None  # found: the first locator that names exactly one element
    ref: str | None = None  # healed: the element the fingerprint leads to
    desc: str | None = None  # healed: how it reads
    score: Number | None = None
    why: str | None = None  # healed: what made it alike
    locator: dict[str, Any] | None = None  # healed: its new locator (selector, xpath, alternatives, fingerprint)
    candidates: list[dict[str, Any]] | None = None  # the best candidates, {desc, score, why}
    rejected: list[dict[str, Any]] | None = None  # elements refused, {desc, why}
    blocked: list[Any] | None = None  # none found: the frames the domain policy kept from loading


class HealResult(PageResult):  # page_heal_model
    status: Literal["healed"]
    ref: str
    desc: str
    locator: dict[str, Any]
    reason: str  # the model's
    by_model: bool


class SnapshotResult(PageResult):
    title: str
    snapshot: str  # one line per node; controls carry a ref
    refs: int
    folded: int | None = None
    truncated: bool | None = None


class SourceResult(PageResult):
    kind: Literal["html", "text", "dom"]
    html: str | None = None
    text: str | None = None


class ScriptResult(PageResult):
    value: Any = None
    source_kind: Literal["expression", "function body"]


class CdpResult(PageResult):
    result: Any = None
    value: Any = None  # the same answer, under the original's name


class ControlResult(PageResult):  # page_lock, page_unlock, page_handoff
    ended: str | None = None  # page_handoff with wait: how the handoff ended (done, changed)


class HarResult(PageResult):  # net_export
    path: str | None  # None: asked `ifCapturing` of a tab with no capture
    entries: int | None = None
    pages: int | None = None
    capturing: bool | None = None  # the capture goes on after the export


class DirectResult(PageResult):  # net_request: the last response, after redirects
    status: int
    headers: dict[str, str]
    body: str
    hops: int  # redirects followed


class SettleResult(PageResult):
    settled: bool
    pending: list[dict[str, Any]]  # kind, method, url, ms, lastAction of what was still waiting


# -- network capture -------------------------------------------------------------------------------------
class NetCaptureResult(PageResult):  # net_start, net_stop
    capturing: bool
    entries: int | None = None  # net_stop: the requests kept


class NetRequestRow(Result):
    """A captured request as net_list shows it (app/browser/netentry.py `summary`)."""

    id: str  # net_get's reqId
    method: str
    url: str
    status: int | None = None
    type: str | None = None
    mime_type: str | None = None
    size: int
    time_ms: Number
    state: str
    error: str | None = None
    redirect_url: str | None = Field(default=None, alias="redirectURL")


class NetListResult(PageResult):
    capturing: bool
    requests: list[NetRequestRow]
    dropped: int  # requests no longer kept (the capture keeps the latest)


class NetGetResult(PageResult):
    request: dict[str, Any]  # id, method, url, status, timings, request and response with headers and body, …


# -- recording -------------------------------------------------------------------------------------------
class RecordedStep(Result):
    """A step of a person's recording, in words and as a node (workflows/recording.py `Step.as_dict`)."""

    id: str
    type: str
    words: str
    locator: str  # the locator replay tries first, as text ("" for none)
    data: dict[str, Any]  # the node's data
    alternatives: list[str] | None = None  # the other locators recorded, as text
    prefer: int | None = None  # the alternative replay tries first
    note: str | None = None
    secret: str | None = None  # the start variable of a secret field
    input: str | None = None  # the start input the value comes from (make_input)
    default: str | None = None
    missing: str | None = None  # why the person's action could not be recorded
    suggested_input: str | None = None  # fill: a start input's name for the typed value


class RecordStatusResult(Result):  # record_start, record_status, record_edit
    recording: bool
    steps: list[RecordedStep]
    events: int | None = None  # raw steps the page reported (recorded or not)
    paused: str | None = None  # why the recording is paused now (the app acts on the tab)
    picking: str | None = None  # the next click picks the element of this insertion


# -- what a tab's part answers besides an operation's result ------------------------------------------------
class ScriptValue(PageResult):
    """What a script run in the page answered (the reading part's `script`, `script_in_frame`)."""

    value: Any = None  # JSON, as the script returned it
    frame: str | None = None  # script_in_frame: the address of the frame it ran in


class TabEvents(BaseModel):
    """What happened in a tab since the last operation's answer, besides that answer (the control part's
    `drain_events`): the envelope's `dialogs` and `newTabs`."""

    dialogs: list[dict[str, Any]] = Field(default_factory=list)  # JavaScript dialogs answered
    new_tabs: list[str] = Field(default_factory=list)  # tabs the page opened, oldest first


# -- tabs ------------------------------------------------------------------------------------------------
class TabInfo(BaseModel):
    """A tab as the browser reports it (`BrowserPort.list_tabs`, workflows/ports.py)."""

    model_config = ConfigDict(populate_by_name=True)

    id: str
    env: str
    url: str
    title: str
    control: Control
    loading: bool
    active: bool


class TabRow(Result, TabInfo):
    """A tab as `tab_list` shows it: the browser's `TabInfo`, and the original's names beside."""

    env_id: str  # the original's names
    group_id: str | None = None


class TabOpenResult(Result):
    env: str


class TabListResult(Result):
    tabs: list[TabRow]


class TabCloseResult(Result):
    pending: list[dict[str, Any]] | None = None  # what the tab was still sending when it was closed anyway


class NoData(Result):
    """An operation that reports nothing beyond the envelope (tab_activate)."""
