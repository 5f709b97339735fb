"""What may import what: `workflows/`, `envs/` and `plumbing/` never import Qt (checked in the source and in a fresh
interpreter), no shipped package imports a module the bundle leaves out (packaging/browserpilot.spec), no import
circles, and imports point down an ordered list of layers (`LAYERS`)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PURE = ("workflows", "envs", "plumbing")
QT_MODULES = ("PySide6", "shiboken6", "qasync")


SHIPPED = ("app", "plumbing", "envs", "workflows")
BUNDLE_SPEC = ROOT / "packaging" / "browserpilot.spec"


def imported_modules(path: Path, guarded: bool = True) -> list[str]:
    """Every module a source file imports, at its top or inside a function (`from . import x`: skipped);
    `guarded=False`: not those that never run (under `if TYPE_CHECKING:`) nor those imported in a `try` whose
    `except ImportError` lets the code go on without them."""
    tree = ast.parse(path.read_text("utf-8"))
    optional = set() if guarded else {
        id(inner) for node in ast.walk(tree)
        if isinstance(node, ast.Try) and any(_catches_import_error(handler) for handler in node.handlers)
        or isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for statement in node.body for inner in ast.walk(statement)}
    names: list[str] = []
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return names


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(kind, ast.Name) and kind.id in ("ImportError", "ModuleNotFoundError") for kind in kinds)


def test_pure_packages_have_no_qt_imports_in_source() -> None:
    offenders = [f"{path.relative_to(ROOT)}: {name}" for package in PURE for path in (ROOT / package).rglob("*.py")
                 for name in imported_modules(path) if name.split(".")[0] in QT_MODULES]
    assert offenders == []


def bundle_excludes() -> list[str]:
    """The `excludes` of the PyInstaller recipe's Analysis: modules the bundle does not carry."""
    for node in ast.walk(ast.parse(BUNDLE_SPEC.read_text("utf-8"))):
        if isinstance(node, ast.keyword) and node.arg == "excludes":
            excluded = ast.literal_eval(node.value)
            assert isinstance(excluded, list)
            return [str(name) for name in excluded]
    raise AssertionError(f"{BUNDLE_SPEC} has no excludes")


def test_nothing_shipped_imports_what_the_bundle_leaves_out() -> None:
    """A lazy import of an excluded module works from a checkout and fails only in the bundle, when the
    code path runs (PySide6.QtQuick did: the bundle's windows did not open)."""
    excluded = bundle_excludes()
    assert "PySide6.QtQuick" in excluded  # the list was read
    sources = [path for package in SHIPPED for path in (ROOT / package).rglob("*.py")]
    offenders = [f"{path.relative_to(ROOT)}: {name}" for path in sources for name in imported_modules(path, guarded=False)
                 if any(name == module or name.startswith(module + ".") for module in excluded)]
    assert offenders == []


def test_pure_packages_load_without_qt() -> None:
    modules = [f"{p}.{path.stem}" for p in PURE for path in (ROOT / p).glob("*.py") if path.stem != "__init__"]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + \
        "print(sorted(m for m in sys.modules if m.split('.')[0] in %r))" % (QT_MODULES,)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"


# -- the browser behind its ports ------------------------------------------------------------------------
BEHIND_PORTS = ("app/ops", "app/catalog", "app/stores", "app/mcp", "app/agent", "app/distributed", "app/cli",
                "workflows")


def test_operations_and_their_callers_reach_the_browser_only_through_its_ports() -> None:
    """The operations (and the MCP server, the agent, the workers, the command line and the engine that call
    them) speak to typed tabs (workflows/ports.py), never to the Qt adapter's classes."""
    sources = [path for place in BEHIND_PORTS for path in
               ((ROOT / place).rglob("*.py") if (ROOT / place).is_dir() else [ROOT / place])]
    offenders = [f"{path.relative_to(ROOT)}: {name}" for path in sources for name in imported_modules(path)
                 if name == "app.browser" or name.startswith("app.browser.")]
    assert offenders == []


def test_each_part_of_a_tab_implements_its_protocol() -> None:
    """Every method of a part's protocol (workflows/ports.py) exists on its implementation (app/browser/parts)
    with the same parameters, and the tab has every part the protocol names."""
    import inspect
    import typing

    from app.browser.parts import capture, control, input as input_part, navigation, network, reading, recording
    from app.browser.parts.tab import Tab
    from workflows import ports

    pairs = {ports.ControlPart: control.TabControlPart, ports.NavigationPart: navigation.TabNavigation,
             ports.InputPart: input_part.TabInput, ports.ReadingPart: reading.TabReading,
             ports.CapturePart: capture.TabCapture, ports.NetworkPart: network.TabNetwork,
             ports.RecordingPart: recording.TabRecording}
    problems = []
    for protocol, implementation in pairs.items():
        for name, member in vars(protocol).items():
            if name.startswith("_"):
                continue
            found = getattr(implementation, name, None)
            if found is None:
                problems.append(f"{implementation.__name__} has no {name}")
            elif inspect.isfunction(member) and list(inspect.signature(member).parameters) != \
                    list(inspect.signature(found).parameters):
                problems.append(f"{implementation.__name__}.{name} takes {inspect.signature(found)}, "
                                f"not {inspect.signature(member)}")
    parts = typing.get_type_hints(ports.TabPort)
    init = inspect.getsource(Tab.__init__)
    problems += [f"Tab has no part {name}" for name in parts if f"self.{name} = " not in init]
    assert problems == []


