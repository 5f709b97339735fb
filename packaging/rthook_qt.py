"""PyInstaller runtime hook, in place of PyInstaller's own for PySide6 (dropped in browserpilot.spec).

That hook imports PySide6.QtCore at every start of the executable, to register a qt.conf that PySide6's wheels
register themselves when QtCore loads. It cost every `browserpilot` command ~0.2 s, and with Qt loaded early
`app/__init__.py` must load pydantic at once (~0.25 s more): twice on an agent's cold start (the MCP bridge,
then the app it starts). This hook sets the same two paths without importing anything; Qt itself loads when
the app first needs it.
"""

import os
import sys

_qt = os.path.join(getattr(sys, "_MEIPASS", ""), "PySide6", "Qt")
os.environ["QT_PLUGIN_PATH"] = os.path.join(_qt, "plugins")
os.environ["QML2_IMPORT_PATH"] = os.path.join(_qt, "qml")
