"""The agent's settings, `agent.json` in the data folder (mode 0600: it may hold the API key).

The key is the one saved here, else `ANTHROPIC_API_KEY`. The Agent panel's secrets are kept here only when the
person asks it to remember them (`secrets`: name, value, and the sites where each may be typed). The Anthropic SDK
reads `ANTHROPIC_BASE_URL` itself; a `baseUrl` saved here wins over it (for a proxy). Budgets: steps, consecutive
tool failures, seconds per model call. Prices (dollars per million tokens) make the cost shown so far; unknown
models cost "unknown".
"""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from envs.changes import StoreChanges
from envs.datadir import DataDir
from envs.jsonstore import JsonStore, encode_json
from envs.savemanager import ImmediateSaver, Saver

DEFAULT_MODEL = "claude-sonnet-4-6"
# input, output, cache read, cache write (5 minutes), dollars per million tokens; matched by name prefix.
PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-opus-4-5": (5.0, 25.0, 0.5, 6.25),
    "claude-opus-4": (15.0, 75.0, 1.5, 18.75),
    "claude-sonnet-4": (3.0, 15.0, 0.3, 3.75),
    "claude-3-7-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25),
    "claude-3-5-haiku": (0.8, 4.0, 0.08, 1.0),
}


class StoredSecret(BaseModel):
    """A secret the Agent panel remembers: its value, and the sites where it may be typed (domain patterns,
    `*` anywhere; none: the site of the task's start page)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    name: str = Field(min_length=1)
    value: str = ""
    domains: list[str] = Field(default_factory=list)


class AgentSettings(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    schema_version: int = Field(default=1, alias="schema_version")
    model: str = Field(default=DEFAULT_MODEL, min_length=1)
    api_key: str | None = Field(default=None, description="Saved key; else ANTHROPIC_API_KEY.")
    base_url: str | None = Field(default=None, description="Else the SDK's ANTHROPIC_BASE_URL, else Anthropic.")
    max_steps: int = Field(default=40, ge=1, le=500)
    max_failures: int = Field(default=5, ge=1, le=50, description="Consecutive failed tool calls that end a run.")
    step_timeout_s: float = Field(default=120.0, ge=5, le=1800, description="Longest model call.")
    max_tokens: int = Field(default=4096, ge=256, le=64_000)
    keep_images: int = Field(default=3, ge=0, le=20, description="Screenshots kept in the conversation.")
    secrets: list[StoredSecret] = Field(default_factory=list, description="The panel's remembered secrets.")

    def resolved_key(self) -> str | None:
        return self.api_key or os.environ.get("ANTHROPIC_API_KEY") or None

    def key_source(self) -> str:
        if self.api_key:
            return "saved in the data folder"
        return "ANTHROPIC_API_KEY" if os.environ.get("ANTHROPIC_API_KEY") else "none"


def cost_usd(model: str, input_tokens: int, output_tokens: int, cache_read: int, cache_write: int) -> float | None:
    """Dollars for this usage, or None for a model without a known price."""
    for prefix, (inp, out, read, write) in PRICES.items():
        if model.startswith(prefix):
            return (input_tokens * inp + output_tokens * out + cache_read * read + cache_write * write) / 1e6
    return None


class AgentSettingsStore:
    """`agent.json`, atomic and private to the user: every write is a new file made by `mkstemp` (mode 0600)
    that replaces the old one, through the saver (the app's save manager: off the Qt thread; at once
    otherwise). The settings in memory are the truth; the app holds one store (`OpContext.agent_settings`)."""

    def __init__(self, data: DataDir, saver: Saver | None = None, changes: StoreChanges | None = None) -> None:
        self.path: Path = data.root / "agent.json"
        self._file = JsonStore(self.path, AgentSettings, AgentSettings)
        self._saver: Saver = saver or ImmediateSaver()
        self.changes = changes or StoreChanges()  # each update is published (store `agent_settings`)
        loaded = self._file.load()
        self.load_problem = loaded.problem
        self.current = loaded.document

    def update(self, **changes: object) -> AgentSettings:
        candidate = AgentSettings.model_validate({**self.current.model_dump(), **changes})
        dump = self._file.dump
        self._saver.save(self.path, lambda: encode_json(dump(candidate)))
        self.current = candidate
        self.changes.publish("agent_settings", "updated")
        return candidate
