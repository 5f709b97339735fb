"""The agent's settings, `agent.json` in the data folder (mode 0600: it may hold API keys).

Two providers (`provider`): `anthropic` (Anthropic's Messages API) and `openai` (any OpenAI-compatible Chat
Completions endpoint with tool calling: OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio, a gateway such as
OpenRouter). Each keeps its own model, key and base URL, so that a key is never sent to the other provider's
endpoint: Anthropic's at the top level (as before: `model`, `apiKey`, `baseUrl`), the OpenAI-compatible one under
`openai`. A key is the one saved here, else `ANTHROPIC_API_KEY` / `OPENAI_API_KEY`; a base URL the one saved here,
else `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, else the provider's own. A local endpoint needs no key.
`ModelChoice` is what a run uses: the settings, with what the run asked for (`choice`).
The Agent panel's secrets are kept here only when the person asks it to remember them (`secrets`: name, value, and
the sites where each may be typed). Budgets: steps, consecutive tool failures, seconds per model call. Prices
(dollars per million tokens) make the cost shown so far; unknown models cost "unknown".
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from plumbing.changes import StoreChanges
from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore, encode_json
from plumbing.savemanager import ImmediateSaver, Saver

DEFAULT_MODEL = "claude-sonnet-4-6"
Provider = Literal["anthropic", "openai"]
PROVIDERS: tuple[Provider, ...] = ("anthropic", "openai")
NO_KEY = "no-key"  # what the OpenAI SDK is given for a local endpoint that asks for none (it needs some string)
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


class OpenAISettings(BaseModel):
    """The OpenAI-compatible endpoint."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    model: str = Field(default="", description="As the endpoint names it (its /v1/models list).")
    api_key: str | None = Field(default=None, description="Saved key; else OPENAI_API_KEY; none for a local server.")
    base_url: str | None = Field(default=None, description="e.g. http://127.0.0.1:11434/v1; else OPENAI_BASE_URL, "
                                                           "else OpenAI's.")
    images: bool = Field(default=False, description="The model reads images: screenshots are sent to it.")


@dataclass(frozen=True)
class ModelChoice:
    """The model one run (or one healing question) talks to: provider, model, key, base URL, whether it is sent
    images, and where the key came from (for the panel, never the key itself)."""

    provider: Provider
    model: str
    api_key: str | None
    base_url: str | None
    images: bool
    key_source: str

    def problem(self) -> str | None:
        """Why no request can be made with this choice, or None."""
        if self.provider == "openai":
            if not self.model:
                return ("no model: choose the endpoint's model in the Agent panel's settings, or give --model "
                        "(the endpoint's /v1/models lists them)")
            if not self.api_key and not self.base_url:
                return ("no endpoint: set OPENAI_BASE_URL (a local server needs no key) or OPENAI_API_KEY, or save "
                        "them in the Agent panel's settings")
            return None
        if not self.api_key:
            return "no API key: set ANTHROPIC_API_KEY or save a key in the Agent panel's settings"
        return None

    def sdk_key(self) -> str:
        return self.api_key or NO_KEY


class AgentSettings(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    schema_version: int = Field(default=1, alias="schema_version")
    provider: Provider = Field(default="anthropic", description="anthropic, or openai (any OpenAI-compatible "
                                                                "Chat Completions endpoint).")
    model: str = Field(default=DEFAULT_MODEL, min_length=1, description="Anthropic's model.")
    api_key: str | None = Field(default=None, description="Anthropic's saved key; else ANTHROPIC_API_KEY.")
    base_url: str | None = Field(default=None, description="Else the SDK's ANTHROPIC_BASE_URL, else Anthropic.")
    openai: OpenAISettings = Field(default_factory=OpenAISettings)
    max_steps: int = Field(default=40, ge=1, le=500)
    max_failures: int = Field(default=5, ge=1, le=50, description="Consecutive failed tool calls that end a run.")
    step_timeout_s: float = Field(default=120.0, ge=5, le=1800, description="Longest model call.")
    max_tokens: int = Field(default=4096, ge=256, le=64_000)
    keep_images: int = Field(default=3, ge=0, le=20, description="Screenshots kept in the conversation.")
    secrets: list[StoredSecret] = Field(default_factory=list, description="The panel's remembered secrets.")

    def choice(self, provider: Provider | None = None, model: str | None = None,
               base_url: str | None = None) -> ModelChoice:
        """The model a run uses: these settings, with the provider, model and base URL it asked for."""
        provider = provider or self.provider
        if provider == "openai":
            saved, variable = self.openai.api_key, "OPENAI_API_KEY"
            url = base_url or self.openai.base_url or os.environ.get("OPENAI_BASE_URL") or None
            name, images = model or self.openai.model, self.openai.images
        else:
            saved, variable = self.api_key, "ANTHROPIC_API_KEY"
            url, name, images = base_url or self.base_url, model or self.model, True
        key = saved or os.environ.get(variable) or None
        source = "saved in the data folder" if saved else (variable if key else "none")
        return ModelChoice(provider=provider, model=name, api_key=key, base_url=url, images=images, key_source=source)


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
