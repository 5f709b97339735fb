"""Every repository path, module, link, anchor and section that README.md, docs/*.md and the code's comments
name exists: a file moved or renamed, a heading reworded or a section cited from a document we do not have fails
here, naming the file and line that point at nothing.

What is checked:
- paths under the repository's top folders (`app/…`, `envs/…`, `workflows/…`, `tests/…`, `bench/…`,
  `resources/…`, `docs/…`, `packaging/…`), in documents and in every source file (comments, docstrings,
  strings); `*` and `<name>` are wildcards; `tests/support/server.LocalServer` is a module and an attribute;
- modules named in backticks (`app.ops.compat`, `workflows.ports.Locator`): the module exists, and so does the
  first attribute named after it;
- in documents, links and images (`[text](docs/x.md#anchor)`), relative to the document, and their anchors
  (GitHub's slugs of the target's headings); a path out of the repository (`../…`) is refused;
- `§N` sections and `DESIGN.md`: a section must follow a document of this repository that numbers it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
TOP = ("app", "envs", "workflows", "tests", "bench", "resources", "docs", "packaging")
SOURCE_SUFFIXES = {".py", ".js", ".mjs", ".sh", ".spec", ".toml", ".css", ".qss", ".html", ".txt", ".md"}
SKIP_PARTS = {"node_modules", "__pycache__", ".venv", ".git", "dist", "build"}
# Installed names that are no folder of the checkout: `resources/` is packaged as `app.assets` (setup.py).
NOT_IN_CHECKOUT = ("app.assets", "app/assets")
# Words that look like paths and are not: MCP's `resources/list` method, Qt's own `resources/locales` folder
# inside the bundle, JSON pointers into a workflow document (`app/name`).
NOT_PATHS = {"resources/list", "resources/locales", "app/name", "app/mode"}
# `app.<field>` of a workflow document (`app.autoRepair`), not a module.
DOCUMENT_FIELDS = {"app.name", "app.autoRepair", "app.mode"}
# A dotted name ending so is a file of the data folder (`envs.json`, `workflows.json`), not a module.
FILE_ENDINGS = {"json", "md", "py", "log", "lock", "toml", "txt", "csv", "zip", "png", "jpg", "webm", "html"}

PATH = re.compile(rf"(?<![\w./\\-])((?:{'|'.join(TOP)})/[\w./*<>-]*[\w*>/])")
MODULE = re.compile(r"`((?:app|envs|workflows)(?:\.[A-Za-z_]\w*)+)")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
SECTION = re.compile(r"§\s*(\d+)")
OUTSIDE = re.compile(r"(?<![\w./])\.\./[\w./-]+")


def repository_files() -> list[Path]:
    """The checkout's files (tracked and new, not ignored), else every file outside the skipped folders."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout.split("\n")
        files = [ROOT / name for name in listed if name]
    except (OSError, subprocess.CalledProcessError):
        files = [path for path in ROOT.rglob("*") if path.is_file()]
    return [path for path in files if path.is_file() and not SKIP_PARTS & set(path.relative_to(ROOT).parts)]


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def sources() -> list[Path]:
    """Every text source but this file, which names missing things on purpose."""
    here = Path(__file__).resolve()
    return [path for path in repository_files() if path.suffix in SOURCE_SUFFIXES and path.resolve() != here]


def without_code_blocks(text: str) -> list[tuple[int, str]]:
    """A document's lines outside fenced code blocks, numbered from 1."""
    kept, fenced = [], False
    for number, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            kept.append((number, line))
    return kept


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: markup dropped, lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(document: Path) -> set[str]:
    found: set[str] = set()
    for _, line in without_code_blocks(document.read_text("utf-8")):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            name, n = base, 0
            while name in found:
                n += 1
                name = f"{base}-{n}"
            found.add(name)
    return found


def generated() -> list[str]:
    """Folders the programs make and git ignores (`bench/out/`): named, never checked in."""
    lines = (ROOT / ".gitignore").read_text("utf-8").split("\n")
    return [line.strip().rstrip("/") for line in lines if "/" in line.strip().rstrip("/") and "*" not in line]


def path_exists(token: str) -> bool:
    token = token.rstrip(".")
    if token in NOT_PATHS or token.startswith(NOT_IN_CHECKOUT) or \
            any(token.rstrip("/") == made or token.startswith(made + "/") for made in generated()):
        return True
    pattern = re.sub(r"<[^>]*>", "*", token)
    if "*" in pattern:
        return any(ROOT.glob(pattern.rstrip("/")))
    if (ROOT / token).exists():
        return True
    module, _, attribute = token.rpartition(".")  # tests/support/server.LocalServer
    return bool(module) and attribute.isidentifier() and (ROOT / f"{module}.py").is_file()


