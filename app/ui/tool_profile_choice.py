"""Which MCP tool profile a pasted client configuration asks for (app/catalog/profiles.py): a choice and a line saying
what it gives, shared by the settings' MCP section and the first-run welcome."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget


class ToolProfileChoice(QWidget):
    """core (the default), full or original; `changed` carries the profile's name."""

    changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.combo = QComboBox(self)
        self.combo.setObjectName("mcp-tools-profile")
        self.hints: dict[str, str] = {
            "core": self.tr("The default: the tools for a whole task, few enough for clients that take only 40. "
                            "The agent lists more with tools_enable when it needs them."),
            "full": self.tr("Every tool at once. Clients that take a limited number of tools drop the rest."),
            "original": self.tr("For agents and SKILL files written for the original BrowserPilot: its tool "
                                "names and call forms, results as JSON text."),
        }
        for profile, label in (("core", self.tr("Core (default)")), ("full", self.tr("Full")),
                               ("original", self.tr("Original BrowserPilot's tools"))):
            self.combo.addItem(label, profile)
        self.hint = QLabel(self)
        self.hint.setObjectName("mcp-tools-hint")
        self.hint.setProperty("role", "hint")
        self.hint.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("Tools:"), self))
        row.addWidget(self.combo, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.hint)
        self.combo.currentIndexChanged.connect(self._chosen)
        self._chosen()

    @property
    def profile(self) -> str:
        return str(self.combo.currentData())

    def choose(self, profile: str) -> None:
        index = self.combo.findData(profile)
        if index >= 0:
            self.combo.setCurrentIndex(index)

    def _chosen(self, _index: int = 0) -> None:
        self.hint.setText(self.hints[self.profile])
        self.changed.emit(self.profile)
