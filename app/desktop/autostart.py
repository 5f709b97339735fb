"""Start at login: the XDG autostart entry `~/.config/autostart/browserpilot.desktop` (`$XDG_CONFIG_HOME` when
set), written or removed by the setting. The entry starts the app minimised to the tray (`--minimized`) on the
data folder it runs on now (named only when it is not the default one). The command is the one running now: the
installed `browserpilot` (the .deb's /usr/bin/browserpilot, a bundle's executable, a venv's script), so the
entry keeps working as long as that stays where it is. No Qt."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from plumbing.atomic import atomic_write_text
from plumbing.datadir import resolve_data_dir

ENTRY_NAME = "browserpilot.desktop"


def autostart_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME", "").strip() or str(Path.home() / ".config")
    return Path(base) / "autostart" / ENTRY_NAME


def app_command() -> list[str]:
    """How to start this same app again: the bundle's executable, the `browserpilot` script, or the module."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name == "browserpilot" and script.exists():
        return [str(script.absolute())]
    sibling = Path(sys.executable).with_name("browserpilot")
    if sibling.exists():
        return [str(sibling)]
    return [sys.executable, "-m", "app.cli"]


def entry_text(data_root: Path) -> str:
    command = app_command()
    if data_root.resolve() != resolve_data_dir(None):
        command += ["--data-dir", str(data_root)]
    command.append("--minimized")
    exec_line = " ".join(shlex.quote(part).replace("%", "%%") for part in command)
    return ("[Desktop Entry]\n"
            "Type=Application\n"
            "Name=BrowserPilot\n"
            "Comment=Runs your scheduled workflows; waits in the tray\n"
            f"Exec={exec_line}\n"
            "Icon=browserpilot\n"
            "Terminal=false\n"
            "X-GNOME-Autostart-enabled=true\n")


def is_enabled() -> bool:
    return autostart_file().is_file()


def set_enabled(enabled: bool, data_root: Path) -> Path:
    """Write (or remove) the entry; OSError when the folder cannot be written."""
    target = autostart_file()
    if enabled:
        atomic_write_text(target, entry_text(data_root))
    else:
        target.unlink(missing_ok=True)
    return target
