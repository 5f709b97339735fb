"""Tab groups: named, coloured groups of an environment's window, kept in `groups.json`.

A group belongs to one environment (`env`); its id is `grp-<hex>`. Which tab is in which group is the
window's business (tabs live as long as the window); the groups themselves, with their names and colours,
stay across restarts. Colours are `#rrggbb`; Chrome's group colour names (grey, blue, red, yellow, green,
pink, purple, cyan, orange) and `#rgb` are accepted and stored as `#rrggbb`. Listeners hear of every change
(the windows redraw their tab bars), through the store's change feed (plumbing/changes.py; the key is the
environment whose groups changed). Pure Python; written atomically through the store's saver (in the app the
save manager, off the Qt thread; at once otherwise).
"""

from __future__ import annotations

import logging
import re
import secrets
from typing import Callable

from pydantic import BaseModel, ConfigDict, Field

from plumbing import loggers
from plumbing.changes import StoreChange, StoreChanges
from plumbing.datadir import DataDir
from plumbing.jsonstore import JsonStore, encode_json
from plumbing.savemanager import ImmediateSaver, Saver

log = logging.getLogger(loggers.ENVS)

DEFAULT_COLOR = "#1a73e8"
MAX_GROUP_NAME = 60
NAMED_COLORS = {"grey": "#5f6368", "gray": "#5f6368", "blue": "#1a73e8", "red": "#d93025", "yellow": "#f9ab00",
                "green": "#188038", "pink": "#d01884", "purple": "#a142f4", "cyan": "#007b83", "orange": "#fa903e"}
_HEX = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")


class GroupError(Exception):
    """A request about tab groups that cannot be carried out; one line for a person."""


class TabGroup(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = Field(pattern=r"^grp-[a-z0-9]+$")
    env: str
    name: str = Field(max_length=MAX_GROUP_NAME)
    color: str = Field(pattern=r"^#[0-9a-f]{6}$")


class GroupsDocument(BaseModel):
    model_config = ConfigDict(extra="ignore")

    schema_version: int = 1
    groups: list[TabGroup] = Field(default_factory=list)


def clean_color(color: str | None) -> str:
    if color is None or not color.strip():
        return DEFAULT_COLOR
    text = color.strip().lower()
    if text in NAMED_COLORS:
        return NAMED_COLORS[text]
    if not _HEX.match(text):
        raise GroupError(f"the colour {color!r} is not #rrggbb, #rgb or one of {', '.join(sorted(NAMED_COLORS))}")
    return text if len(text) == 7 else "#" + "".join(ch * 2 for ch in text[1:])


def clean_group_name(name: str) -> str:
    cleaned = " ".join((name or "").split())
    if len(cleaned) > MAX_GROUP_NAME:
        raise GroupError(f"the group name is {len(cleaned)} characters long; at most {MAX_GROUP_NAME} are allowed")
    return cleaned  # an empty name is allowed: the group shows only its colour


GroupListener = Callable[[str], None]  # env id whose groups changed


class GroupStore:
    """The tab groups of one data folder."""

    def __init__(self, data: DataDir, saver: Saver | None = None, changes: StoreChanges | None = None) -> None:
        self._file = JsonStore(data.groups_json, GroupsDocument, GroupsDocument)
        self._saver: Saver = saver or ImmediateSaver()
        self.changes = changes or StoreChanges()
        loaded = self._file.load()
        self.load_problem = loaded.problem
        self._doc = loaded.document

    def subscribe(self, listener: GroupListener) -> Callable[[], None]:
        """Hear `listener(env_id)` when an environment's groups changed (from the change feed)."""

        def hear(change: StoreChange) -> None:
            listener(change.key or "")

        return self.changes.subscribe(hear, ("groups",))

    def list(self, env_id: str | None = None) -> list[TabGroup]:
        return [g.model_copy() for g in self._doc.groups if env_id is None or g.env == env_id]

    def get(self, group_id: str) -> TabGroup:
        for group in self._doc.groups:
            if group.id == group_id:
                return group.model_copy()
        raise GroupError(f"there is no tab group with id {group_id!r}; group_list shows them")

    def create(self, env_id: str, name: str, color: str | None = None) -> TabGroup:
        group = TabGroup(id=f"grp-{secrets.token_hex(4)}", env=env_id, name=clean_group_name(name),
                         color=clean_color(color))
        self._commit(lambda doc: doc.groups.append(group), env_id)
        log.info("created tab group %s in %s", group.id, env_id)
        return group.model_copy()

    def update(self, group_id: str, name: str | None = None, color: str | None = None) -> TabGroup:
        current = self.get(group_id)
        changes: dict[str, str] = {}
        if name is not None:
            changes["name"] = clean_group_name(name)
        if color is not None:
            changes["color"] = clean_color(color)
        updated = current.model_copy(update=changes)

        def apply(doc: GroupsDocument) -> None:
            doc.groups = [updated if g.id == group_id else g for g in doc.groups]

        self._commit(apply, current.env)
        return updated.model_copy()

    def drop_env(self, env_id: str) -> None:
        """Forget every group of a deleted environment."""
        if any(g.env == env_id for g in self._doc.groups):
            self._commit(lambda doc: setattr(doc, "groups", [g for g in doc.groups if g.env != env_id]), env_id)

    def _commit(self, change: Callable[[GroupsDocument], None], env_id: str) -> None:
        candidate = self._doc.model_copy(deep=True)
        change(candidate)
        dump = self._file.dump  # rendered maybe later, on the saver's thread: nothing changes `candidate` again
        self._saver.save(self._file.path, lambda: encode_json(dump(candidate)))
        self._doc = candidate
        self.changes.publish("groups", "updated", env_id)
