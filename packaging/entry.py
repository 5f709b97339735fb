"""PyInstaller's entry script: the bundle's `browserpilot` executable is the same `app.cli.main:entry` the wheel installs."""

from app.cli.main import entry

if __name__ == "__main__":
    entry()
