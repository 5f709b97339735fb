"""Build steps pyproject.toml cannot say: `resources/` as the data package `app.assets`, translations compiled.

The metadata lives in pyproject.toml. This file only (1) lists the packages, adding `resources/` under the name
`app.assets` so a wheel, an editable install and a bundle all carry it and `importlib.resources` finds it
(app/startup/resources.py), and (2) compiles `resources/i18n/*.ts` into `.qm` inside the build when a Qt `lrelease` is
at hand (the `.qm` files are build output, not kept in the tree).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

ASSETS = "app.assets"


def find_lrelease() -> str | None:
    """Qt's translation compiler: $BROWSERPILOT_LRELEASE, next to this Python, on PATH, or in ./.venv."""
    candidates = [os.environ.get("BROWSERPILOT_LRELEASE", ""),
                  str(Path(sys.executable).with_name("pyside6-lrelease")),
                  shutil.which("pyside6-lrelease") or "", shutil.which("lrelease") or "",
                  str(Path(".venv/bin/pyside6-lrelease").resolve())]
    return next((c for c in candidates if c and Path(c).is_file() and os.access(c, os.X_OK)), None)


class BuildWithTranslations(build_py):
    """build_py, then `.ts` -> `.qm` for every translation copied into the build."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return  # an editable install reads resources/ itself
        i18n = Path(self.build_lib, *ASSETS.split("."), "i18n")
        sources = sorted(i18n.glob("*.ts")) if i18n.is_dir() else []
        if not sources:
            return
        lrelease = find_lrelease()
        if lrelease is None:
            self.warn(f"no pyside6-lrelease found: {len(sources)} translation(s) left uncompiled (set BROWSERPILOT_LRELEASE)")
            return
        # pyside6-lrelease is a Python script of the venv it comes from: without the isolated build's PYTHON*
        # variables, so that it sees its own PySide6.
        env = {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}
        for ts in sources:
            done = subprocess.run([lrelease, "-silent", str(ts), "-qm", str(ts.with_suffix(".qm"))], env=env,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"{lrelease} could not compile {ts.name}: {(done.stderr or done.stdout).strip()}")


# Every folder of resources/ (js, styles, icons/…, i18n) is a data package under app.assets; all its files go in.
ASSET_PACKAGES = [ASSETS, *(f"{ASSETS}.{name}" for name in find_namespace_packages(where="resources")
                            if "__pycache__" not in name)]

setup(
    packages=[*find_namespace_packages(include=["app*", "plumbing*", "envs*", "workflows*"], exclude=["*__pycache__*"]),
              *ASSET_PACKAGES],
    package_dir={ASSETS: "resources"},
    package_data={name: ["*"] for name in ASSET_PACKAGES},
    exclude_package_data={name: ["*.pyc"] for name in ASSET_PACKAGES},
    cmdclass={"build_py": BuildWithTranslations},
)
