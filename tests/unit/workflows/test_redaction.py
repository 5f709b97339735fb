"""The one redaction (workflows/redaction.py): every form of a secret's value, dictionary keys, base64 bodies and
log lines; and a workflow run whose record and events must not keep any of those forms."""

from __future__ import annotations

import asyncio
import base64
import html
import json
import logging
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import pytest

from workflows.document import validate_document
from workflows.engine import Executor, RunSettings
from workflows.redaction import REDACTED, Redactor, forms, redact, redacting_logs
from workflows.runs import RunRecord

from tests.unit.workflows.fake_operations import FakeOperations

# Every encoding below writes this value differently: a space, & / + ~ * ! ' ( ) " < > %, and non-ASCII.
SECRET = "p@ss wörd/&+~*!'()\"<>%"
NAME = "pw"
SHOWN = f"<secret:{NAME}>"


def browser_form(value: str) -> str:
    """A browser's application/x-www-form-urlencoded, byte by byte (URL Standard)."""
    out = []
    for byte in value.encode("utf-8"):
        char = chr(byte)
        out.append(char if char.isascii() and (char.isalnum() or char in "*-._") else
                   "+" if char == " " else f"%{byte:02X}")
    return "".join(out)


ENCODINGS: dict[str, str] = {
    "plain": SECRET,
    "URL-encoded, nothing kept": quote(SECRET, safe=""),
    "URL-encoded, / kept": quote(SECRET),
    "form-encoded (+ for a space), Python": quote_plus(SECRET),
    "form-encoded (+ for a space), / kept": quote_plus(SECRET, safe="/"),
    "form-encoded (+ for a space), a browser's form body": browser_form(SECRET),
    "encodeURIComponent": quote(SECRET, safe="-_.!~*'()"),
    "a typed address's query": quote(SECRET, safe="!$%&'()*+,-./:;=?@[\\]^_`{|}~"),
    "JSON-escaped, ASCII": json.dumps(SECRET)[1:-1],
    "JSON-escaped, as is": json.dumps(SECRET, ensure_ascii=False)[1:-1],
    "HTML entities, Python": html.escape(SECRET),
    "HTML entities, &#39; and &#34;": html.escape(SECRET).replace("&#x27;", "&#39;").replace("&quot;", "&#34;"),
    "HTML text between tags (quotes as they are)": html.escape(SECRET, quote=False),
    "base64": base64.b64encode(SECRET.encode("utf-8")).decode("ascii"),
    "base64 without its padding": base64.b64encode(SECRET.encode("utf-8")).decode("ascii").rstrip("="),
}


def test_the_encodings_are_all_different() -> None:
    """Otherwise a test below would not show that its form is caught."""
    assert len(set(ENCODINGS.values())) == len(ENCODINGS)
    assert set(ENCODINGS.values()) == set(forms(SECRET))


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_every_encoding_of_a_secret_is_replaced_in_text(encoding: str) -> None:
    form = ENCODINGS[encoding]
    text = f"before {form} after"
    assert redact(text, {NAME: SECRET}) == f"before {SHOWN} after"
    assert Redactor.of([SECRET]).text(text) == f"before {REDACTED} after"


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_every_encoding_is_replaced_in_dictionary_keys_and_nested_values(encoding: str) -> None:
    form = ENCODINGS[encoding]
    value = {form: {"list": [f"x{form}x", 3, None], "tuple": (form,)}, "n": 1.5}
    assert redact(value, {NAME: SECRET}) == {SHOWN: {"list": [f"x{SHOWN}x", 3, None], "tuple": (SHOWN,)}, "n": 1.5}


def test_a_url_safe_base64_token_is_replaced() -> None:
    """URL-safe base64 (`-_` for `+/`) differs from the standard one only for some bytes: this value has them."""
    value = "~~~???>>>"
    standard, url_safe = base64.b64encode(value.encode()).decode(), base64.urlsafe_b64encode(value.encode()).decode()
    assert standard != url_safe
    for form in (url_safe, url_safe.rstrip("="), standard):
        assert Redactor.of([value]).text(f"https://x.test/?t={form}&u=1") == f"https://x.test/?t={REDACTED}&u=1"


def test_a_base64_body_is_decoded_redacted_and_encoded_again() -> None:
    body = f"token={quote_plus(SECRET)}&user=ada\n{json.dumps({'pw': SECRET})}".encode("utf-8")
    content = {"mimeType": "application/octet-stream", "encoding": "base64",
               "text": base64.b64encode(body).decode("ascii")}
    redacted = Redactor.of({SECRET: SHOWN})({"response": {"content": content}})["response"]["content"]
    assert base64.b64decode(redacted["text"]) == f'token={SHOWN}&user=ada\n{{"pw": "{SHOWN}"}}'.encode("utf-8")
    assert redacted["mimeType"] == "application/octet-stream" and redacted["encoding"] == "base64"
    untouched = {"encoding": "base64", "text": base64.b64encode(b"nothing secret").decode("ascii")}
    assert Redactor.of([SECRET])(untouched) == untouched


