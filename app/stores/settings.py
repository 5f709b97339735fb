"""Application settings (`settings.json`), stored with the same atomic, versioned store as every JSON file.

The app holds one `SettingsStore` (its operations' context and its windows share it): the settings in memory
are the truth, and a change is written through the app's save manager, off the Qt thread. Without a saver (a
short-lived process) a change is written at once. Each change is published on the change feed (plumbing/changes.py:
store `settings`): the open settings, the tray and the panels follow."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from plumbing.changes import StoreChanges
from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore, encode_json
from plumbing.savemanager import ImmediateSaver, Saver
from workflows.tracing import DEFAULT_DISK_MB, DEFAULT_TRACE, DEFAULT_VIDEO, TraceDefaults, TraceMode

DEFAULT_SEARCH_URL = "https://duckduckgo.com/?q={query}"


class Settings(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    schema_version: int = Field(default=1, alias="schema_version")
    search_url: str = Field(default=DEFAULT_SEARCH_URL, description="Address-bar search; {query} is replaced.")
    home_url: str = Field(default="about:blank", description="What a new tab shows.")
    batch_concurrency: int = Field(default=3, ge=1, le=16, description="At most this many tabs run a batch at once.")
    mcp_enabled: bool = Field(default=True, description="Serve MCP to agents on 127.0.0.1 (File → Settings).")
    mcp_port: int = Field(default=39221, ge=1024, le=65535,
                          description="Preferred MCP port; the next free one is used when it is taken.")
    workers_broker: str = Field(default="", description="The Redis broker of the batch dialog's Run on workers.")
    welcome_shown: bool = Field(default=False, description="The first-run welcome was shown on this data folder.")
    settle_seconds: float = Field(default=10.0, ge=0, le=300,
                                  description="When a run ends, a tab is closed by an operation or the app quits, "
                                              "what the page still has in flight (a form post, a fetch, a beacon) "
                                              "may finish for at most this long.")
    idle_exit_minutes: int = Field(default=10, ge=0, le=10080,
                                   description="An app that `browserpilot mcp` started headless quits this long after "
                                               "its last bridge client has gone (0: never).")
    # Unattended work (app/desktop/unattended.py): the tray, the desktop notifications, pausing the schedules.
    keep_in_tray: bool = Field(default=True, description="When schedules exist, closing the last window leaves "
                                                         "the app in the tray.")
    tray_notice_shown: bool = Field(default=False, description="The first-time message about the tray was shown.")
    schedules_paused: bool = Field(default=False, description="Pause all schedules (the tray menu).")
    notify_needs_person: bool = Field(default=True, description="Notify when a run waits for a person.")
    notify_run_failed: bool = Field(default=True, description="Notify when a scheduled run fails.")
    notify_batch_finished: bool = Field(default=True, description="Notify when a scheduled batch finishes.")
    notify_schedule_skipped: bool = Field(default=True, description="Notify when a schedule skips or misses a time.")
    # A run's trace and video (workflows/tracing.py): off, on-failure (kept when the run does not end ok), always.
    trace: TraceMode = Field(default=DEFAULT_TRACE, description="Keep a trace of every node (screenshots, the "
                                                                "element acted on, console, requests): off, "
                                                                "on-failure or always.")
    video: TraceMode = Field(default=DEFAULT_VIDEO, description="Keep a video of the run's tab: off, on-failure or "
                                                                "always.")
    trace_disk_mb: int = Field(default=DEFAULT_DISK_MB, ge=10, le=1_000_000,
                               description="All runs' traces and videos together take at most this many MB; the "
                                           "oldest are deleted first.")

    def trace_defaults(self) -> TraceDefaults:
        return TraceDefaults(self.trace, self.video, self.trace_disk_mb)


class SettingsStore:
    def __init__(self, data: DataDir, saver: Saver | None = None, changes: StoreChanges | None = None) -> None:
        self._file = JsonStore(data.settings_json, Settings, Settings)
        self._saver: Saver = saver or ImmediateSaver()
        self.changes = changes or StoreChanges()
        loaded = self._file.load()
        self.load_problem = loaded.problem
        self.current = loaded.document

    def update(self, **changes: object) -> Settings:
        """The settings with `changes`, now in memory, written through the saver (a new document each time: the
        one handed to the saver is never changed again)."""
        candidate = self.current.model_copy(update=changes)
        dump = self._file.dump
        self._saver.save(self._file.path, lambda: encode_json(dump(candidate)))
        self.current = candidate
        self.changes.publish("settings", "updated")
        return candidate
