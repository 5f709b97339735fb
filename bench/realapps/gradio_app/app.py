"""Gradio (a single-page app in Svelte: Gradio's own dropdown; the Save runs through the server's queue over
server-sent events, so the row lands a moment after the click).

Variants over the same data: Gradio 4.44 (recorded) and Gradio 5.50 (next major: new theme, components and
markup rewritten).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.realapps.common import Server, free_port
from bench.realapps.corpus import App, Expected, Variant
from bench.realapps.person import Click, Step, Type, WaitFor, q, text_is
from bench.realapps.seed_events import events, seed

HERE = Path(__file__).resolve().parent
OLD = ("gradio==4.44.1", "huggingface_hub==0.25.2", "pydantic==2.10.6", "fastapi==0.112.4", "numpy==1.26.4",
       "pandas==2.2.3")
NEW = ("gradio==5.50.0",)


class GradioApp(App):
    name = "gradio_app"
    covers = ("single-page app in Svelte", "custom select (Gradio dropdown)", "save through a server queue")
    variants = (
        Variant("4.44", "gradio-4.44", "3.11", OLD, recorded=True),
        Variant("5.50", "gradio-5.50", "3.11", NEW, what="next major: new theme and component markup"),
    )
    expected = Expected({"title": "Bench summit", "category": "Workshop", "starts_on": "2026-03-14",
                         "public": True, "notes": "Bring a laptop, doors open at nine."})

    def seed(self, variant: Variant, work: Path) -> None:
        seed(work / "events.sqlite")

    def server(self, variant: Variant, work: Path, host: str = "127.0.0.1") -> Server:
        port = free_port(host)
        return Server(f"gradio {variant.name}", [str(self.python(variant)), str(HERE / "events_blocks.py")], work,
                      {"BENCH_DB": str(work / "events.sqlite"), "BENCH_HOST": host, "BENCH_PORT": str(port),
                       "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "HOME": str(work)},
                      host, port, work / "server.log")

    def records(self, variant: Variant, work: Path) -> list[dict[str, Any]]:
        return events(work / "events.sqlite")

    def flow(self, base: str) -> list[Step]:
        return gradio_flow()


def gradio_flow(frame: str | None = None) -> list[Step]:
    """The person's flow on Gradio 4.44, in the top page or in the frame `frame`."""
    def field(label: str, tag: str = "input, textarea") -> str:
        """The control of the block titled `label` (Gradio's block-info title, or the label's own text)."""
        return (f"[...document.querySelectorAll('[data-testid=block-info], label span')].find(s => "
                f"s.textContent.trim() === {label!r})?.closest('.block')?.querySelector({tag!r})")

    return [
        WaitFor(field("Title"), frame=frame, timeout=60),
        Click(field("Title"), frame=frame), Type("Bench summit"),
        Click(field("Category"), frame=frame),
        WaitFor(q('ul.options li[aria-label="Workshop"]'), frame=frame),
        Click(q('ul.options li[aria-label="Workshop"]'), frame=frame),
        Click(field("Starts on"), frame=frame), Type("2026-03-14"),
        Click(field("Public", "input[type=checkbox]"), frame=frame),
        Click(field("Notes", "textarea"), frame=frame), Type("Bring a laptop, doors open at nine."),
        Click(text_is("button", "Save event"), frame=frame),
        WaitFor("[...document.querySelectorAll('.prose, .md')].some(e => e.innerText.includes('Saved event'))",
                frame=frame),
    ]


APP = GradioApp()
