"""Environments are persistent, isolated login containers: checked with the real app as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.app_process import AppProcess, run_cli
from tests.support.pages import add_login_routes, cookies_of
from tests.support.server import LocalServer

pytestmark = pytest.mark.e2e


def create_env(data_dir: Path, name: str) -> str:
    result = run_cli(data_dir, "env", "create", name, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["id"]


def visit(data_dir: Path, env_id: str, url: str, server: LocalServer, wait_path: str, count: int) -> None:
    with AppProcess(data_dir, "--env", env_id, "--open", url) as app:
        server.wait_for(wait_path, count)
        rc, err = app.stop()
    assert rc == 0, err


def test_login_survives_restart_and_stays_in_its_environment(data_dir: Path, server: LocalServer) -> None:
    add_login_routes(server)
    env_a = create_env(data_dir, "Account A")
    env_b = create_env(data_dir, "Account B")

    visit(data_dir, env_a, server.url("/login?user=alice"), server, "/stored", 1)
    # Same site, other environment: nothing of alice's login is visible there.
    visit(data_dir, env_b, server.url("/whoami"), server, "/report", 1)
    assert cookies_of(server.hits("/whoami")[-1]) == {}
    assert server.hits("/report")[-1].arg("ls") == ""
    assert server.hits("/report")[-1].arg("idb") == ""

    # A new process on the same data folder: environment A is still logged in.
    visit(data_dir, env_a, server.url("/whoami"), server, "/report", 2)
    assert cookies_of(server.hits("/whoami")[-1]) == {"sid": "alice-token", "pref": "alice-pref"}
    assert server.hits("/report")[-1].arg("ls") == "alice"
    assert server.hits("/report")[-1].arg("idb") == "alice"

    # The visit is remembered in the environment's recent sites.
    listing = json.loads(run_cli(data_dir, "env", "list", "--json").stdout)
    sites = {env["id"]: [site["domain"] for site in env["sites"]] for env in listing}
    assert sites[env_a] == ["127.0.0.1"]


def test_deleted_environment_loses_its_data_and_a_new_one_is_logged_out(data_dir: Path, server: LocalServer) -> None:
    add_login_routes(server)
    env_a = create_env(data_dir, "Shop")
    visit(data_dir, env_a, server.url("/login?user=bob"), server, "/stored", 1)
    partition = data_dir / "partitions" / env_a
    assert (partition / "Cookies").exists()

    result = run_cli(data_dir, "env", "delete", env_a)
    assert result.returncode == 0, result.stderr
    assert not partition.exists()
    assert not any(p.name.startswith(".trash-") for p in (data_dir / "partitions").iterdir())

    env_new = create_env(data_dir, "Shop")
    assert env_new != env_a
    visit(data_dir, env_new, server.url("/whoami"), server, "/report", 1)
    assert cookies_of(server.hits("/whoami")[-1]) == {}
    assert server.hits("/report")[-1].arg("ls") == ""
