"""`./dev.sh install-desktop` and the bundle's install.sh: the menu entry and icons land in the XDG data folder."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def desktop_env(data_home: Path) -> dict[str, str]:
    return {**os.environ, "XDG_DATA_HOME": str(data_home)}


def entry_values(path: Path) -> dict[str, str]:
    lines = path.read_text("utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if "=" in line)


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def validate(path: Path) -> None:
    if shutil.which("desktop-file-validate") is None:
        return  # desktop-file-utils not installed: the other checks still ran
    checked = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0 and "error" not in checked.stdout, checked.stdout + checked.stderr


def test_the_shipped_entry_is_valid() -> None:
    validate(ROOT / "packaging" / "browserpilot.desktop")
    values = entry_values(ROOT / "packaging" / "browserpilot.desktop")
    assert values["Icon"] == "browserpilot" and values["Exec"].split()[0] == "browserpilot"


def test_install_desktop_puts_the_entry_and_icons_in_the_xdg_folder(tmp_path: Path) -> None:
    data_home = tmp_path / "share"
    done = subprocess.run([str(ROOT / "dev.sh"), "install-desktop"], capture_output=True, text=True,
                          env=desktop_env(data_home), timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    entry = data_home / "applications" / "browserpilot.desktop"
    validate(entry)
    command = entry_values(entry)["Exec"]
    assert command == str(ROOT / ".venv" / "bin" / "browserpilot") and os.access(command, os.X_OK)
    for size in SIZES:
        assert png_size(data_home / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "browserpilot.png") == (size, size)
    scalable = data_home / "icons" / "hicolor" / "scalable" / "apps" / "browserpilot.svg"
    assert scalable.read_bytes() == (ROOT / "packaging" / "browserpilot.svg").read_bytes()

    removed = subprocess.run([str(ROOT / "dev.sh"), "install-desktop", "--uninstall"], capture_output=True, text=True,
                             env=desktop_env(data_home), timeout=300, stdin=subprocess.DEVNULL)
    assert removed.returncode == 0, removed.stderr
    assert not entry.exists() and not list((data_home / "icons").rglob("browserpilot.*"))


@pytest.mark.parametrize("folder", ["Browser Pilot's \"100%\" $build"])
def test_install_sh_quotes_an_executable_path_with_spaces_and_specials(tmp_path: Path, folder: str) -> None:
    bundle = tmp_path / folder
    (bundle / "share" / "applications").mkdir(parents=True)
    shutil.copy(ROOT / "packaging" / "browserpilot.desktop", bundle / "share" / "applications")
    scalable = bundle / "share" / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True)
    shutil.copy(ROOT / "packaging" / "browserpilot.svg", scalable)
    program = bundle / "browserpilot"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    shutil.copy(ROOT / "packaging" / "install.sh", bundle)
    data_home = tmp_path / "share"
    done = subprocess.run([str(bundle / "install.sh")], capture_output=True, text=True, env=desktop_env(data_home),
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    entry = data_home / "applications" / "browserpilot.desktop"
    validate(entry)
    # Unescaped as the spec says (string level, then the quoted argument), the value is the path again.
    value = entry_values(entry)["Exec"].replace("\\\\", "\\").replace("%%", "%")
    assert value.startswith('"') and value.endswith('"')
    unquoted = value[1:-1]
    for char in ('"', "`", "$", "\\"):
        unquoted = unquoted.replace("\\" + char, char)
    assert unquoted == str(program)
    assert (data_home / "icons" / "hicolor" / "scalable" / "apps" / "browserpilot.svg").is_file()
