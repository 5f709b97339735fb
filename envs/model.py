"""The environment record and the `envs.json` document.

An environment is a named, persistent login container. Its browser data lives in `partitions/<env-id>/`;
this record holds what a person uses to tell environments apart: the name, a remark and the most recent
sites visited in it, its network policy: `allowedDomains` and `blockedDomains` (patterns of
envs/domains.py, stored in canonical form; both empty: no policy), and its browser identity (envs/identity.py):
`userAgent`, `languages` (first preferred), `timezone` (IANA) and `geolocation`; empty: the browser's own.
"""

from __future__ import annotations

from datetime import datetime, timezone

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

DEFAULT_ENV_ID = "env-default"
DEFAULT_ENV_NAME = "Default"
MAX_NAME_LENGTH = 100
MAX_REMARK_LENGTH = 1000
MAX_SITES = 100


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


class _Record(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Site(_Record):
    """A domain visited in an environment and when it was last opened."""

    domain: str
    last_opened: datetime


class Geolocation(_Record):
    """Where the environment's pages are told they are (degrees; accuracy in metres)."""

    latitude: float = Field(ge=-90, le=90)
    longitude: float = Field(ge=-180, le=180)
    accuracy: float = Field(default=50.0, ge=0)


class Environment(_Record):
    id: str = Field(pattern=r"^env-[a-z0-9-]+$")
    name: str = Field(min_length=1, max_length=MAX_NAME_LENGTH)
    remark: str = Field(default="", max_length=MAX_REMARK_LENGTH)
    created_at: datetime = Field(default_factory=utc_now)
    sites: list[Site] = Field(default_factory=list)
    allowed_domains: list[str] = Field(default_factory=list)
    blocked_domains: list[str] = Field(default_factory=list)
    user_agent: str = ""
    languages: list[str] = Field(default_factory=list)
    timezone: str = ""
    geolocation: Geolocation | None = None

    @property
    def has_identity(self) -> bool:
        return bool(self.user_agent or self.languages or self.timezone or self.geolocation)

    @property
    def is_default(self) -> bool:
        return self.id == DEFAULT_ENV_ID


class EnvsDocument(_Record):
    """The whole of `envs.json`."""

    schema_version: int = Field(default=1, alias="schema_version")
    environments: list[Environment] = Field(default_factory=list)


def default_environment() -> Environment:
    return Environment(id=DEFAULT_ENV_ID, name=DEFAULT_ENV_NAME)
