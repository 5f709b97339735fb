"""The UI's language: Qt translators for the app's own strings and for Qt's (standard dialogs, context menus).

A Chinese system locale gets Simplified Chinese (`zh_CN`), every other locale English. The locale is read the
way gettext reads it: `LANGUAGE` (a list such as `zh_CN:en`, ignored under the C locale), then `LC_ALL`,
`LC_MESSAGES`, `LANG`; where none is set (Windows, macOS), `QLocale.system()`'s UI languages decide.
`BROWSERPILOT_LANG=zh_CN|en` overrides all of them (tests, screenshots, a person who wants the other one).

The translations are `resources/i18n/browserpilot_<lang>.ts` (kept in the tree, edited with Qt Linguist or by
hand), compiled by `pyside6-lrelease` into `.qm` files next to them (at set-up and build time). Running from a
checkout, a `.ts` newer than its `.qm` is compiled again on start, so an edit takes effect at once. English has a
translation too: it holds only the plural forms (`%n row(s)` -> "1 row" / "3 rows"). Qt's own translations
(`qtbase`, `qtwebengine`) come from the PySide6 installation.

`packaging/compile_translations.py` compiles them (`./dev.sh setup`) and, with `--update`, collects the strings
of app/ into them (`pyside6-lupdate`); resources/i18n/README.md says how to translate.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from app.startup.resources import FROM_CHECKOUT, RESOURCES_DIR
from plumbing import loggers

log = logging.getLogger(loggers.I18N)

LANG_VARIABLE = "BROWSERPILOT_LANG"
ENGLISH = "en"
CHINESE = "zh_CN"
LANGUAGES = (ENGLISH, CHINESE)
I18N_DIR = RESOURCES_DIR / "i18n"
APP_CATALOG = "browserpilot"
QT_CATALOGS = ("qtbase", "qtwebengine")  # Qt's own strings: file dialogs, message boxes, page context menus
TRANSLATOR_NAME = "browserpilot-translator"  # objectName of the translators installed here (children of the app)
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


def language_of(name: str) -> str | None:
    """`zh_CN`, `zh-Hans`, `zh_TW.UTF-8`, `zh` -> zh_CN; `en_GB`, `C`, `POSIX` -> en; another language -> None."""
    code = name.strip().split(".")[0].split("@")[0].replace("-", "_").lower()
    if code == "zh" or code.startswith("zh_"):
        return CHINESE
    if code in ("en", "c", "posix") or code.startswith("en_"):
        return ENGLISH
    return None


def choose_language(environ: Mapping[str, str] | None = None,
                    system_languages: Sequence[str] | None = None) -> str:
    """The UI language (`en` or `zh_CN`) for this environment (default: the process's) and system locale."""
    env = os.environ if environ is None else environ
    override = env.get(LANG_VARIABLE, "").strip()
    if override:
        language = language_of(override)
        if language is not None:
            return language
        log.warning("%s=%r is not one of %s; using the system's language", LANG_VARIABLE, override,
                    ", ".join(LANGUAGES))
    locale = next((env[name].strip() for name in LOCALE_VARIABLES if env.get(name, "").strip()), "")
    if locale and locale.split(".")[0].upper() not in ("C", "POSIX"):
        # LANGUAGE lists preferences in order (`fr:zh_CN`); gettext ignores it under the C locale, so do we.
        for entry in env.get("LANGUAGE", "").split(":"):
            language = language_of(entry) if entry.strip() else None
            if language is not None:
                return language
    if locale:
        return language_of(locale) or ENGLISH
    if system_languages is None:
        system_languages = QLocale.system().uiLanguages()
    for name in system_languages:
        language = language_of(name)
        if language is not None:
            return language
    return ENGLISH


def button_text(text: str) -> str:
    """A menu entry's text for a button beside its icon: no mnemonic, no trailing ellipsis. Qt strips the `&`
    itself but leaves the `(R)` of a translated "运行(&R)…"; this gives "运行" (and "&Run…" gives "Run")."""
    text = re.sub(r"\s*\(&[^&)]\)", "", text)
    text = re.sub(r"&(.)", r"\1", text)
    return re.sub(r"(…|\.\.\.)$", "", text).strip()


def lrelease_program() -> Path:
    """Qt's lrelease, as PySide6 ships it (next to the PySide6 package)."""
    import PySide6

    return Path(PySide6.__file__).parent / ("lrelease.exe" if sys.platform == "win32" else "lrelease")


def compile_catalog(ts_file: Path, qm_file: Path | None = None) -> Path:
    """Compile one `.ts` into its `.qm` (written atomically next to it). Raises `RuntimeError` saying why not."""
    qm_file = qm_file or ts_file.with_suffix(".qm")
    program = lrelease_program()
    if not program.exists():
        raise RuntimeError(f"cannot compile {ts_file.name}: {program} is missing")
    handle, temp_name = tempfile.mkstemp(prefix=qm_file.name + ".", suffix=".tmp", dir=qm_file.parent)
    os.close(handle)
    temp = Path(temp_name)
    try:
        done = subprocess.run([str(program), "-silent", str(ts_file), "-qm", str(temp)], capture_output=True,
                              text=True, timeout=60)
        if done.returncode != 0 or temp.stat().st_size == 0:
            raise RuntimeError(f"cannot compile {ts_file.name}: {(done.stderr or done.stdout).strip()}")
        temp.chmod(0o644)  # mkstemp makes it private; a .qm is read by whoever runs the app
        os.replace(temp, qm_file)
    finally:
        temp.unlink(missing_ok=True)
    return qm_file


def compile_all(folder: Path = I18N_DIR) -> list[Path]:
    """Compile every `.ts` of `folder` (the set-up and packaging step)."""
    return [compile_catalog(ts_file) for ts_file in sorted(folder.glob("*.ts"))]


def app_catalog(language: str, folder: Path = I18N_DIR, from_checkout: bool = FROM_CHECKOUT) -> Path | None:
    """The compiled translation of the app's strings for `language`, compiled first when it is missing or,
    in a source checkout, when its `.ts` is newer (someone edited it). An installed wheel or bundle is never
    recompiled: pip gives extracted files their extraction time, which says nothing about which is newer.
    None when there is none."""
    ts_file = folder / f"{APP_CATALOG}_{language}.ts"
    qm_file = folder / f"{APP_CATALOG}_{language}.qm"
    edited = from_checkout and qm_file.exists() and qm_file.stat().st_mtime < ts_file.stat().st_mtime
    stale = ts_file.exists() and (not qm_file.exists() or edited)
    if stale:
        try:
            compile_catalog(ts_file, qm_file)
            log.info("compiled %s", qm_file)
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
            log.warning("%s", exc)
    return qm_file if qm_file.exists() else None


def install_translations(app: QCoreApplication, language: str | None = None) -> str:
    """Install the translators of `language` (default: `choose_language()`) into `app`, replacing any this
    function installed before; returns the language. Missing files are logged, never fatal: the UI is then
    English where a translation is missing."""
    language = language or choose_language()
    for old in app.findChildren(QTranslator, TRANSLATOR_NAME):
        app.removeTranslator(old)
        old.setParent(None)
        old.deleteLater()
    files: list[Path] = []
    catalog = app_catalog(language)
    if catalog is not None:
        files.append(catalog)
    else:
        log.warning("no translation of the app for %s in %s", language, I18N_DIR)
    if language != ENGLISH:
        qt_dir = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath))
        files += [qt_dir / f"{name}_{language}.qm" for name in QT_CATALOGS]
    for path in files:
        translator = QTranslator(app)  # the app keeps it alive
        translator.setObjectName(TRANSLATOR_NAME)
        if translator.load(str(path)) and app.installTranslator(translator):
            log.debug("translation %s installed", path)
        else:
            log.warning("cannot load the translation %s", path)
            translator.setParent(None)
    log.info("UI language: %s", language)
    return language

