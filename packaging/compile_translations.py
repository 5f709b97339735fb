"""Compile the UI translations, or collect the app's strings into them first.

    .venv/bin/python packaging/compile_translations.py            resources/i18n/*.ts -> *.qm (./dev.sh setup)
    .venv/bin/python packaging/compile_translations.py --update   pyside6-lupdate over app/ and workflows/nodes/
                                                                  into the .ts files, English plurals filled
                                                                  in, then compile

`--update` keeps every existing translation; a new or changed string arrives as `type="unfinished"` in
`browserpilot_zh_CN.ts` and has to be translated there (resources/i18n/README.md: glossary and rules) before
tests/test_i18n.py passes again. Strings that left the code are dropped (`-no-obsolete`). The `.ts` files carry
no source locations, so they change only when a string does.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.startup.i18n import APP_CATALOG, CHINESE, ENGLISH, I18N_DIR, compile_all  # noqa: E402

SOURCES = (ROOT / "app", ROOT / "workflows" / "nodes")
"""Where the strings are: the UI, and the node classes' labels (`QT_TRANSLATE_NOOP("NodeKind", …)`, Qt-free)."""
PLURAL_SUFFIX = re.compile(r"\((e?s)\)")  # "row(s)" -> "row" / "rows", "match(es)" -> "match" / "matches"


def lupdate_program() -> Path:
    import PySide6

    return Path(PySide6.__file__).parent / ("lupdate.exe" if sys.platform == "win32" else "lupdate")


def source_files(folders: Path | tuple[Path, ...] = SOURCES) -> list[Path]:
    roots = (folders,) if isinstance(folders, Path) else folders
    return sorted(path for root in roots for path in root.rglob("*.py") if "__pycache__" not in path.parts)


def run_lupdate(ts_file: Path, language: str, *, plurals_only: bool = False,
                folder: Path | tuple[Path, ...] = SOURCES) -> str:
    """Collect the tr/translate strings of `folder` (or folders) into `ts_file` (created if missing); lupdate's
    summary."""
    args = [str(lupdate_program()), "-no-obsolete", "-locations", "none", "-source-language", "en",
            "-target-language", language, *(["-pluralonly"] if plurals_only else []),
            *map(str, source_files(folder)), "-ts", str(ts_file)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"pyside6-lupdate failed on {ts_file.name}: {(done.stderr or done.stdout).strip()}")
    return done.stdout.strip()


def fill_english_plurals(ts_file: Path) -> None:
    """Give each unfinished numerus message of the English catalogue its singular and plural: "%n row(s)" ->
    "%n row" / "%n rows"; a source without "(s)" or "(es)" ("%n done") is both."""
    tree = ET.parse(ts_file)
    changed = False
    for message in tree.iter("message"):
        translation = message.find("translation")
        source = message.findtext("source") or ""
        if message.get("numerus") != "yes" or translation is None or translation.get("type") != "unfinished":
            continue
        forms = translation.findall("numerusform")
        for form in forms[1:]:
            translation.remove(form)
        while len(translation.findall("numerusform")) < 2:
            ET.SubElement(translation, "numerusform")
        one, many = translation.findall("numerusform")
        one.text = PLURAL_SUFFIX.sub("", source)
        many.text = PLURAL_SUFFIX.sub(r"\1", source)
        del translation.attrib["type"]
        changed = True
    if changed:
        write_ts(tree, ts_file)


def write_ts(tree: ET.ElementTree, ts_file: Path) -> None:
    """Write a .ts the way Linguist expects it (lupdate reformats it on its next run)."""
    body = ET.tostring(tree.getroot(), encoding="unicode")
    temp = ts_file.with_suffix(".ts.tmp")
    temp.write_text(f'<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n{body}\n', "utf-8")
    temp.replace(ts_file)


def unfinished(ts_file: Path) -> list[str]:
    """Sources of the messages still waiting for a translation."""
    tree = ET.parse(ts_file)
    return [message.findtext("source") or "" for message in tree.iter("message")
            if (translation := message.find("translation")) is not None and translation.get("type") == "unfinished"]


def update() -> int:
    """lupdate into both catalogues, English plurals filled; says what is left to translate."""
    I18N_DIR.mkdir(parents=True, exist_ok=True)
    chinese = I18N_DIR / f"{APP_CATALOG}_{CHINESE}.ts"
    english = I18N_DIR / f"{APP_CATALOG}_{ENGLISH}.ts"
    print(run_lupdate(chinese, CHINESE))
    print(run_lupdate(english, ENGLISH, plurals_only=True))
    fill_english_plurals(english)
    run_lupdate(english, ENGLISH, plurals_only=True)  # lupdate's own layout again
    todo = unfinished(chinese)
    print(f"{chinese.name}: {len(todo)} string(s) to translate" + (":" if todo else "."))
    for source in todo:
        print(f"  {source!r}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="collect the strings of app/ into the .ts files first")
    args = parser.parse_args(argv)
    try:
        if args.update:
            update()
        for qm_file in compile_all():
            print(f"compiled {qm_file.relative_to(ROOT)}")
    except (OSError, RuntimeError, subprocess.SubprocessError, ET.ParseError) as exc:
        print(f"compile_translations: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