# Part methods allowed to answer a flat object while their typing is under way: none now.
UNTYPED_PART_METHODS: set[str] = set()
# Answering a `workflows.recording.Recording`, which the port cannot name (the recording builds on the nodes, which
# build on the port): `Any` in the protocol, the class in the part.
RECORDING_ANSWERS = {"RecordingPart.recording", "RecordingPart.stop"}


def test_every_part_of_a_tab_answers_a_typed_model() -> None:
    """No method of a part's protocol (workflows/ports.py) or of its implementation (app/browser/parts) answers
    an untyped `dict[str, Any]` (nor `Any`): each names its result model (workflows/results.py), and the
    implementation names the same one as its protocol."""
    import inspect

    from app.browser.parts import capture, control, input as input_part, navigation, network, reading, recording
    from workflows import ports

    pairs = {ports.ControlPart: control.TabControlPart, ports.NavigationPart: navigation.TabNavigation,
             ports.InputPart: input_part.TabInput, ports.ReadingPart: reading.TabReading,
             ports.CapturePart: capture.TabCapture, ports.NetworkPart: network.TabNetwork,
             ports.RecordingPart: recording.TabRecording}
    untyped, differing, excused, checked = [], [], set(), 0
    for protocol, implementation in pairs.items():
        for name, member in vars(protocol).items():
            if name.startswith("_") or not inspect.isfunction(member):
                continue
            where = f"{protocol.__name__}.{name}"
            # Both modules postpone annotations: these are the source's text.
            said = {protocol.__name__: str(inspect.signature(member).return_annotation),
                    implementation.__name__: str(inspect.signature(getattr(implementation, name)).return_annotation)}
            checked += 1
            flat = [f"{owner}.{name} -> {answer}" for owner, answer in said.items() if answer.startswith("dict[")]
            if where in UNTYPED_PART_METHODS:
                excused |= {where} if flat else set()
                continue
            untyped += flat
            if where in RECORDING_ANSWERS and said == {protocol.__name__: "Any", implementation.__name__: "Recording"}:
                continue
            untyped += [f"{where} -> Any"] if said[protocol.__name__] == "Any" else []
            if len(set(said.values())) != 1:
                differing.append(f"{where}: {said}")
    assert checked > 40  # the protocols were read
    assert untyped == []
    assert differing == []
    assert UNTYPED_PART_METHODS - excused == set()  # typed since: take them off the list


# -- no import circles ------------------------------------------------------------------------------------
def module_graph(root: Path = ROOT, packages: tuple[str, ...] = SHIPPED) -> dict[str, set[str]]:
    """Every module of app/, workflows/ and envs/ (or of `packages` under `root`) and the modules of these
    packages it imports: at its top, inside functions and under TYPE_CHECKING alike (`from x import y` counts y
    when y is a module)."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in (root / package).rglob("*.py") if (root / package).is_dir() else [root / package]:
            parts = list(path.relative_to(root).with_suffix("").parts)
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            graph[name] |= {target for target in map(known, targets) if target and target != name}
    return graph


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: the graph's strongly connected components (the documents' own cycle finder)."""
    from workflows.document import cycles

    return cycles({name: sorted(targets) for name, targets in graph.items()})


def test_the_checker_finds_a_circle() -> None:
    assert [sorted(c) for c in import_circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})] == [["a", "b", "c"]]
    assert import_circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles() -> None:
    graph = module_graph()
    assert "app.cli.common" in graph["app.cli.main"]  # the graph was built
    assert import_circles(graph) == []


