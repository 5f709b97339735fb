"""`browserpilot env import --from-browser …` and `env export --format playwright` as a script uses them: the real app
process, a real profile of Debian's chromium that logged in to two local sites, Playwright's Chromium opening the
exported state."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.app_process import run_cli
from tests.support.browser_profiles import CHROMIUM, chromium_login, login_site, playwright_page_text
from tests.support.server import LocalServer

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")]


def test_a_chromium_login_imported_by_the_command_line_opens_in_playwright(data_dir: Path, server: LocalServer,
                                                                            tmp_path: Path) -> None:
    shop = login_site(server, "alice")
    with LocalServer("127.0.0.2") as other_server:
        other = login_site(other_server, "bob")
        profile = tmp_path / "chromium-user-data"
        chromium_login(profile, [shop.url("/login"), other.url("/login")])
    source = f"chromium:{profile}"

    asked = run_cli(data_dir, "env", "import", "--from-browser", source, timeout=120)
    assert asked.returncode == 1
    assert "say which sites" in asked.stderr and "127.0.0.1\t2 cookies" in asked.stderr
    assert "127.0.0.2\t2 cookies" in asked.stderr and "--domains" in asked.stderr

    imported = run_cli(data_dir, "env", "import", "--from-browser", source, "--domains", "127.0.0.1", "--name",
                       "Alice from Chromium", timeout=120)
    assert imported.returncode == 0, imported.stderr
    assert f"imported 2 of 2 cookies from {source} into a new environment" in imported.stdout
    assert "127.0.0.1\t2 cookies" in imported.stdout and "127.0.0.2" not in imported.stdout
    env = re.search(r"(env-[0-9a-f]+)", imported.stdout)
    assert env is not None

    state = tmp_path / "state.json"
    exported = run_cli(data_dir, "env", "export", env.group(1), "--format", "playwright", "-o", str(state), timeout=120)
    assert exported.returncode == 0, exported.stderr
    assert state.stat().st_mode & 0o777 == 0o600
    cookies = json.loads(state.read_text("utf-8"))["cookies"]
    assert sorted((c["name"], c["domain"]) for c in cookies) == [("sid", "127.0.0.1"), ("theme", "127.0.0.1")]
    assert "Welcome alice" in playwright_page_text(state, shop.url("/account"))

    usage = run_cli(data_dir, "env", "import", "state.json", "--from-browser", "chrome")
    assert usage.returncode == 2 and "FILE or --from-browser" in usage.stderr
