"""`python -m app.cli`: the `browserpilot` command."""

from app.cli.main import entry

entry()
