"""What every operation receives: the data folder, the stores, and the browser when the app runs one."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from envs.datadir import DataDir
from envs.jsonstore import StoreError
from envs.store import EnvError, EnvStore
from workflows.ports import BrowserPort, PageError


class TabBusyError(Exception):
    """A tab is held by a running workflow."""


@dataclass
class OpContext:
    data: DataDir
    envs: EnvStore
    browser: BrowserPort | None = None
    # Tab id -> the id of the workflow run that holds it; other callers get a busy error.
    tab_holders: dict[str, str] = field(default_factory=dict)

    # Errors that are the caller's or the disk's, reported as a failed envelope rather than a crash.
    expected_errors: ClassVar[tuple[type[Exception], ...]] = (EnvError, StoreError, TabBusyError, LookupError)
    page_errors: ClassVar[tuple[type[Exception], ...]] = (PageError,)

    def check_tab_free(self, tab_id: str, run_id: str | None = None) -> None:
        holder = self.tab_holders.get(tab_id)
        if holder is not None and holder != run_id:
            raise TabBusyError(f"tab {tab_id} is busy: workflow run {holder} is using it; wait for it to end "
                               f"or cancel it with run_cancel")