# -- layers that only point down ------------------------------------------------------------------------------
# Lowest first. A module may import its own layer and the layers below; siblings (the packages of one layer)
# may not import each other. Every module of app/ must be placed: a name places that module and everything under
# it; "=name" places that module alone (the `app` package itself, so that a new module at its root must be placed).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("plumbing",),  # atomic writes, stores, the data folder, loggers: below every domain
    ("envs",),
    ("workflows",),
    ("=app",),  # app/__init__.py alone: the version, pydantic's loading before PySide6
    ("app.startup",),  # the process: Qt's environment, Qt with asyncio, logging, translations, resources
    ("app.stores",),  # Qt-free stores every operation's context holds
    ("app.browser",),  # the Qt adapter behind workflows/ports.py
    ("app.ops",),
    ("app.catalog",),  # the operations seen as tools, below both the agent and the MCP server
    ("app.agent", "app.distributed", "app.schedules"),
    ("app.mcp",),
    ("app.ui",),
    ("app.desktop",),  # the tray, notifications, unattended work: they drive the windows
    ("app.wiring",),  # the registry, the shell, the app's and the worker's processes
    ("app.cli",),  # the command line starts the app that wiring builds
)
# Siblings that may import each other, as (importer, imported), each with its reason. None need to: the agent,
# the workers and the schedules meet only through the operations.
SIBLING_IMPORTS_ALLOWED: frozenset[tuple[str, str]] = frozenset()


def layer_of(module: str, layers: tuple[tuple[str, ...], ...]) -> tuple[int, str] | None:
    """The layer index and the placing prefix of `module` (the longest prefix that places it), or None."""
    best: tuple[int, str] | None = None
    for index, prefixes in enumerate(layers):
        for prefix in prefixes:
            exact = prefix.startswith("=")
            name = prefix.lstrip("=")
            places = module == name or (not exact and module.startswith(name + "."))
            if places and (best is None or len(name) > len(best[1])):
                best = (index, name)
    return best


def upward_imports(graph: dict[str, set[str]], layers: tuple[tuple[str, ...], ...],
                   allowed: frozenset[tuple[str, str]] = frozenset()) -> list[str]:
    """Every import that points up a layer or sideways to a sibling, and every module no layer places."""
    problems: list[str] = []
    for module, targets in sorted(graph.items()):
        placed = layer_of(module, layers)
        if placed is None:
            problems.append(f"{module}: in no layer (add it to LAYERS)")
            continue
        for target in sorted(targets):
            to = layer_of(target, layers)
            if to is None:
                continue  # reported as its own module
            if to[0] > placed[0]:
                problems.append(f"{module} -> {target}: up from {placed[1]} to {to[1]}")
            elif to[0] == placed[0] and to[1] != placed[1] and (placed[1], to[1]) not in allowed:
                problems.append(f"{module} -> {target}: sideways from {placed[1]} to its sibling {to[1]}")
    return problems


def test_the_layer_checker_finds_an_upward_import(tmp_path: Path) -> None:
    """A synthetic tree: an import inside a function pointing up, one sideways, and modules no layer places."""
    (tmp_path / "low").mkdir()
    (tmp_path / "low" / "__init__.py").write_text("")
    (tmp_path / "low" / "base.py").write_text("def later():\n    from high.top import x\n    return x\n")
    (tmp_path / "mid_a.py").write_text("import mid_b\nimport low.base\n")
    (tmp_path / "mid_b.py").write_text("from low import base\n")
    (tmp_path / "high").mkdir()
    (tmp_path / "high" / "__init__.py").write_text("")
    (tmp_path / "high" / "top.py").write_text("from low.base import later\nx = 1\n")
    (tmp_path / "stray.py").write_text("")
    (tmp_path / "high" / "extra.py").write_text("")
    layers = (("low",), ("mid_a", "mid_b"), ("=high", "high.top"))
    graph = module_graph(tmp_path, ("low", "high", "mid_a.py", "mid_b.py", "stray.py"))
    assert graph["low.base"] == {"high.top"}  # found inside the function
    assert upward_imports(graph, layers) == [
        "high.extra: in no layer (add it to LAYERS)",  # "=high" places the package alone
        "low.base -> high.top: up from low to high.top",
        "mid_a -> mid_b: sideways from mid_a to its sibling mid_b",
        "stray: in no layer (add it to LAYERS)"]
    allowed = upward_imports(graph, layers, frozenset({("mid_a", "mid_b")}))
    assert "low.base -> high.top: up from low to high.top" in allowed and not any("sideways" in p for p in allowed)


def test_imports_point_down_the_layers() -> None:
    graph = module_graph()
    assert "app.ops.context" in graph and "app.wiring.registry" in graph  # the graph was built
    assert upward_imports(graph, LAYERS, SIBLING_IMPORTS_ALLOWED) == []


def test_no_operation_function_answers_a_flat_object() -> None:
    """Every operation's function is annotated to answer its result model or an `Envelope` of it, never
    `dict[str, Any]`: the registry hands the typed answer on, and only `call` writes the flat form."""
    from app.wiring.registry import build_registry

    flat = [op.name for op in build_registry().operations.values()
            if "dict[" in str(op.func.__annotations__.get("return", "dict[str, Any]"))]
    assert flat == []
