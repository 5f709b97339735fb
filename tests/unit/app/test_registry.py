"""The operations registry: one door, one envelope, clear errors for bad parameters."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.ops import OpContext

from app.wiring.registry import build_registry
from envs.datadir import DataDir
from envs.store import EnvStore


def call(tmp_path: Path, name: str, params: dict[str, object] | None = None) -> dict[str, object]:
    data = DataDir(tmp_path)
    ctx = OpContext(data=data, envs=EnvStore(data))
    return asyncio.run(build_registry().call(ctx, name, params))


def test_success_envelope(tmp_path: Path) -> None:
    result = call(tmp_path, "env_create", {"name": "Work", "remark": "x"})
    assert result["ok"] is True and result["control"] is None
    assert result["environment"]["name"] == "Work"  # type: ignore[index]


def test_unknown_parameter_lists_the_valid_ones(tmp_path: Path) -> None:
    result = call(tmp_path, "env_create", {"name": "Work", "colour": "red"})
    assert result == {"ok": False, "control": None,
                      "error": "unknown parameter 'colour' for env_create; valid parameters: name, remark, userAgent, languages, "
                               "timezone, geolocation",
                      "code": "invalid_parameters"}


def test_missing_parameter_and_unknown_operation(tmp_path: Path) -> None:
    assert call(tmp_path, "env_update", {})["error"] == "env_update needs the parameter 'env'"
    result = call(tmp_path, "env_explode")
    assert result["ok"] is False and "unknown operation 'env_explode'" in str(result["error"])
    assert "env_list" in str(result["error"])


def test_domain_errors_become_failed_envelopes(tmp_path: Path) -> None:
    result = call(tmp_path, "env_delete", {"env": "env-default"})
    assert result["ok"] is False and "cannot be deleted" in str(result["error"])


def test_browser_operations_say_they_need_the_app(tmp_path: Path) -> None:
    result = call(tmp_path, "env_open", {"env": "env-default"})
    assert result["ok"] is False and "needs the running app" in str(result["error"])
