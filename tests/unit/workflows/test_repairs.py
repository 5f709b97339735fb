"""Proposed repairs and their automatic acceptance (workflows/repairs.py), and how the command line reports heals."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from app.cli.workflows import print_record
from workflows.repairs import apply, auto_repair_runs, current_key, due, proposals
from workflows.runs import RunRecord, TraceEntry

NEW = {"selector": "#confirm", "fingerprint": {"kind": "button", "name": "Confirm order"}}


def document() -> dict[str, Any]:
    body = {"nodes": [{"id": "inner", "data": {"type": "click", "locator": {"selector": "#in"}}}], "edges": []}
    return {"app": {"name": "Shop", "autoRepair": "3"}, "workflow": {"graph": {"nodes": [
        {"id": "place", "data": {"type": "click", "locator": {"selector": "#place"}}},
        {"id": "each", "data": {"type": "loop", **body}}], "edges": []}}}


def record(status: str = "ok", healed: bool = True, by_model: bool = False, run_id: str = "run-1") -> RunRecord:
    at = datetime(2026, 12, 2, tzinfo=timezone.utc)
    heal = {"from": "#place", "to": NEW, "score": 0.7, "why": "name ~0.5, form", "element": "<button>Confirm</button>"}
    trace = [TraceEntry(node="place", type="click", title="Place order", start=at, ms=5, ok=True,
                        healed=heal if healed else None)]
    key = {"node": "place", "key": "#confirm", **({"byModel": True} if by_model else {})}
    return RunRecord(id=run_id, workflow_id="wf-1", workflow_name="Shop", env="env-default", status=status,
                     trace=trace, healed=[key] if healed else [])


def test_a_successful_runs_heals_are_proposed_and_applied_at_any_level() -> None:
    [proposal] = proposals(record())
    assert (proposal["runId"], proposal["node"], proposal["to"]) == ("run-1", "place", NEW)
    assert proposals(record(status="failed")) == []
    repaired = apply(document(), "place", NEW)
    assert current_key(repaired, "place") == "#confirm" and current_key(document(), "place") == "#place"
    assert current_key(apply(document(), "inner", NEW), "inner") == "#confirm"   # inside a loop body
    with pytest.raises(LookupError, match="no node 'gone'"):
        apply(document(), "gone", NEW)


def test_auto_acceptance_needs_n_successful_runs_healing_the_same_way_and_never_a_models() -> None:
    assert auto_repair_runs(document()) == 3 and auto_repair_runs({"app": {}}) == 0
    three = [record(run_id=f"run-{i}") for i in range(3)]
    assert due(three, "place", "#confirm", 3)
    assert not due(three[:2], "place", "#confirm", 3)                                  # not N runs yet
    assert not due([record(status="failed"), *three[1:]], "place", "#confirm", 3)     # one failed
    assert not due([record(healed=False), *three[1:]], "place", "#confirm", 3)       # one did not heal
    assert not due(three, "place", "#other", 3)                                        # healed elsewhere
    assert not due([record(by_model=True), *three[1:]], "place", "#confirm", 3)      # the model's: never
    assert not due(three, "place", "#confirm", 0)                                      # off


def test_the_command_lines_summary_counts_healed_nodes(capsys: pytest.CaptureFixture[str]) -> None:
    print_record(record().view())
    out = capsys.readouterr().out
    assert "healed: 1 node (no locator found the element; its fingerprint did)" in out
    assert "  place 'Place order': #place -> <button>Confirm</button> (score 0.7: name ~0.5, form)" in out
    print_record(record(healed=False).view())
    assert "healed" not in capsys.readouterr().out
