"""The wheel as a user gets it: built from the tree, installed in a fresh venv outside the checkout, run from there.

To stay fast and offline the wheel is built without build isolation (the test extras bring setuptools) and the
fresh venv reaches the already-installed dependencies through one `.pth` line pointing at this venv's
site-packages (the wheel itself is installed with `--no-deps`). Nothing of the checkout is importable there: the
test checks that `app` and its resources come from the new venv, then runs a workflow whose click needs the
injected JavaScript.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.support.app_process import app_env
from tests.support.server import LocalServer, Response

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("app", "plumbing", "envs", "workflows", "resources", "pyproject.toml", "setup.py", "README.md")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`pip wheel .` of a copy of the working tree (so the build leaves nothing in the checkout)."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.qm")  # .qm must come from the build itself
    source.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                            "-q", "-w", str(work / "dist")], capture_output=True, text=True, cwd=work, timeout=120)
    assert built.returncode == 0, built.stderr
    (path,) = (work / "dist").glob("browserpilot-*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed; returns its `browserpilot` script."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(venv)],
                   check=True, timeout=60)
    python = venv / "bin" / "python"
    purelib = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "browserpilot-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", "utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                           str(wheel)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return venv / "bin" / "browserpilot"


def outside_env() -> dict[str, str]:
    """The app's subprocess environment without anything that would put the checkout on sys.path."""
    return {k: v for k, v in app_env().items() if k not in ("PYTHONPATH", "PYTHONHOME")}


def test_the_wheel_carries_every_resource_and_compiled_translations(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    tree = {p.relative_to(ROOT / "resources").as_posix() for p in (ROOT / "resources").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".qm")}
    assert {"js/locator.js", "styles/app.qss", "icons/browserpilot.svg"} <= tree
    missing = sorted(name for name in tree if f"app/assets/{name}" not in names)
    assert not missing, f"resources left out of the wheel: {missing}"
    for ts in sorted(n for n in tree if n.startswith("i18n/") and n.endswith(".ts")):
        assert f"app/assets/{ts[:-3]}.qm" in names, f"{ts} was not compiled into the wheel"


def test_the_installed_wheel_runs_a_workflow_outside_the_checkout(installed: Path, server: LocalServer,
                                                                  tmp_path: Path) -> None:
    venv = installed.parents[1]
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import app, app.startup.resources as r; print(app.__file__); print(r.JS_DIR); "
                            "print(r.APP_ICON.is_file() and r.APP_STYLE.is_file())"],
                           capture_output=True, text=True, cwd=tmp_path, env=outside_env(), timeout=60)
    module, js_dir, found = where.stdout.split("\n")[:3]
    assert Path(module).is_relative_to(venv) and Path(js_dir).is_relative_to(venv), where.stdout + where.stderr
    assert found == "True"

    server.route("/form", lambda r: Response(
        "<title>Form</title><h1>waiting</h1>"
        "<button onclick=\"document.querySelector('h1').textContent = 'clicked ' + event.isTrusted\">Greet</button>"))
    nodes = [{"id": "start", "data": {"type": "start"}},
             {"id": "open", "data": {"type": "goto", "url": server.url("/form")}},
             {"id": "press", "data": {"type": "click", "locator": {"selector": "text=Greet"}}},
             {"id": "read", "data": {"type": "script", "source": "return {h: document.querySelector('h1').textContent}"}},
             {"id": "end", "data": {"type": "end", "outputs": [{"variable": "heading", "value_selector": ["read", "h"]}]}}]
    file = tmp_path / "press.json"
    file.write_text(json.dumps({"kind": "app", "version": "0.3.0", "app": {"name": "Press", "mode": "workflow"},
                                "workflow": {"graph": {"nodes": nodes, "edges": [
                                    {"source": a["id"], "target": b["id"]} for a, b in zip(nodes, nodes[1:])]}}}))
    result = subprocess.run([str(installed), "--data-dir", str(tmp_path / "data"), "run", str(file), "--headless",
                             "--json"], capture_output=True, text=True, cwd=tmp_path, env=outside_env(), timeout=120,
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["outputs"] == {"heading": "clicked true"}
