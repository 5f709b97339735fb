"""PyInstaller's entry script: the bundle's `browserpilot` executable is the same `app.cli:entry` the wheel installs."""

from app.cli import entry

if __name__ == "__main__":
    entry()
