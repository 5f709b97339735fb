"""`workflows/` and `envs/` never import Qt: checked in the source and in a fresh interpreter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PURE = ("workflows", "envs")
QT_MODULES = ("PySide6", "shiboken6", "qasync")


def test_pure_packages_have_no_qt_imports_in_source() -> None:
    offenders = []
    for package in PURE:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in QT_MODULES]
    assert offenders == []


def test_pure_packages_load_without_qt() -> None:
    modules = [f"{p}.{path.stem}" for p in PURE for path in (ROOT / p).glob("*.py") if path.stem != "__init__"]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + \
        "print(sorted(m for m in sys.modules if m.split('.')[0] in %r))" % (QT_MODULES,)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
