"""Environment → Import Login from Browser…: copy the chosen sites' logins (cookies) from a browser installed here
(Chrome, Chromium, Brave, Edge, Firefox) into a new or an existing environment.

The person picks the browser and profile (those found here, `env_browser_profiles`, or a profile folder), and Find
Sites lists the sites that profile has cookies for (`env_import` without domains answers with them, copying
nothing); none is ticked, and Import copies only the ticked ones (`env_import` with domains) and says how many
cookies for which sites went into which environment. Every step is the operation the command line and MCP use.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout, QHBoxLayout, QLabel,
                               QLineEdit, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget)

from app.ops import Operation, env_transfer_ops
from app.ops.results import BrowserProfilesResult, EnvImportResult
from app.ui.op_runner import OpRunner
from app.ui.follow import refill
from plumbing import loggers
from workflows.envelope import Envelope

log = logging.getLogger(loggers.UI)

NEW_ENV = ""  # the "into" list's first entry: a new environment
BROWSER_NAMES = {"chrome": "Google Chrome", "chromium": "Chromium", "brave": "Brave", "edge": "Microsoft Edge",
                 "firefox": "Firefox"}


class BrowserLoginDialog(QDialog):
    def __init__(self, ops: OpRunner, into: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("browser-login-dialog")
        self.setWindowTitle(self.tr("Import Login from Browser"))
        self.ops = ops
        self.ctx = ops.ctx
        self.result_view: EnvImportResult | None = None
        self._task: asyncio.Task[None] | None = None
        self._profiles: dict[str, list[str]] = {}

        self.browser = QComboBox(self)
        self.browser.setObjectName("browser-login-browser")
        for key, label in BROWSER_NAMES.items():
            self.browser.addItem(label, key)
        self.profile = QComboBox(self)
        self.profile.setObjectName("browser-login-profile")
        self.profile.setEditable(True)
        self.profile.lineEdit().setPlaceholderText(self.tr("the most recently used profile"))
        browse = QPushButton(self.tr("Folder…"), self)
        browse.setObjectName("browser-login-browse")
        browse.clicked.connect(self._browse)
        profile_row = QHBoxLayout()
        profile_row.addWidget(self.profile, 1)
        profile_row.addWidget(browse)
        self.find_button = QPushButton(self.tr("Find Sites"), self)
        self.find_button.setObjectName("browser-login-find")
        self.find_button.clicked.connect(self.find_sites)
        self.sites = QListWidget(self)
        self.sites.setObjectName("browser-login-sites")
        self.sites.itemChanged.connect(lambda _item: self._follow())
        self.into = QComboBox(self)
        self.into.setObjectName("browser-login-into")
        for text, env_id in self._into_choices():
            self.into.addItem(text, env_id)
        if into is not None and self.into.findData(into) >= 0:
            self.into.setCurrentIndex(self.into.findData(into))
        self.name = QLineEdit(self)
        self.name.setObjectName("browser-login-name")
        self.name.setPlaceholderText(self.tr("Name of the new environment"))
        self.into.currentIndexChanged.connect(lambda _i: self._follow())
        self.status = QLabel(self)
        self.status.setObjectName("browser-login-status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.addRow(self.tr("Browser"), self.browser)
        form.addRow(self.tr("Profile"), profile_row)
        form.addRow("", self.find_button)
        form.addRow(self.tr("Sites"), self.sites)
        form.addRow(self.tr("Into"), self.into)
        form.addRow("", self.name)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.import_button = self.buttons.addButton(self.tr("Import"), QDialogButtonBox.ButtonRole.ActionRole)
        self.import_button.setObjectName("browser-login-import")
        self.import_button.clicked.connect(self.import_chosen)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(self.tr("Copies the logins (cookies) of the sites you tick from a browser on this "
                                        "computer. Nothing is copied until you choose the sites."), self))
        layout.addLayout(form)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self.browser.currentIndexChanged.connect(lambda _i: self._show_profiles())
        self._follow()
        self.resize(560, 520)
        self._call(env_transfer_ops.env_browser_profiles, {}, self._profiles_found)

    # -- steps --------------------------------------------------------------------------------------------------
    def _call(self, op: Operation[Any, Any], params: dict[str, Any], then: Callable[[Envelope[Any]], None]
              ) -> asyncio.Task[None] | None:
        self._busy(True)

        def done(answer: Envelope[Any]) -> None:
            self._task = None
            self._busy(False)
            then(answer)

        self._task = self.ops.start(op, params, done, owner=self)
        return self._task

    def _busy(self, busy: bool) -> None:
        self.find_button.setEnabled(not busy)
        self.import_button.setEnabled(not busy and bool(self.chosen()))

    def _profiles_found(self, answer: Envelope[BrowserProfilesResult]) -> None:
        found = answer.data.browsers if answer.data is not None else []
        self._profiles = {b.browser: list(b.profiles) for b in found}
        if self._profiles:  # the first browser found here
            first = next(iter(self._profiles))
            self.browser.setCurrentIndex(self.browser.findData(first))
        self._show_profiles()

    def _show_profiles(self) -> None:
        browser = self.browser.currentData()
        self.profile.clear()
        self.profile.addItems(self._profiles.get(browser, []))
        if not self._profiles.get(browser):
            self.status.setText(self.tr("No profile of {browser} was found here: give its profile folder.").format(
                browser=self.browser.currentText()))
        else:
            self.status.setText("")
        self.sites.clear()
        self._follow()

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("The browser's profile folder"))
        if folder:
            self.profile.setEditText(folder)

    def source_params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"from_browser": self.browser.currentData()}
        if self.profile.currentText().strip():
            params["profile"] = self.profile.currentText().strip()
        return params

    def find_sites(self) -> asyncio.Task[None] | None:
        """List the sites the chosen profile has cookies for (nothing is copied)."""
        self.sites.clear()
        self.status.setText(self.tr("Reading the profile's cookies…"))
        return self._call(env_transfer_ops.env_import, self.source_params(), self._sites_found)

    def _sites_found(self, answer: Envelope[EnvImportResult]) -> None:
        if answer.code != "sites_needed":  # without domains env_import lists the sites and copies nothing
            self.status.setText(str(answer.error or self.tr("Nothing was found.")))
            return
        for site in answer.details.get("sites") or []:
            item = QListWidgetItem(self.tr("{site} — %n cookie(s)", "", int(site["cookies"])).format(site=site["site"]))
            item.setData(Qt.ItemDataRole.UserRole, site["site"])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.sites.addItem(item)
        self.status.setText(self.tr("%n site(s) in {source}: tick the ones to copy.", "",
                                    self.sites.count()).format(source=answer.details.get("source")))
        self._follow()

    def chosen(self) -> list[str]:
        return [self.sites.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.sites.count())
                if self.sites.item(i).checkState() == Qt.CheckState.Checked]

    def _into_choices(self) -> list[tuple[str, str]]:
        return [(self.tr("A new environment"), NEW_ENV), *((env.name, env.id) for env in self.ctx.envs.list())]

    def environments_changed(self) -> None:
        """The environment store changed (one made, renamed or deleted elsewhere, or by this dialog's import):
        "Into" offers the environments there are now, the person's choice staying while it is still there."""
        refill(self.into, self._into_choices())

    def _follow(self) -> None:
        self.name.setVisible(self.into.currentData() == NEW_ENV)
        self.import_button.setEnabled(bool(self.chosen()) and (self._task is None or self._task.done()))

    def import_chosen(self) -> asyncio.Task[None] | None:
        """Copy the ticked sites' cookies into the chosen environment."""
        chosen = self.chosen()
        if not chosen:
            return None
        params = {**self.source_params(), "domains": chosen}
        if self.into.currentData() != NEW_ENV:
            params["env"] = self.into.currentData()
        elif self.name.text().strip():
            params["name"] = self.name.text().strip()
        self.status.setText(self.tr("Copying…"))
        return self._call(env_transfer_ops.env_import, params, self._imported)

    def _imported(self, answer: Envelope[EnvImportResult]) -> None:
        if answer.data is None:
            self.status.setText(self.tr("Not imported: {error}").format(error=answer.error))
            return
        imported = self.result_view = answer.data
        env = self.ctx.envs.get(imported.env)
        sites = ", ".join(f"{s.site} ({s.cookies})" for s in imported.sites or [])
        text = self.tr("Copied {cookies} of {total} cookies into {env}: {sites}.").format(
            cookies=imported.cookies, total=imported.total, env=env.name, sites=sites)
        if imported.failed:
            text += " " + self.tr("{n} could not be set.").format(n=imported.failed)
        if imported.undecryptable:
            text += " " + self.tr("{n} cookies of the profile could not be decrypted.").format(n=imported.undecryptable)
        self.status.setText(text)
