"""A single-page app's Save lands before a run says "ok" (issue: silent successes in single-page apps; and the
last submit of a form inside a shadow root or a same-origin iframe): each way of saving of
tests/support/spa_saves.py is the last action of a fresh `browserpilot run` process, and of rows of a batch
(`run --rows`, in one app). The server stores a save only when its client is still there once the work is done,
so a process that quits, or a row whose tab moves on, too early loses it; the test asserts what it stored.
The same cases as rows of workers: tests/e2e/test_distributed.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.support.app_process import run_cli
from tests.support.spa_saves import CASES, NO_SAVE, SaveSite, case_url, save_workflow

pytestmark = pytest.mark.e2e

SETTLE_BOUND_MS = 10_000  # settleSeconds, by default


@pytest.fixture(scope="module")
def site() -> Iterator[SaveSite]:
    with SaveSite() as server:
        yield server


@pytest.fixture(scope="module")
def workflow_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("spa") / "save.json"
    path.write_text(json.dumps(save_workflow()))
    return path


def _record(ran: Any) -> dict[str, Any]:
    assert ran.stdout.strip(), ran.stderr
    return dict(json.loads(ran.stdout))


@pytest.mark.parametrize("case", [*CASES, NO_SAVE])
def test_the_last_click_of_a_fresh_run_saves_before_the_process_ends(
        case: str, site: SaveSite, workflow_file: Path, tmp_path: Path) -> None:
    who = f"fresh-{case}"
    ran = run_cli(tmp_path / "data", "run", str(workflow_file), "--headless", "--json",
                  "--input", f"url={case_url(site, case)}", "--input", f"who={who}", timeout=120)
    record = _record(ran)
    assert ran.returncode == 0 and record["status"] == "ok", (record.get("error"), ran.stderr[-2000:])
    assert record.get("pendingAtEnd", []) == []
    if case == NO_SAVE:
        assert record["durationMs"] < SETTLE_BOUND_MS  # a click that starts nothing does not wait out the bound
        assert site.saves(who) == []
    else:
        assert site.saves(who) == [case], f"{case}: the server stored {site.saves(who)}"


def test_every_row_of_a_batch_saves_before_the_next_row_or_the_end(
        site: SaveSite, workflow_file: Path, tmp_path: Path) -> None:
    """One batch, one tab: each row's save must land before the next row navigates the tab away (and the last
    one before the process ends)."""
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([{"url": case_url(site, case), "who": f"row-{case}"} for case in (*CASES, NO_SAVE)]))
    ran = run_cli(tmp_path / "data", "run", str(workflow_file), "--rows", str(rows), "--headless", "--json",
                  "--quiet", timeout=240)
    result = _record(ran)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert result["succeeded"] == len(CASES) + 1 and result["failed"] == 0, result
    assert {case: site.saves(f"row-{case}") for case in (*CASES, NO_SAVE)} == {
        **{case: [case] for case in CASES}, NO_SAVE: []}
