"""The `browserpilot` command: env verbs, exit statuses, one instance per data folder, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.app_process import AppProcess, app_env, run_cli
from tests.support.server import LocalServer, Response

pytestmark = pytest.mark.e2e


def test_env_verbs_round_trip(data_dir: Path) -> None:
    created = run_cli(data_dir, "env", "create", "Work", "--remark", "alice@example.com", "--json")
    assert created.returncode == 0, created.stderr
    env_id = json.loads(created.stdout)["id"]
    assert run_cli(data_dir, "env", "rename", env_id, "Work (Alice)").returncode == 0
    assert run_cli(data_dir, "env", "remark", env_id, "main account").returncode == 0
    assert run_cli(data_dir, "env", "rename", "env-default", "Personal").returncode == 0
    listing = run_cli(data_dir, "env", "list")
    assert listing.returncode == 0
    assert listing.stdout.splitlines() == ["env-default\tPersonal", f"{env_id}\tWork (Alice)\tmain account"]
    deleted = run_cli(data_dir, "env", "delete", env_id)
    assert deleted.returncode == 0 and deleted.stdout.startswith(f"deleted {env_id}")
    assert [e["id"] for e in json.loads(run_cli(data_dir, "env", "list", "--json").stdout)] == ["env-default"]


@pytest.mark.parametrize("args, message", [
    (("env", "create", "  "), "the environment name is empty"),
    (("env", "create", "x" * 101), "101 characters long"),
    (("env", "delete", "env-default"), "cannot be deleted"),
    (("env", "delete", "env-missing"), "no environment with id 'env-missing'"),
    (("env", "rename", "env-missing", "x"), "no environment with id 'env-missing'"),
])
def test_failures_exit_1_with_one_line_and_change_nothing(data_dir: Path, args: tuple[str, ...], message: str) -> None:
    run_cli(data_dir, "env", "list")
    before = (data_dir / "envs.json").read_bytes()
    result = run_cli(data_dir, *args)
    assert result.returncode == 1
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert (data_dir / "envs.json").read_bytes() == before


def test_usage_errors_exit_2(data_dir: Path) -> None:
    assert run_cli(data_dir, "env", "frobnicate").returncode == 2
    assert run_cli(data_dir, "env", "create").returncode == 2
    assert run_cli(data_dir, "--no-such-flag").returncode == 2


def test_data_dir_from_the_environment_variable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = app_env(BROWSERPILOT_HOME=str(home))
    import subprocess

    from tests.support.app_process import app_command

    result = subprocess.run([*app_command(), "env", "create", "Via env var"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert "Via env var" in (home / "envs.json").read_text("utf-8")


def test_a_data_folder_that_is_not_writable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    result = run_cli(blocker / "data", "env", "list")
    assert result.returncode == 1
    assert "is not writable" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_corrupt_envs_json_is_moved_aside_and_reported(data_dir: Path) -> None:
    (data_dir / "envs.json").write_text('{"schema_version": 1, "environments": [{"id": 5}]}')
    result = run_cli(data_dir, "env", "list")
    assert result.returncode == 0
    assert "moved aside" in result.stderr
    assert len(list(data_dir.glob("envs.json.corrupt-*"))) == 1
    assert result.stdout.startswith("env-default")


def test_second_instance_is_refused_and_touches_nothing(data_dir: Path, server: LocalServer) -> None:
    server.route("/", "<title>up</title><p>up</p>")
    run_cli(data_dir, "env", "create", "Keep me")
    with AppProcess(data_dir, "--open", server.url("/")) as app:
        server.wait_for("/")
        before = (data_dir / "envs.json").read_bytes()
        # A second app is refused; the env verbs now go through the running app's MCP endpoint instead
        # (tests/e2e/test_mcp.py), and are refused only when its MCP server is switched off.
        for args in (("--headless",), ("--headless", "--open", server.url("/"))):
            second = run_cli(data_dir, *args)
            assert second.returncode == 1, args
            assert "already running on the data folder" in second.stderr
            assert f"pid {app.process.pid}" in second.stderr
        assert (data_dir / "envs.json").read_bytes() == before
        rc, err = app.stop()
    assert rc == 0, err
    assert run_cli(data_dir, "env", "list").returncode == 0  # the lock is gone with the process


def test_without_a_display_the_gui_suggests_headless(data_dir: Path) -> None:
    import subprocess

    from tests.support.app_process import app_command

    env = {k: v for k, v in app_env().items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    result = subprocess.run([*app_command(), "--data-dir", str(data_dir)], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 1
    assert "no display found" in result.stderr and "--headless" in result.stderr


def test_env_import_and_export_speak_cookies_txt(data_dir: Path, server: LocalServer, tmp_path: Path) -> None:
    """`env import` takes curl's cookie jar, `env export --format netscape -o` gives curl a file that logs it in
    (each verb starts the app headless for its operation and stops it)."""
    import shutil
    import subprocess

    curl = shutil.which("curl")
    if curl is None:
        pytest.skip("curl is not installed")
    server.route("/login", "in", headers=[("Set-Cookie", "sid=bob-42; Path=/; HttpOnly; Max-Age=600")])
    server.routes["/account"] = lambda request: Response(
        "Welcome bob" if "sid=bob-42" in request.headers.get("cookie", "") else "no", content_type="text/plain")
    jar, out = tmp_path / "jar.txt", tmp_path / "out.txt"
    subprocess.run([curl, "-s", "-c", str(jar), server.url("/login")], check=True, timeout=30)
    imported = run_cli(data_dir, "env", "import", str(jar), "--name", "Bob", "--json")
    assert imported.returncode == 0, imported.stderr
    result = json.loads(imported.stdout)
    assert result["created"] and result["format"] == "netscape" and result["cookies"] == 1
    exported = run_cli(data_dir, "env", "export", result["env"], "--format", "netscape", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    assert "exported 1 cookies" in exported.stdout and out.stat().st_mode & 0o777 == 0o600
    fetched = subprocess.run([curl, "-s", "-b", str(out), server.url("/account")], capture_output=True, text=True,
                             timeout=30)
    assert fetched.stdout == "Welcome bob"
