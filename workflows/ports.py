"""The browser port: what the operations need from a browser, as small protocols (no Qt here).

`app/browser` implements it over QtWebEngine: a browser service owns the environments' profiles and every
tab (app/browser/service.py), and each tab is made of parts (app/browser/parts/): `control`, `navigation`,
`input`, `reading`, `capture`, `network` and `recording`, each with its protocol below. The operations
(app/ops) are the one door to them for the GUI, MCP, the command line, the agent and the workflow engine; the
engine itself never holds a tab: it calls operations by name (workflows/engine.py, `OperationsPort`).

A locator is `{selector?, xpath?, ref?}`: `selector` is CSS or an engine (`text=`, `role=`, `label=`,
`placeholder=`, `testid=`), `xpath` starts with `/`, `ref` comes from a page snapshot. Failures are
`PageError`s with a `code`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Literal, Mapping, Protocol, Sequence

from pydantic import BaseModel, ConfigDict, model_validator

from workflows.envelope import Control
from workflows.errors import PageError  # noqa: F401 (re-exported: the port's error type)
from workflows.results import (CdpResult, ClickResult, DirectResult, DragResult, FileResult, FindResult, HarResult,
                               KeyResult, LoadResult, NetCaptureResult, NetGetResult, NetListResult, PdfResult,
                               QueryResult, RecordStatusResult, ScreenshotResult, ScriptValue, ScrollResult,
                               SelectResult, SettleResult, SnapshotResult, SourceResult, TabEvents, TabInfo,
                               TypeResult, UploadResult, WaitResult)
from workflows.results_devtools import (BlockedRequestView, CdpBatchResult, ElementHit, ElementInspection,
                                        MockStartResult, MockStopResult, VideoFile, WatchResult)

if TYPE_CHECKING:
    from workflows.secret_binding import SecretBinding


class Locator(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # What each form takes is said once, in the MCP server's instructions (app/mcp/config.py), not per tool.
    selector: str | None = None  # CSS, or text=…, role=button[name="…"], label=…, placeholder=…, testid=…
    xpath: str | None = None  # starts with /
    ref: str | None = None  # from the latest page_snapshot, e.g. e12

    @model_validator(mode="after")
    def _exactly_one(self) -> "Locator":
        given = [name for name in ("selector", "xpath", "ref") if getattr(self, name)]
        if len(given) != 1:
            raise ValueError("a locator needs exactly one of selector, xpath or ref")
        if self.xpath is not None and not self.xpath.startswith(("/", "(")):
            raise ValueError("an xpath starts with /")
        return self

    def label(self) -> str:
        return self.selector or self.xpath or f"ref={self.ref}"

WaitUntil = Literal["load", "domcontentloaded", "none"]
Direction = Literal["up", "down", "left", "right"]
MouseButton = Literal["left", "right", "middle"]
Paper = Literal["A4", "Letter", "Legal", "A3"]


class ControlPart(Protocol):
    """Who acts on the tab (agent, handoff, shared) and what an operation reports besides its own result:
    `takenOver` when a person took over, the dialogs answered and tabs opened meanwhile, a screenshot for a
    failure. Operations enter `app_acting` around every call and `before_acting` before acting."""

    @property
    def state(self) -> Control: ...

    def consume_taken_over(self) -> bool: ...

    def drain_events(self) -> TabEvents:
        """Dialogs answered and tabs opened since the last call."""

    async def error_shot(self) -> str | None:
        """A screenshot of the tab now, for a failure report; None if it cannot be taken."""

    def app_acting(self) -> AbstractContextManager[None]:
        """Entered around every operation on the tab: a recording of the tab pauses meanwhile (only a
        person's input is recorded)."""

    async def before_acting(self, target: Locator | None, timeout: float) -> None:
        """Control rules for an acting operation: in handoff, wait for the target (or Done), then lock."""

    async def set_state(self, control: Control, message: str | None = None) -> None: ...

    async def wait_handoff_done(self, timeout: float) -> str:
        """Wait while the tab is handed to the person; returns how it ended ("done", "changed")."""


class NavigationPart(Protocol):
    """Loading addresses and moving through the tab's history; a failed load raises a `PageError` naming
    its reason (code `navigation_failed`, or `blocked` for the domain policy)."""

    async def navigate(self, url: str, wait_until: WaitUntil, timeout: float) -> LoadResult: ...
    async def history(self, action: Literal["back", "forward", "reload"], wait_until: WaitUntil,
                      timeout: float) -> LoadResult: ...


class InputPart(Protocol):
    """Acting as a person does, with trusted input. Each call waits for its target to be actionable (up to
    `timeout` seconds) and, when the action starts a navigation, until that navigation has committed."""

    async def click(self, locator: Locator | None, x: float | None, y: float | None, button: MouseButton,
                    count: int, until: Locator | None, timeout: float,
                    offset: tuple[float, float] | None = None) -> ClickResult: ...
    async def type_text(self, text: str, locator: Locator | None, paste: bool, timeout: float,
                        replace: bool = False, secrets: "SecretBinding | None" = None) -> TypeResult:
        """Type `text` into the element (clicked first unless it has the focus) or the focused field; its
        `<secret:name>` of `secrets` are filled in only where their binding allows, at that moment, in the
        frame holding the focus (a `SecretRefused` otherwise, with nothing typed)."""

    async def select(self, option: str, locator: Locator, timeout: float,
                     secrets: "SecretBinding | None" = None) -> SelectResult: ...
    async def key(self, shortcut: str) -> KeyResult: ...
    async def scroll(self, direction: Direction, locator: Locator | None, until: Locator | None,
                     swipe: bool, timeout: float, distance: float | None = None) -> ScrollResult: ...
    async def drag(self, locator: Locator | None, x: float | None, y: float | None, dx: float, dy: float,
                   timeout: float, offset: tuple[float, float] | None = None) -> DragResult: ...
    async def upload(self, paths: list[str], locator: Locator, timeout: float) -> UploadResult: ...


class ReadingPart(Protocol):
    """Looking at the page without changing who controls it."""

    async def wait(self, locator: Locator, state: Literal["appear", "gone"], timeout: float) -> WaitResult: ...
    async def query(self, locator: Locator) -> QueryResult: ...

    async def find(self, candidates: list[Locator], fingerprint: dict[str, Any] | None,
                   heal: bool = True) -> FindResult:
        """One look for a replayed node's element: the first candidate naming exactly one element, else (with
        `heal`) the element its fingerprint heals to (`status`: found | healed | none | unsure)."""
        ...
    async def snapshot(self, locator: Locator | None = None, start: int = 1, items: int = 25) -> SnapshotResult: ...
    async def source(self) -> SourceResult: ...

    async def script(self, source: str, args: Any, timeout: float) -> ScriptValue:
        """Run JavaScript in the page; a navigation it starts is waited for, as after a click."""

    async def script_in_frame(self, address: str, source: str, args: Any, timeout: float) -> ScriptValue | None:
        """Run JavaScript in the first frame of another site whose address contains `address` (the page cannot
        read such a frame); None when there is none."""

    async def inspect(self, locator: Locator) -> ElementInspection:
        """Tag, attributes, box, computed visibility and the locator alternatives a recording keeps."""

    async def hit(self, x: float, y: float) -> ElementHit:
        """What `inspect` says of the element at a viewport point (CSS px)."""

    async def watch(self, locator: Locator, timeout: float, interval: float,
                    stop_on_change: bool) -> WatchResult: ...


class CapturePart(Protocol):
    """Pictures, documents and files out of the tab."""

    async def screenshot(self, full_page: bool, locator: Locator | None,
                         outline: Locator | None = None) -> ScreenshotResult: ...
    async def pdf(self, paper: Paper, landscape: bool, background: bool, header_footer: bool) -> PdfResult: ...
    async def download(self, locator: Locator | None, url: str | None, save_as: str | None,
                       timeout: float) -> FileResult: ...

    async def save_media(self, locator: Locator, save_path: str | None, timeout: float) -> FileResult:
        """Save an img/video/audio/source element's current source (a stream it plays, as one file)."""


class NetworkPart(Protocol):
    """The tab's traffic: what is still in flight, the DevTools protocol (a port-less channel attached only
    while needed), capture as HAR, requests sent by the app for the tab, and request mocks."""

    async def settle(self, timeout: float) -> SettleResult:
        """Let what the tab still has in flight (a navigation, a form post, fetch/XHR, beacons the last actions
        started) land, at most `timeout` seconds; `pending` says what had not."""

    async def cdp(self, method: str, params: dict[str, Any] | None, timeout: float) -> CdpResult:
        """Send one Chrome DevTools Protocol command to the tab: its answer is `result`. Commands that would break the
        app's control of the tab or reach other environments are refused with an error."""

    async def cdp_batch(self, commands: Sequence[Mapping[str, Any]], timeout: float) -> CdpBatchResult: ...
    async def net_start(self) -> NetCaptureResult: ...
    async def net_stop(self) -> NetCaptureResult: ...
    async def net_list(self, url_contains: str | None, limit: int) -> NetListResult: ...
    async def net_get(self, request_id: str) -> NetGetResult: ...

    async def net_export(self, path: str | None = None,
                         redact: Sequence[str] | Mapping[str, str] = ()) -> HarResult:
        """Write the capture as HAR 1.2 (`path`, default the environment's captures folder), with every
        string in `redact` replaced."""

    async def direct_request(self, method: str, url: str, headers: dict[str, str], body: str | None,
                             timeout: float) -> DirectResult:
        """Send a request from the app for this tab, as the browser would: the environment's domain policy on
        every hop, only the cookies the browser would send to each hop's URL, each hop in the tab's capture; the
        last response is the result."""

    async def mock_start(self, rules: Sequence[Mapping[str, Any]]) -> MockStartResult:
        """Answer the tab's requests whose URL contains a rule's `url_contains` with its `status`, `headers`
        and `body`, after the domain policy; replaces earlier rules."""

    async def mock_stop(self) -> MockStopResult:
        """End the mocks: how many requests were answered, passed on and refused by the policy."""


class RecordingPart(Protocol):
    """Recording a person's actions in the tab as a workflow (one recording per tab at a time)."""

    @property
    def active(self) -> bool: ...

    def start(self) -> RecordStatusResult:
        """Start recording (a `PageError` with code `already_recording` when it is); returns the status."""

    def status(self) -> RecordStatusResult:
        """The steps so far, in words and as nodes, whether the recording is paused (the app acts), notes."""

    def recording(self) -> Any:
        """The recording itself (a `workflows.recording.Recording`, which builds on this module: `Any` here), to
        edit (a `PageError` with code `not_recording` when there is none)."""

    def edited(self) -> None:
        """Say that the recording was edited (the Recording panel follows)."""

    def stop(self) -> Any:
        """Stop listening; the recording (a `workflows.recording.Recording`) stays readable in the result."""


class TabPort(Protocol):
    """One tab: its ids and its parts. Operations take the part they need (`tab.input.click(...)`)."""

    tab_id: str
    env_id: str
    control: ControlPart
    navigation: NavigationPart
    input: InputPart
    reading: ReadingPart
    capture: CapturePart
    network: NetworkPart
    recording: RecordingPart


class BrowserPort(Protocol):
    """The browser as the operations see it: environments (their profiles) and their tabs, whether or not a
    window shows them."""

    async def open_environment(self, env_id: str) -> None:
        """Open (or raise) the environment's window with a tab; a headless app makes sure the environment has a
        tab."""

    async def release_environment(self, env_id: str) -> None:
        """Close the environment's tabs (and window) and free its profile so its partition folder can be
        deleted."""

    async def open_tab(self, env_id: str, url: str, control: Control = "agent", show: bool = True) -> str:
        """Open `url` in a new tab of the environment; return the tab id. `show`: in the environment's window
        when the app has windows; otherwise (and always in a headless app) the tab has no window, until a
        person is needed on it (a handoff)."""

    def list_tabs(self, env_id: str | None = None) -> list[TabInfo]: ...

    async def close_tab(self, tab_id: str) -> None: ...

    async def settle_tabs(self, tab_ids: Sequence[str], timeout: float) -> list[dict[str, Any]]:
        """Let what these tabs still have in flight land (tabs the app never acted on have nothing counted), at
        most `timeout` seconds in all; returns what was cut off (`{tabId, kind, method, url, ms}`)."""

    async def activate_tab(self, tab_id: str) -> None: ...

    async def tab(self, tab_id: str | None, env_id: str | None) -> TabPort:
        """The tab to act on: `tab_id`, else the active tab of `env_id` (default env-default), opening one when
        the environment has none. Raises `LookupError` naming an unknown tab or environment."""

    def tab_state(self, tab_id: str) -> tuple[str, str] | None:
        """The tab's address and title now (None when it is gone); no page is asked."""

    def recording_tabs(self) -> list[str]:
        """The tabs a person's actions are being recorded in."""

    def renderer_crashes(self, tab_id: str) -> tuple[int, str | None]:
        """How often the tab's renderer died (it is reloaded each time), and why the last time."""

    def net_blocked(self, env_id: str | None = None, tab_id: str | None = None,
                    limit: int = 500) -> list[BlockedRequestView]:
        """Recent requests blocked by environments' domain policies, oldest first."""

    async def export_har(self, tab_id: str, path: str,
                         redact: Sequence[str] | Mapping[str, str] = ()) -> str | None:
        """When network capture ran on the tab: write its HAR to `path` with the `redact` strings (secret
        values) replaced, and return the path; None when there is no capture for the tab."""

    # A tab's video on demand (the original's screen_start / screen_stop, page_record_video).
    async def start_video(self, tab_id: str, path: str, crop: tuple[float, float, float, float] | None = None,
                          max_seconds: float | None = None) -> None:
        """Start filming the tab (shown or windowless) into `path` (without suffix: the encoder gives it), only
        the `crop` box (CSS px of the viewport) if given; a `PageError` when it is filmed already."""

    async def stop_video(self, tab_id: str) -> VideoFile:
        """End the tab's video and return the file (LookupError when not filmed; a `PageError` with code
        `no_video` when no picture came)."""

    # Moving a login between environments, and tab groups (the original's env_export/env_import, tab_group).
    async def read_env_state(self, env_id: str, origins: Sequence[str] = ()) -> dict[str, Any]:
        """`{cookies: [CDP Network.Cookie], localStorage: {origin: {key: value}}}` of the environment; local
        storage of its open tabs' origins, its cookies' origins and `origins`."""

    async def write_env_state(self, env_id: str, cookies: Sequence[Mapping[str, Any]],
                              local_storage: Mapping[str, Mapping[str, str]]) -> dict[str, Any]:
        """Set cookies (CDP Network.CookieParam) and local storage in the environment: `{cookies, failed,
        origins}` counts."""

    def set_tab_group(self, tab_id: str, group_id: str | None) -> str:
        """Put an open tab into a group of its environment (None: out of any group); returns the tab's env."""

    def tab_groups(self, env_id: str | None = None) -> dict[str, str]:
        """Open tabs that are in a group: tab id -> group id."""
