"""BrowserPilot: the Qt application, its browser adapter, operations, GUI and command line."""

# pydantic imports its submodules lazily; when that first happens after PySide6 is loaded, shiboken's import
# hook inspects the half-imported module and breaks the import (circular ImportError). Load them now.
import pydantic.fields  # noqa: F401
import pydantic.types  # noqa: F401
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError  # noqa: F401

__version__ = "0.1.0"
