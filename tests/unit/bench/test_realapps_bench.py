"""The real-application bench's own logic (bench/realapps.py), without the applications: how a replay
is judged from the application's records, how a recording is moved to the replay's servers, how codegen's
script is made headless, and that the corpus covers every kind of page the issue asks for. The bench itself
(real apps, real X input, three tools) runs outside the suite: bench/realapps/README.md."""

from __future__ import annotations

from typing import Any

import pytest

from bench.realapps import codegen
from bench.realapps.corpus import APP_MODULES, App, Expected, apps
from bench.realapps.judge import judge, rebase

WANT = {"title": "Bench summit", "public": True}


class Events(App):
    name = "events"
    expected = Expected(WANT)


SEEDED = [{"id": 1, "title": "Spring kickoff", "public": True}]


def created(**fields: Any) -> list[dict[str, Any]]:
    return [*SEEDED, {"id": 2, **WANT, **fields}]


@pytest.mark.parametrize(("after", "tool_ok", "verdict"), [
    (created(), True, "ok"),
    (created(public=False), True, "wrong"),                                    # a wrong value
    ([*created(), {"id": 3, **WANT}], True, "wrong"),                          # twice
    ([{"id": 1, "title": "Spring kickoff", "public": False}], True, "wrong"),  # an existing record changed
    (SEEDED, True, "lost"),                                                    # said ok, nothing landed
    (SEEDED, False, "failed"),
])
def test_a_replay_is_judged_by_the_records_it_left(after: list[dict[str, Any]], tool_ok: bool, verdict: str) -> None:
    assert judge(Events(), SEEDED, after, tool_ok, "boom")[0] == verdict


def test_a_record_that_landed_under_a_reported_failure_is_no_success() -> None:
    verdict, why, _new = judge(Events(), SEEDED, created(), False, "timed out waiting for the confirmation")
    assert verdict == "failed" and "landed right" in why and "timed out" in why


def test_rebase_moves_every_address_of_a_recording_to_the_replay_s_servers() -> None:
    recorded = {"app": "http://127.0.0.2:4100", "inner": "http://127.0.0.1:4200"}
    now = {"app": "http://127.0.0.2:5100", "inner": "http://127.0.0.1:5200"}
    text = 'page.goto("http://127.0.0.2:4100/") {"url": "http://127.0.0.1:4200/x"}'
    moved = rebase(text, recorded, now)
    assert moved == 'page.goto("http://127.0.0.2:5100/") {"url": "http://127.0.0.1:5200/x"}'


def test_codegen_s_script_is_replayed_headless_on_debian_s_chromium_with_a_timeout() -> None:
    script = ("def run(playwright: Playwright) -> None:\n    browser = playwright.chromium.launch(headless=False)\n"
              "    context = browser.new_context()\n    page = context.new_page()\n")
    patched = codegen.for_replay(script)
    assert "headless=True" in patched and "executable_path='/usr/bin/chromium'" in patched
    assert f"    context.set_default_timeout({codegen.TIMEOUT_MS})\n    page = context.new_page()" in patched


def test_the_corpus_covers_the_kinds_of_page_real_apps_have_with_a_redesign_pair_each() -> None:
    corpus = apps(APP_MODULES)
    assert len({app.name.split("_")[0] for app in corpus}) >= 6
    for app in corpus:
        assert sum(v.recorded for v in app.variants) == 1, app.name
        assert len(app.variants) >= 2, f"{app.name} has no redesign pair"
        assert app.expected.fields, app.name
    covered = " | ".join(kind for app in corpus for kind in app.covers)
    for kind in ("server-rendered admin", "Bootstrap-themed CRUD", "issue tracker", "React", "Svelte",
                 "shadow DOM", "rich text", "date picker", "custom select", "sign-in that redirects",
                 "cross-origin frame"):
        assert kind in covered, f"nothing in the corpus covers {kind}"
