"""The Simplified Chinese UI: which language the app picks, that the catalogue is complete and keeps every
placeholder, that it covers every string of the code, and that the real windows speak Chinese (and English)."""

from __future__ import annotations

import ast
import importlib.util
import re
import os
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Iterator

import pytest
from PySide6.QtWidgets import (QApplication, QDialogButtonBox, QLabel, QPushButton, QTabWidget, QToolBar,
                               QToolButton)
from PySide6.QtWebEngineCore import QWebEnginePage
from PySide6.QtWebEngineWidgets import QWebEngineView
from pytestqt.qtbot import QtBot

from app.startup.i18n import CHINESE, ENGLISH, I18N_DIR, app_catalog, button_text, choose_language, install_translations
from app.ui.node_kinds import KIND_NAMES, kind_label, kind_with_name
from app.ui.run_inputs_dialog import RunInputsDialog
from tests.support.qt import open_view, running_app
from workflows.nodes import NODE_TYPES, StartVariable

CHINESE_TS = I18N_DIR / f"browserpilot_{CHINESE}.ts"
ENGLISH_TS = I18N_DIR / f"browserpilot_{ENGLISH}.ts"
CJK = re.compile(r"[\u4e00-\u9fff]")
KEPT_IN_LATIN = {"Agent", "BrowserPilot", "MCP"}  # the original writes them so in Chinese too (glossary)
PAGE_ACTIONS = (QWebEnginePage.WebAction.Back, QWebEnginePage.WebAction.Reload, QWebEnginePage.WebAction.Copy,
                QWebEnginePage.WebAction.SavePage, QWebEnginePage.WebAction.InspectElement)
UPDATE_COMMAND = ".venv/bin/python packaging/compile_translations.py --update"


def _tool() -> object:
    """packaging/compile_translations.py (a script, not a package)."""
    path = Path(__file__).resolve().parents[1] / "packaging" / "compile_translations.py"
    spec = importlib.util.spec_from_file_location("compile_translations", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- which language -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("environ", "system", "expected"), [
    ({"LANG": "zh_CN.UTF-8"}, [], CHINESE),
    ({"LANG": "zh_TW.UTF-8"}, [], CHINESE),
    ({"LANG": "en_US.UTF-8"}, [], ENGLISH),
    ({"LANG": "de_DE.UTF-8"}, [], ENGLISH),
    ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, [], CHINESE),
    ({"LC_MESSAGES": "zh_SG", "LANG": "en_GB"}, [], CHINESE),
    ({"LANG": "en_US.UTF-8", "LANGUAGE": "fr:zh_CN:en"}, [], CHINESE),
    ({"LANG": "C.UTF-8", "LANGUAGE": "zh_CN"}, [], ENGLISH),  # gettext ignores LANGUAGE under the C locale
    ({}, ["zh-Hans-CN", "en-US"], CHINESE),  # no POSIX variables (Windows, macOS): Qt's system locale
    ({}, ["en-US"], ENGLISH),
    ({"BROWSERPILOT_LANG": "zh_CN", "LANG": "en_US.UTF-8"}, [], CHINESE),
    ({"BROWSERPILOT_LANG": "en", "LANG": "zh_CN.UTF-8"}, [], ENGLISH),
    ({"BROWSERPILOT_LANG": "klingon", "LANG": "zh_CN.UTF-8"}, [], CHINESE),  # unknown: logged, the locale decides
])
def test_the_language_follows_the_locale_unless_overridden(environ: dict[str, str], system: list[str],
                                                            expected: str) -> None:
    assert choose_language(environ, system) == expected


# -- the catalogue ------------------------------------------------------------------------------------------
def _messages(ts_file: Path) -> list[tuple[str, str, ET.Element]]:
    root = ET.parse(ts_file).getroot()
    return [(context.findtext("name") or "", message.findtext("source") or "", message)
            for context in root.iter("context") for message in context.iter("message")]


def _translations(message: ET.Element) -> list[str]:
    translation = message.find("translation")
    if translation is None:
        return []
    if message.get("numerus") == "yes":
        return [form.text or "" for form in translation.findall("numerusform")]
    return [translation.text or ""]


def _placeholders(text: str) -> Counter[str]:
    """What a translation must carry over: {fields}, %n and %1, one &-mnemonic, shortcuts, HTML tags."""
    marks: Counter[str] = Counter(re.findall(r"\{[A-Za-z_][A-Za-z0-9_]*\}|%n|%L?\d+", text))
    marks.update(re.findall(r"\b(?:Ctrl|Alt|Shift|Meta)\+[\w+,.\-]+", text))
    marks.update(f"<{tag.lower()}>" for tag in re.findall(r"</?\s*([A-Za-z]+)[^>]*>", text))
    marks.update(re.findall(r"&[a-z]+;", text))  # HTML entities such as &mdash;
    if re.search(r"&(?!\s)", re.sub(r"&[a-z]+;", "", text.replace("&&", ""))):
        marks["&mnemonic"] = 1
    return marks


