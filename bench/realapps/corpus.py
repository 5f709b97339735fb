"""The corpus of real web applications: what each one is, its variants (a redesign pair or more: two
major versions or two themes over the same data), and the command line to install, start and check them.

    python bench/realapps/corpus.py install [APP ...]      make every variant's venv (pinned; sequential)
    python bench/realapps/corpus.py serve APP VARIANT      seed a fresh copy, start it, print its address;
                                                           Ctrl-C stops it (by pid)
    python bench/realapps/corpus.py check [APP ...]        start each variant once, check its start page

Each application lives in `bench/realapps/<app>/` (its own files: settings, seed, the app's script) and
describes itself with an `App` subclass (`APP` in its `app.py`): variants, install, seed, start, the records
the flow makes (read from the application's own SQLite database), and the person's flow on the recorded
variant (bench/realapps/person.py).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.realapps.common import HOME, Server, make_venv, venv_python  # noqa: E402

HERE = Path(__file__).resolve().parent
APP_MODULES = ("django_admin", "flask_admin", "roundup_tracker", "streamlit_app", "gradio_app", "gradio_embed",
               "panel_app")


@dataclass(frozen=True)
class Variant:
    """One version or theme of an application."""

    name: str
    venv: str                      # the venv's name under $BP_REALAPPS_HOME/venvs (shared between themes)
    python: str                    # "3.10", "3.11"
    requirements: tuple[str, ...]  # pinned, era dependencies included
    options: dict[str, str] = field(default_factory=dict)
    recorded: bool = False         # the variant the flow is recorded on
    what: str = ""                 # what changes against the recorded variant, for the table's reader


@dataclass(frozen=True)
class Expected:
    """What the flow must create: one record whose normalised fields equal these."""

    fields: dict[str, Any]


class App:
    """One application of the corpus. Subclasses fill in the class attributes and the four methods."""

    name: str = ""
    covers: tuple[str, ...] = ()   # which kinds of page the issue asks for it covers
    variants: tuple[Variant, ...] = ()
    expected: Expected = Expected({})
    start_path: str = "/"          # where the person's flow begins
    hosts: tuple[str, ...] = ("127.0.0.1",)

    @property
    def folder(self) -> Path:
        return HERE / self.name

    def variant(self, name: str) -> Variant:
        for variant in self.variants:
            if variant.name == name:
                return variant
        raise KeyError(f"{self.name} has no variant {name!r}: {[v.name for v in self.variants]}")

    @property
    def recorded(self) -> Variant:
        return next(v for v in self.variants if v.recorded)

    def python(self, variant: Variant) -> Path:
        return venv_python(variant.venv)

    def install(self, force: bool = False) -> None:
        done: set[str] = set()
        for variant in self.variants:
            if variant.venv in done:
                continue
            started = time.monotonic()
            print(f"[{self.name}] venv {variant.venv} (python {variant.python}) ...", flush=True)
            make_venv(variant.venv, variant.python, variant.requirements, force=force)
            print(f"[{self.name}] venv {variant.venv} ready in {time.monotonic() - started:.0f} s", flush=True)
            done.add(variant.venv)

    # -- to implement --------------------------------------------------------------------------------------
    def seed(self, variant: Variant, work: Path) -> None:
        """Fresh data in `work` (the same data for every variant)."""
        raise NotImplementedError

    def server(self, variant: Variant, work: Path) -> Server:
        """The (not yet started) server of this variant over the data in `work`."""
        raise NotImplementedError

    def records(self, variant: Variant, work: Path) -> list[dict[str, Any]]:
        """Every record of the kind the flow creates, normalised like `expected.fields` (plus an `id`)."""
        raise NotImplementedError

    def flow(self, base: str) -> list[Any]:
        """The person's flow on the recorded variant (bench/realapps/person.py steps)."""
        raise NotImplementedError

    def start(self, variant: Variant, work: Path) -> Server:
        server = self.server(variant, work)
        return server.start(self.ready_path(variant))

    def ready_path(self, variant: Variant) -> str:
        return "/"

    def start_url(self, server: Server) -> str:
        return server.base + self.start_path


def load(name: str) -> App:
    module = importlib.import_module(f"bench.realapps.{name}.app")
    return module.APP  # type: ignore[no-any-return]


def apps(names: Sequence[str] = ()) -> list[App]:
    return [load(name) for name in (names or APP_MODULES)]


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    install = verbs.add_parser("install")
    install.add_argument("apps", nargs="*")
    install.add_argument("--force", action="store_true")
    serve = verbs.add_parser("serve")
    serve.add_argument("app")
    serve.add_argument("variant")
    check = verbs.add_parser("check")
    check.add_argument("apps", nargs="*")
    args = parser.parse_args(argv)
    if args.verb == "install":
        for app in apps(args.apps):
            app.install(force=args.force)
        print(f"installed under {HOME}")
        return 0
    if args.verb == "serve":
        app = load(args.app)
        variant = app.variant(args.variant)
        work = Path(tempfile.mkdtemp(prefix=f"bp-{app.name}-"))
        app.seed(variant, work)
        server = app.start(variant, work)
        print(f"{app.name} {variant.name}: {app.start_url(server)} (data in {work}; Ctrl-C stops it)", flush=True)
        try:
            while server.process and server.process.poll() is None:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            server.stop()
        return 0
    failures = 0
    for app in apps(args.apps):
        for variant in app.variants:
            work = Path(tempfile.mkdtemp(prefix=f"bp-{app.name}-"))
            began = time.monotonic()
            try:
                app.seed(variant, work)
                with app.start(variant, work) as server:
                    from bench.realapps.common import http_status
                    status = http_status(app.start_url(server), timeout=20)
                    records = app.records(variant, work)
                print(f"{app.name:16} {variant.name:14} HTTP {status} at start, {len(records)} records, "
                      f"{time.monotonic() - began:.1f} s")
                failures += status == 0
            except Exception as exc:  # report and go on to the next variant
                failures += 1
                print(f"{app.name:16} {variant.name:14} FAILED: {exc}")
            finally:
                shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
