"""docs/operations.md is what docs/operations_reference.py makes of the registry today: an operation added,
renamed or given another parameter fails here until the reference is regenerated."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("operations_reference", ROOT / "docs" / "operations_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_operations_reference_is_up_to_date() -> None:
    reference = generator()
    written = reference.TARGET.read_text("utf-8") if reference.TARGET.exists() else ""
    assert written == reference.render(), f"docs/operations.md is out of date; regenerate it: {reference.COMMAND}"


def test_the_reference_lists_every_operation_with_its_parameters() -> None:
    reference = generator()
    from app.wiring.registry import build_registry

    registry = build_registry()
    text = reference.render()
    for name in registry.names():
        assert f"\n### {name}\n" in text
        for parameter in registry.get(name).parameter_names():
            assert f"| `{parameter}` |" in text, (name, parameter)