def test_every_string_is_translated_and_keeps_its_placeholders() -> None:
    problems = []
    messages = _messages(CHINESE_TS)
    assert len(messages) > 100
    for context, source, message in messages:
        translation = message.find("translation")
        where = f"{context}: {source!r}"
        if translation is None or translation.get("type") in ("vanished", "obsolete"):
            continue
        if translation.get("type") == "unfinished":
            problems.append(f"{where} is not translated")
            continue
        for text in _translations(message) or [""]:
            if not text.strip():
                problems.append(f"{where} has an empty translation")
            elif _placeholders(text) != _placeholders(source):
                problems.append(f"{where} -> {text!r}: placeholders {dict(_placeholders(text))}, "
                                f"expected {dict(_placeholders(source))}")
    assert not problems, f"{len(problems)} problem(s) in {CHINESE_TS.name}:\n" + "\n".join(problems)


def test_english_plurals_are_complete() -> None:
    for context, source, message in _messages(ENGLISH_TS):
        forms = _translations(message)
        assert len(forms) == 2 and all(forms), f"{context}: {source!r} needs its English singular and plural"
        assert all(_placeholders(form) == _placeholders(source) for form in forms), (context, source, forms)


def test_the_catalogue_holds_every_string_of_the_code(tmp_path: Path) -> None:
    """lupdate over app/ finds nothing new: a string added after the last translation round fails here."""
    tool = _tool()
    copy = tmp_path / CHINESE_TS.name
    shutil.copy(CHINESE_TS, copy)
    tool.run_lupdate(copy, CHINESE)  # type: ignore[attr-defined]
    committed = {(context, source) for context, source, _message in _messages(CHINESE_TS)}
    missing = [f"{context}: {source!r}" for context, source, _message in _messages(copy)
               if (context, source) not in committed]
    assert not missing, (f"{len(missing)} string(s) of app/ are not in {CHINESE_TS.name}; run `{UPDATE_COMMAND}` "
                         f"and translate them there:\n" + "\n".join(missing))


def test_a_catalogue_edited_in_a_checkout_is_compiled_on_start(tmp_path: Path) -> None:
    shutil.copy(ENGLISH_TS, tmp_path / ENGLISH_TS.name)
    compiled = app_catalog(ENGLISH, tmp_path)
    assert compiled == tmp_path / "browserpilot_en.qm" and compiled.stat().st_size > 0
    assert app_catalog(CHINESE, tmp_path) is None  # no catalogue: None, the UI stays English


def test_an_installed_catalogue_is_not_recompiled_for_its_extraction_times(tmp_path: Path) -> None:
    ts_file = tmp_path / ENGLISH_TS.name
    shutil.copy(ENGLISH_TS, ts_file)
    qm_file = app_catalog(ENGLISH, tmp_path, from_checkout=False)  # missing: compiled even when installed
    assert qm_file is not None
    compiled_bytes = qm_file.read_bytes()
    qm_file.write_bytes(compiled_bytes + b"installed")  # what the wheel shipped
    os.utime(qm_file, (1_000_000, 1_000_000))  # pip extracted the .qm before the .ts
    assert app_catalog(ENGLISH, tmp_path, from_checkout=False) == qm_file
    assert qm_file.read_bytes().endswith(b"installed")  # left as shipped: site-packages may be read-only
    assert app_catalog(ENGLISH, tmp_path, from_checkout=True) == qm_file
    assert qm_file.read_bytes() == compiled_bytes  # in a checkout, the edited .ts wins


# -- the real windows ---------------------------------------------------------------------------------------
@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    assert install_translations(qapp, CHINESE) == CHINESE
    try:
        yield
    finally:
        install_translations(qapp)  # English again, as tests/conftest.py set it


def _window_texts(app: object, qtbot: QtBot) -> dict[str, list[str]]:
    """What a person reads first: the menus, the panels' tabs, the environment window's toolbar tooltips and
    the page's context menu, the overlay of a tab an agent drives."""
    main = app.main_window  # type: ignore[attr-defined]
    window = app.show_environment("env-default")  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: window.isVisible() and bool(window.findChild(QToolBar, "navigation").actions()))
    panels = main.findChild(QTabWidget)
    toolbar = window.findChild(QToolBar, "navigation")
    buttons = [toolbar.widgetForAction(action) for action in toolbar.actions() if action.isVisible()]
    tips = [button.toolTip() for button in buttons if isinstance(button, QToolButton)]  # not the address bar
    page = window.findChild(QWebEngineView).page()  # its context menu's entries come from qtwebengine_zh_CN
    actions = [page.action(action).text() for action in PAGE_ACTIONS]
    agent_tab = open_view(app, "env-default", "about:blank", control="agent")  # type: ignore[attr-defined]
    overlay = [agent_tab.findChild(QLabel, "control-message"), agent_tab.findChild(QPushButton, "control-take-over")]
    qtbot.waitUntil(lambda: all(widget is not None and widget.isVisible() for widget in overlay))
    return {"menus": [action.text() for action in main.menuBar().actions() if action.text()],
            "panels": [panels.tabText(index) for index in range(panels.count())],
            "tooltips": tips, "page menu": actions, "agent overlay": [widget.text() for widget in overlay]}