def module_exists(dotted: str) -> bool:
    parts = dotted.split(".")
    if dotted.startswith(NOT_IN_CHECKOUT) or dotted in DOCUMENT_FIELDS or parts[-1] in FILE_ENDINGS:
        return True
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        if (base / "__init__.py").is_file():
            source = base / "__init__.py"
        elif base.with_suffix(".py").is_file():
            source = base.with_suffix(".py")
        else:
            continue
        if end == len(parts):
            return True
        attribute = parts[end]
        if (base / f"{attribute}.py").is_file() or (base / attribute).is_dir():
            return False  # a module of the package that the walk above did not find
        return re.search(rf"\b{attribute}\b", source.read_text("utf-8")) is not None  # defined or imported there
    return False


def where(path: Path, number: int) -> str:
    return f"{path.relative_to(ROOT)}:{number}"


def unresolved(find: Callable[[str], list[str]], exists: Callable[[str], bool]) -> list[str]:
    """Every name `find` sees in a source line that `exists` does not find, with its file and line."""
    return [f"{where(path, number)}: {name}" for path in sources()
            for number, line in enumerate(path.read_text("utf-8", errors="replace").split("\n"), 1)
            for name in find(line) if not exists(name)]


def test_every_path_named_in_documents_and_code_exists() -> None:
    missing = unresolved(PATH.findall, path_exists)
    assert not missing, "\n".join(missing)


def test_every_module_named_in_backticks_exists() -> None:
    missing = unresolved(MODULE.findall, module_exists)
    assert not missing, "\n".join(missing)


def test_every_link_and_anchor_in_the_documents_exists() -> None:
    broken = []
    for document in documents():
        for number, line in without_code_blocks(document.read_text("utf-8")):
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target):  # https:, mailto:
                    continue
                file_part, _, anchor = target.partition("#")
                linked = (document.parent / file_part).resolve() if file_part else document
                if ROOT not in linked.parents and linked != ROOT:
                    broken.append(f"{where(document, number)}: {target} is outside the repository")
                elif not linked.exists():
                    broken.append(f"{where(document, number)}: {target} does not exist")
                elif anchor and (linked.suffix != ".md" or anchor not in anchors(linked)):
                    broken.append(f"{where(document, number)}: {target} has no heading #{anchor}")
            broken += [f"{where(document, number)}: {outside} is outside the repository"
                       for outside in OUTSIDE.findall(line)]
    assert not broken, "\n".join(broken)


def test_sections_cited_are_in_documents_of_this_repository() -> None:
    """`§N` must follow a document here whose headings number it; `DESIGN.md` is not in this repository."""
    wrong = []
    for path in sources():
        for number, line in enumerate(path.read_text("utf-8", errors="replace").split("\n"), 1):
            if "DESIGN.md" in line and not any((ROOT / name).is_file() for name in ("DESIGN.md", "docs/DESIGN.md")):
                wrong.append(f"{where(path, number)}: DESIGN.md is not in this repository")
            for match in SECTION.finditer(line):
                cited = re.findall(r"([\w./-]+\.md)\W*$", line[:match.start()])
                document = ROOT / cited[0] if cited else None
                numbered = document is not None and document.is_file() and re.search(
                    rf"^#+\s+(?:§\s*)?{match.group(1)}[.\s]", document.read_text("utf-8"), re.M)
                if not numbered:
                    wrong.append(f"{where(path, number)}: §{match.group(1)} names no numbered section of a "
                                 "document here")
    assert not wrong, "\n".join(wrong)


def test_the_checker_catches_what_it_should() -> None:
    """The rules above fail on what no longer exists (a checker that passes everything would pass too)."""
    assert not path_exists("app/browser/driver.py")
    assert path_exists("app/ops/registry.py") and path_exists("resources/js/*.js")
    assert path_exists("tests/support/server.LocalServer")
    assert module_exists("app.ops.compat") and module_exists("app.mcp.tools.output_schema")
    assert not module_exists("app.browser.driver") and not module_exists("app.ops.no_such_module")
    assert "frames-of-another-site" in anchors(ROOT / "docs" / "page-operations.md")
    assert slug("As a service: `browserpilot --headless`") == "as-a-service-browserpilot---headless"
