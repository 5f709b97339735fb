"""`editor_open`: open a saved workflow in the app's node-graph editor (what `browserpilot edit NAME` sends to
the running app). Only an app with a GUI registers a way to open editors; elsewhere the operation says so."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from app.ops.context import OpContext
from app.ops.registry import Operation, OpError, Params, operation
from app.ops.results import EditorOpenResult


class EditorOpenParams(Params):
    name: str = Field(description="A saved workflow's name or wf- id.")


@operation("editor_open", EditorOpenParams, EditorOpenResult, group="workflows")
async def editor_open(ctx: OpContext, params: EditorOpenParams) -> EditorOpenResult:
    """Open a saved workflow in the node-graph editor window of the app (raising it when it is open)."""
    if ctx.open_editor is None:
        raise OpError("this app has no editor windows")
    saved = ctx.workflows.find(params.name)
    title = ctx.open_editor(saved)  # the copy just found is the editor's (a big workflow is not copied twice)
    return EditorOpenResult(id=saved.id, name=saved.name, title=title)


OPERATIONS: tuple[Operation[Any, Any], ...] = (editor_open,)
