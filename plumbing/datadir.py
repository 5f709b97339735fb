"""The layout of the data folder, in one place.

```
envs.json  settings.json  groups.json  browserpilot.lock  logs/browserpilot.log
partitions/<env-id>/   downloads/<env-id>/   captures/<env-id>/   runs/<run-id>/   exports/
```

The folder comes from `--data-dir`, else `BROWSERPILOT_HOME`, else `platformdirs.user_data_dir("BrowserPilot")`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

HOME_VARIABLE = "BROWSERPILOT_HOME"


def resolve_data_dir(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The data folder: the explicit argument, else `$BROWSERPILOT_HOME`, else the platform default."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    from_env = os.environ.get(HOME_VARIABLE, "").strip()
    if from_env:
        return Path(from_env).expanduser().resolve()
    return Path(platformdirs.user_data_dir("BrowserPilot", appauthor=False)).resolve()


@dataclass(frozen=True)
class DataDir:
    """Paths inside one data folder. Creating the object touches nothing on disk."""

    root: Path

    @property
    def envs_json(self) -> Path:
        return self.root / "envs.json"

    @property
    def groups_json(self) -> Path:
        return self.root / "groups.json"

    @property
    def settings_json(self) -> Path:
        return self.root / "settings.json"

    @property
    def lock_file(self) -> Path:
        return self.root / "browserpilot.lock"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def partitions(self) -> Path:
        return self.root / "partitions"

    def partition(self, env_id: str) -> Path:
        return self.partitions / env_id

    def downloads(self, env_id: str) -> Path:
        return self.root / "downloads" / env_id

    def captures(self, env_id: str) -> Path:
        """Screenshots, error shots and PDFs taken by page operations outside a workflow run."""
        return self.root / "captures" / env_id

    @property
    def runs(self) -> Path:
        return self.root / "runs"

    @property
    def exports(self) -> Path:
        return self.root / "exports"

    def check_writable(self) -> None:
        """Create the folder if needed and prove it is writable; raise `OSError` with a clear message if not."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            probe = self.root / f".write-probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise OSError(f"the data folder {self.root} is not writable: {exc.strerror or exc}") from exc
