"""Agent run records: two runs writing at once (two store objects on one data folder) both stay listed, and a
record's folder holds its whole record."""

from __future__ import annotations

from pathlib import Path

from app.stores.agent_runs import AgentRecord, AgentRunStore
from plumbing.datadir import DataDir


def test_two_stores_on_one_data_folder_keep_each_others_runs(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    first, second = AgentRunStore(data), AgentRunStore(data)
    one = first.save(AgentRecord(task="one", model="m", env="env-default"))
    two = second.save(AgentRecord(task="two", model="m", env="env-default"))
    first.save(one.model_copy(update={"status": "succeeded"}))
    listed = {record.task: record.status for record in AgentRunStore(data).list()}
    # A new store reads a run still marked running as cut short (the app stopped meanwhile).
    assert listed == {"one": "succeeded", "two": "error"}
    assert (tmp_path / "agent_runs" / two.id / "record.json").exists()


def test_the_agent_operations_result_models_name_every_field_of_a_whole_record() -> None:
    """agent_read and agent_run answer a record's view; their result model (app/ops/results.py) names every key
    of it, down to a tool call's, and a whole record fits it as MCP's outputSchema checks (strictly)."""
    from datetime import datetime, timezone

    from app.agent.ops import agent_summary
    from app.ops.results import (AgentReadResult, AgentRecordView, AgentStepView, AgentSummary, AgentToolCallView,
                                 AgentUsageView)
    from app.stores.agent_runs import BoundSecret, Check, Judgement, Refusal, SelfReport, Step, ToolCall, Usage

    refusal = Refusal(secret="pin", tool="page_type", site="https://other.test", step=1)
    call = ToolCall(id="c1", name="page_type", input={"text": "<secret:pin>"}, ok=False, result={"ok": False},
                    error="refused", skipped=True, retried=True, changed_page=True, url="https://shop.test/",
                    ms=12.5, screenshot="s.png", locator={"selector": "#pin"}, secrets=["pin"], refusal=refusal)
    record = AgentRecord(
        task="buy", model="m", provider="openai", limitations=["no images"], env="env-default", tab_id="tab-1",
        start_url="https://shop.test/", status="succeeded", ended_at=datetime.now(timezone.utc), duration_ms=900.0,
        error="none", steps=[Step(index=1, ms=3.0, text="typing", stop_reason="tool_use", calls=[call], note="n")],
        self_report=SelfReport(success=True, answer="done", outputs={"n": 1}),
        judge=Judgement(verdict="pass", reason="seen"), checks=[Check(locator="#done", ok=True, detail="1")],
        usage=Usage(input_tokens=1, output_tokens=2, cache_read_input_tokens=3, cache_creation_input_tokens=4,
                    requests=1, cost_usd=0.01),
        files=["a.pdf"], final_url="https://shop.test/done", final_screenshot="f.png", secrets=["pin"],
        secret_domains=[BoundSecret(name="pin", domains=["shop.test"])], refusals=[refusal], taken_over=True,
        pending_at_end=[{"kind": "fetch"}], workflow={"name": "Buy", "saved": True})
    view = record.view()
    AgentReadResult.model_validate({"record": view}, strict=True)

    def names(model: type) -> set[str]:
        return {field.alias or name for name, field in model.model_fields.items()}

    assert set(view) == names(AgentRecordView)
    assert set(view["steps"][0]) == names(AgentStepView)
    assert set(view["steps"][0]["calls"][0]) == names(AgentToolCallView)
    assert set(view["usage"]) == names(AgentUsageView)
    summary = agent_summary(record)
    AgentSummary.model_validate(summary, strict=True)
    assert set(summary) == names(AgentSummary)
