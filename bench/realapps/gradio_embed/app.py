"""A cross-origin frame: a portal page on 127.0.0.2 embeds the Gradio app served on 127.0.0.1 in an iframe (as
sites embed hosted forms and demos). The person fills the form inside the frame.

Variants: the Gradio app in the frame is 4.44 (recorded) or 5.50 (its next major); the portal stays.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.realapps.common import Server, free_port
from bench.realapps.corpus import App, Variant
from bench.realapps.gradio_app.app import APP as GRADIO, gradio_flow
from bench.realapps.person import Step

HERE = Path(__file__).resolve().parent
FRAME = "iframe"


@dataclass
class Pair:
    """The portal and the embedded app, started and stopped together (the portal is what the person opens)."""

    portal: Server
    inner: Server

    @property
    def base(self) -> str:
        return self.portal.base

    @property
    def process(self) -> Any:
        return self.portal.process

    def start(self, ready_path: str = "/") -> "Pair":
        self.inner.start("/")
        try:
            self.portal.start("/")
        except BaseException:
            self.inner.stop()
            raise
        return self

    def stop(self) -> None:
        self.portal.stop()
        self.inner.stop()

    def __enter__(self) -> "Pair":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class GradioEmbed(App):
    name = "gradio_embed"
    covers = ("cross-origin frame (127.0.0.2 embeds 127.0.0.1)", "single-page app in Svelte")
    variants = tuple(Variant(v.name, v.venv, v.python, v.requirements, v.options, v.recorded, v.what)
                     for v in GRADIO.variants)
    expected = GRADIO.expected
    hosts = ("127.0.0.2", "127.0.0.1")

    def seed(self, variant: Variant, work: Path) -> None:
        GRADIO.seed(variant, work)

    def server(self, variant: Variant, work: Path, host: str = "127.0.0.2") -> Any:
        inner = GRADIO.server(variant, work, "127.0.0.1")
        port = free_port("127.0.0.2")
        portal = Server("portal", [sys.executable, str(HERE / "portal.py")], work,
                        {"BENCH_HOST": "127.0.0.2", "BENCH_PORT": str(port), "BENCH_FRAME": inner.base + "/"},
                        "127.0.0.2", port, work / "portal.log")
        return Pair(portal, inner)

    def start(self, variant: Variant, work: Path) -> Any:
        return self.server(variant, work).start()

    def records(self, variant: Variant, work: Path) -> list[dict[str, Any]]:
        return GRADIO.records(variant, work)

    def flow(self, base: str) -> list[Step]:
        return gradio_flow(frame=FRAME)


APP = GradioEmbed()
