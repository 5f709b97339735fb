"""Which tools a client is shown: tool groups, profiles, and one session's selection.

Every operation says which group it belongs to (`Operation.group`, app/ops/registry.py); this module names the
groups and what each holds, so a client can be told in one line per group. A *profile* chooses groups:

- `core` (the default): a whole task — environments and tabs, navigate, snapshot, act, wait, read,
  screenshot, handoff, workflows and runs — plus `tools_enable`;
- `full`: every tool;
- `schemas`: added to any profile (`core,schemas`, `full,schemas`), its tools' `outputSchema`s (the typed
  results, app/ops/results.py) in the list: for programs that check results; a model does not read them, and
  every list stays small without them;
- `original`: exactly the original BrowserPilot's tool names (those we have: `ORIGINAL_TOOLS`), for its agents
  and its SKILL file; results then carry the envelope as JSON text, as the original's did;
- a comma-separated list of any of these and of group names: `core,network,recording`.

The HTTP endpoint takes it as `?tools=PROFILE`, `browserpilot mcp` as `--tools PROFILE`; the built-in agent
starts with core's page tools and lists the rest of core with `tools_enable` (app/agent/tools.py). A `ToolSelection` is one session's view: its profile plus the groups `tools_enable` turned on
since. Every registered tool can be called whatever the selection (a tool outside it is only not *listed*), so
scripts that name a tool keep working.

Plain Python (no pydantic, no registry): the stdio bridge checks `--tools` with it before it starts anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

TOOLS_ENABLE = "tools_enable"

# Group -> what it holds, for the tools_enable description, the settings and docs/operations.md (one short line each).
GROUPS: dict[str, str] = {
    "core": "a whole task: env_list/create, tab_open/list/close, page_navigate/back/snapshot/click/type/select/key/"
            "scroll/upload/wait/query/source/screenshot/handoff, workflow_list/write/run, run_list/read",
    "envs": "env_open/update/delete/export/import, env_browser_profiles",
    "tabs": "tab_activate, group_*, tab_group",
    "input": "page_paste/swipe/drag/forward/reload/settle/lock/unlock",
    "files": "page_download/save_media/pdf/record_video, screen_start/stop",
    "devtools": "page_script/cdp/cdp_batch/inspect/hit/watch",
    "network": "net_* (capture, HAR, mock, block)",
    "workflows": "workflow_read/update/delete/import/export/diff/history/restore/repair/repairs/start/batch, "
                 "editor_open",
    "runs": "run_wait/events/tables/cancel/export",
    "recording": "record_*",
    "schedules": "schedule_*",
    "workers": "workflow_distribute, batch_*",
    "agent": "agent_*",
    "app": "app_status",
    "replay": "page_find, page_heal_model",
}

# The original BrowserPilot's tools (src/main/services/tool-catalog.ts), in its order. Those we do not have, on
# purpose or not yet: page_draw, captcha_* (docs/original.md). The `original` profile lists the ones the registry holds.
ORIGINAL_TOOLS: tuple[str, ...] = (
    "env_list", "env_create", "env_open", "env_update", "env_delete", "tab_list", "tab_open", "tab_close",
    "tab_activate", "group_create", "group_update", "group_list", "tab_group", "page_navigate", "page_back",
    "page_forward", "page_reload", "page_snapshot", "page_query", "page_click", "page_wait", "page_type",
    "page_paste", "page_select", "page_key", "page_scroll", "page_swipe", "page_drag", "page_inspect",
    "page_save_media", "page_record_video", "page_draw", "page_upload", "page_lock", "page_unlock",
    "page_handoff", "page_screenshot", "screen_start", "screen_stop", "page_source", "page_script", "page_cdp",
    "page_cdp_batch", "captcha_panel", "captcha_detect", "captcha_read", "captcha_solve", "workflow_write",
    "workflow_update", "workflow_list", "workflow_run", "workflow_batch", "workflow_export", "workflow_delete",
    "workflow_import", "net_start", "net_stop", "net_list", "net_get", "net_export", "net_mock", "net_mock_off",
    "page_hit", "page_watch", "env_export", "env_import",
)

DEFAULT_PROFILE = "core"
PROFILES: dict[str, str] = {  # the named profiles, as the settings and `--help` describe them
    "core": "the default: a whole task in a few tools; tools_enable turns more groups on",
    "full": "every tool",
    "original": "the original BrowserPilot's tool names and call forms (results as JSON text, as it sent them)",
    "schemas": "each tool's outputSchema (its typed result) in the list, for programs (full,schemas: every tool's)",
}


class ProfileError(ValueError):
    """A profile names something that is neither a profile nor a group; the message lists the valid names."""


@dataclass(frozen=True)
class ToolProfile:
    """A parsed profile: the groups it includes, whether it is everything, and the original's names."""

    text: str
    groups: frozenset[str] = frozenset()
    everything: bool = False
    original: bool = False
    # Whether the listing carries each tool's outputSchema: for programs that check results; a model does not
    # read them, and they would more than double the size of any list (`schemas` only: `full` leaves them out, as
    # a client that takes every tool already pays 2.4x Playwright MCP's list; `full,schemas` has them).
    output_schemas: bool = False

    def includes(self, name: str, group: str | None, enabled: Iterable[str] = ()) -> bool:
        if self.everything:
            return True
        if self.original and name in ORIGINAL_TOOLS:
            return True
        return group is not None and (group in self.groups or group in enabled)


def valid_names() -> str:
    return ", ".join([*PROFILES, *(group for group in GROUPS if group not in PROFILES)])


def parse_profile(text: str | None) -> ToolProfile:
    """`core`, `full`, `original` or a comma list of those and group names (None or blank: core)."""
    if text is None or not text.strip():
        return ToolProfile(DEFAULT_PROFILE, frozenset({"core"}))
    parts = [part.strip().lower() for part in text.split(",")]
    unknown = [part for part in parts if part not in PROFILES and part not in GROUPS]
    if unknown or not all(parts):
        what = ", ".join(repr(part) for part in unknown) if unknown else "an empty name"
        raise ProfileError(f"unknown tool profile or group {what} in {text!r}; valid: {valid_names()}")
    groups = frozenset(part for part in parts if part in GROUPS)
    if not groups and set(parts) <= {"schemas"}:
        groups = frozenset({"core"})  # `schemas` alone: the default tools, with their output schemas
    return ToolProfile(",".join(parts), groups, everything="full" in parts, original="original" in parts,
                       output_schemas="schemas" in parts)


@dataclass
class ToolSelection:
    """One session's tools: its profile, and the groups `tools_enable` turned on since."""

    profile: ToolProfile = field(default_factory=lambda: parse_profile(None))
    enabled: set[str] = field(default_factory=set)

    def includes(self, name: str, group: str | None) -> bool:
        return self.profile.includes(name, group, self.enabled)

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        """What the listing depends on (a cache key)."""
        return self.profile.text, tuple(sorted(self.enabled))

    def enable(self, groups: Iterable[str]) -> None:
        """Turn groups on (unknown names raise ProfileError; none is turned on then)."""
        wanted = set(groups)
        unknown = sorted(wanted - set(GROUPS))
        if unknown:
            raise ProfileError(f"unknown tool group {', '.join(repr(g) for g in unknown)}; groups: "
                               f"{', '.join(GROUPS)}")
        self.enabled.update(wanted)
