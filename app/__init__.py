"""BrowserPilot: the Qt application, its browser adapter, operations, GUI and command line."""

import importlib.abc
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Sequence


class _PydanticBeforePySide6(importlib.abc.MetaPathFinder):
    """pydantic imports its submodules lazily; when that first happens after PySide6 is loaded, shiboken's
    import hook inspects the half-imported module and breaks the import (circular ImportError). So pydantic's
    submodules are loaded just before PySide6 is -- and not at all by processes that never load Qt (the
    `browserpilot mcp` bridge starts the app sooner without them)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname == "PySide6":
            sys.meta_path.remove(self)
            import pydantic.fields  # noqa: F401
            import pydantic.types  # noqa: F401
            from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError  # noqa: F401
        return None


if "PySide6" in sys.modules:
    import pydantic.fields  # noqa: F401
    import pydantic.types  # noqa: F401
else:
    sys.meta_path.insert(0, _PydanticBeforePySide6())

__version__ = "0.1.0"