def test_the_main_and_environment_windows_speak_chinese(qtbot: QtBot, qapp: QApplication, data_dir: Path,
                                                         chinese: None) -> None:
    with running_app(qapp, data_dir, windows=True) as app:
        texts = _window_texts(app, qtbot)
    for part, shown in texts.items():
        assert shown and all(CJK.search(text) or text in KEPT_IN_LATIN for text in shown), \
            f"{part} not in Chinese: {shown}"
    assert "环境" in " ".join(texts["panels"]) and "工作流" in " ".join(texts["panels"])


def test_the_same_windows_speak_english_by_default(qtbot: QtBot, qapp: QApplication, data_dir: Path) -> None:
    with running_app(qapp, data_dir, windows=True) as app:
        texts = _window_texts(app, qtbot)
    for part, shown in texts.items():
        assert shown and not any(CJK.search(text) for text in shown), f"{part} not in English: {shown}"
    assert "Environments" in texts["panels"] and "Workflows" in texts["panels"]


def test_a_dialog_and_qts_own_buttons_in_chinese(qtbot: QtBot, chinese: None) -> None:
    """The app's strings and Qt's (the standard Cancel button comes from qtbase_zh_CN)."""
    variable = StartVariable.model_validate({"variable": "city", "label": "City", "type": "text-input",
                                             "required": True})
    dialog = RunInputsDialog("Weather", [variable], [("env-default", "Default")])
    qtbot.addWidget(dialog)
    buttons = dialog.buttons
    assert buttons.button(QDialogButtonBox.StandardButton.Ok).text() == "运行(&R)"
    assert buttons.button(QDialogButtonBox.StandardButton.Cancel).text() == "取消"
    assert dialog.windowTitle() == "运行“Weather”"
    assert dialog.problem.text() == "必填：City。"


def test_every_node_type_has_a_shown_name(chinese: None) -> None:
    """A new node type must be listed in app/ui/node_kinds.py (and so get its Chinese name)."""
    assert set(KIND_NAMES) == set(NODE_TYPES)
    assert kind_label("if-else") == "判断" and kind_with_name("click") == "点击 click" and kind_with_name("cdp") == "CDP"
    assert kind_label("no-such-type") == "no-such-type"


@pytest.mark.parametrize(("menu", "button"), [("运行(&R)…", "运行"), ("交给 Agent(&A)", "交给 Agent"),
                                              ("&Run…", "Run"), ("Ask an &Agent", "Ask an Agent"), ("Plain", "Plain")])
def test_a_menu_entry_on_a_button_loses_its_mnemonic(menu: str, button: str) -> None:
    assert button_text(menu) == button


def _tr_calls(folder: Path) -> list[tuple[str, str, str]]:
    """(context, source, where) of every `self.tr("…")`, `QCoreApplication.translate("Ctx", "…")` and
    `QT_TRANSLATE_NOOP("Ctx", "…")` with literal text under `folder`, the context as Qt looks it up."""
    found: list[tuple[str, str, str]] = []
    for path in sorted(folder.rglob("*.py")):
        classes: list[str] = []

        def visit(node: ast.AST) -> None:
            if isinstance(node, ast.ClassDef):
                classes.append(node.name)
            if isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
                texts = [arg.value for arg in node.args[:2]
                         if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
                where = f"{path.relative_to(folder.parent)}:{node.lineno}"
                is_self = isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                    and node.func.value.id == "self"
                if name == "tr" and is_self and classes and texts and isinstance(node.args[0], ast.Constant):
                    found.append((classes[-1], texts[0], where))
                elif name in ("translate", "QT_TRANSLATE_NOOP") and len(texts) == 2 and len(node.args) >= 2:
                    found.append((texts[0], texts[1], where))
            for child in ast.iter_child_nodes(node):
                visit(child)
            if isinstance(node, ast.ClassDef):
                classes.pop()

        visit(ast.parse(path.read_text("utf-8")))
    return found


def test_lupdate_sees_every_translated_string_of_the_code() -> None:
    """pyside6-lupdate skips tr() inside an f-string (and the catalogue then lacks it): every literal tr/translate
    call of app/ must be in the catalogue under the context Qt looks it up in."""
    committed = {(context, source) for context, source, _message in _messages(CHINESE_TS)}
    calls = _tr_calls(Path(__file__).resolve().parents[1] / "app")
    assert len(calls) > 100
    missing = [f"{where}: {context}: {source!r}" for context, source, where in calls
               if (context, source) not in committed]
    assert not missing, ("not in the catalogue (a tr() inside an f-string? move it out, then run "
                         f"`{UPDATE_COMMAND}`):\n" + "\n".join(missing))