def test_text_marked_base64_that_is_not_is_redacted_as_text() -> None:
    assert Redactor.of([SECRET])({"encoding": "base64", "text": f"not base64: {SECRET}"})["text"] == \
        f"not base64: {REDACTED}"


def test_the_longest_form_wins_and_a_replacement_is_never_searched_again() -> None:
    redactor = Redactor.by_name({"short": "secret", "long": "secret-longer"})
    once = redactor.text("secret-longer and secret")
    assert once == "<secret:long> and <secret:short>"
    # "secret" is inside "<secret:short>": what was redacted (the agent redacts what it sends once more) stays.
    assert redactor.text(once) == once and redactor({"<secret:short>": [once]}) == {"<secret:short>": [once]}


def test_an_empty_redactor_changes_nothing_and_empty_values_are_ignored() -> None:
    value = {"a": ["b"]}
    assert not Redactor.of([]) and not Redactor.by_name({"empty": ""})
    assert Redactor.of([""])(value) is value
    assert redact(None, {NAME: SECRET}) is None


def test_log_lines_their_arguments_and_tracebacks_are_redacted(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("browserpilot.test-redaction")
    with caplog.at_level(logging.INFO), redacting_logs(Redactor.by_name({NAME: SECRET})):
        logger.info("typed %s into %s", quote(SECRET, safe=""), "the form")
        try:
            raise ValueError(f"refused {SECRET}")
        except ValueError:
            logger.exception("failed")
    with caplog.at_level(logging.INFO):
        logger.info("after: %s", SECRET)  # the filter is gone with the block
    shown = caplog.text
    assert f"typed {SHOWN} into the form" in shown and f"ValueError: refused {SHOWN}" in shown
    assert shown.count(SECRET) == 1 and f"after: {SECRET}" in shown


# -- a run: its record and its events -----------------------------------------------------------------------
def run_document() -> Any:
    node = lambda node_id, **data: {"id": node_id, "data": data, "position": {"x": 0, "y": 0}}  # noqa: E731
    edge = lambda a, b: {"id": f"{a}-{b}", "source": a, "target": b, "sourceHandle": "source"}  # noqa: E731
    return validate_document({"app": {"name": "Secrets"}, "kind": "workflow", "version": "0.3.0", "workflow": {
        "graph": {"nodes": [node("start", type="start", variables=[{"variable": NAME, "type": "secret"}]),
                            node("c", type="code", code="return encoded;",
                                 variables=[{"variable": "pw", "value_selector": ["input", NAME]}],
                                 outputs={}),
                            node("end", type="end", outputs=[{"variable": "sent", "value_selector": ["c", "sent"]}])],
                  "edges": [edge("start", "c"), edge("c", "end")]}}})


def test_a_runs_record_and_events_hold_no_form_of_a_secret_input(tmp_path: Path) -> None:
    """The engine's record and its `node_finished` events: the forms a page or a request would show."""
    ops = FakeOperations()

    async def code(source: str, inputs: dict[str, Any], timeout: float) -> Any:
        value = inputs["pw"]
        return {"sent": f"q={quote_plus(value)}&json={json.dumps(value)[1:-1]}",
                quote(value, safe=""): html.escape(value)}  # a key too

    events: list[tuple[str, dict[str, Any]]] = []
    record = RunRecord(id="run-1", workflow_name="Secrets", env="env-default")
    executor = Executor(run_document(), ops, code, lambda _tab: ("about:blank", ""), RunSettings(env_id="env-default", tab_id="tab-1",
                                                              folder=tmp_path / "run-1", secret_values={NAME: SECRET}),
                        record, on_event=lambda kind, fields: events.append((kind, fields)))
    finished = asyncio.run(executor.run({NAME: SECRET}))
    assert finished.status == "ok", finished.error
    assert finished.outputs == {"sent": f"q={SHOWN}&json={SHOWN}"}
    output = next(fields["output"] for kind, fields in events if kind == "node_finished" and fields["node"] == "c")
    assert output == {"sent": f"q={SHOWN}&json={SHOWN}", SHOWN: SHOWN}
    everything = json.dumps([finished.model_dump(mode="json"), events], ensure_ascii=False, default=str)
    assert not any(form in everything for form in forms(SECRET))
