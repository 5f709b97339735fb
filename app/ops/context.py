"""What every operation receives: the data folder, the stores, and the browser when the app runs one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from envs.datadir import DataDir
from envs.jsonstore import StoreError
from envs.store import EnvError, EnvStore
from workflows.ports import BrowserPort


@dataclass
class OpContext:
    data: DataDir
    envs: EnvStore
    browser: BrowserPort | None = None

    # Errors that are the caller's or the disk's, reported as a failed envelope rather than a crash.
    expected_errors: ClassVar[tuple[type[Exception], ...]] = (EnvError, StoreError)
