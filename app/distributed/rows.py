"""Running one row of a distributed batch inside the worker's app, on its asyncio/Qt loop.

`RowRunner.run` does what the app does for any run, through `RunManager` (one implementation of a run): a
fresh tab in the worker's environment (or in a temporary environment holding a shipped login, imported with
`env_import` and deleted afterwards), the row's time limit, and the run's files collected for shipping.

A row whose app lost its renderer during the run, or that hung past its time limit, raises `AppFault`:
the tab is closed (a fresh one serves the next row) and the caller delivers the row again. A workflow reason
(a node failed) is an ordinary failed record.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import time
from typing import Any

from app.distributed.models import RowResult, RowTask
from app.distributed.shipping import collect_files
from plumbing import loggers
from plumbing.atomic import atomic_write_text
from workflows.document import validate_document

log = logging.getLogger(loggers.DISTRIBUTED)


class AppFault(Exception):
    """The worker's app could not run the row (renderer crash, hang); the row should be delivered again."""


class RowRunner:
    def __init__(self, shell: Any, env_id: str, worker_name: str) -> None:
        self.shell = shell
        self.env_id = env_id
        self.worker_name = worker_name
        self._in_hand: dict[str, asyncio.Task[RowResult]] = {}

    def _ops(self, name: str, params: dict[str, Any]) -> Any:
        return self.shell.registry.call(self.shell.ctx, name, params)

    async def _call(self, name: str, params: dict[str, Any]) -> dict[str, Any]:
        result = await self._ops(name, params)
        if not result.get("ok"):
            raise AppFault(f"{name} failed: {result.get('error')}")
        return result

    def cancel_all(self) -> int:
        """Stop every row in hand (a second Ctrl-C): their runs are cancelled and the rows delivered again."""
        for task in self._in_hand.values():
            task.cancel()
        return len(self._in_hand)

    async def run(self, row: RowTask) -> RowResult:
        key = f"{row.batch_id}/{row.row_index}/{secrets.token_hex(2)}"
        task = asyncio.ensure_future(self._run(row))
        self._in_hand[key] = task
        try:
            return await task
        finally:
            self._in_hand.pop(key, None)

    async def _run(self, row: RowTask) -> RowResult:
        started = time.time()
        env_id = self.env_id
        temp_env: str | None = None
        if row.login is not None:
            temp_env = await self._import_login(row)
            env_id = temp_env
        try:
            record = await self._run_in_tab(row, env_id)
        finally:
            if temp_env is not None:
                deleted = await self._ops("env_delete", {"env": temp_env})
                if not deleted.get("ok"):
                    log.warning("could not delete the temporary environment %s: %s", temp_env, deleted.get("error"))
        view = record.model_dump(mode="json", by_alias=True, exclude_none=True)
        files = collect_files(view, self.shell.ctx.runs.folder(record.id), row.file_limit)
        return RowResult(record=view, worker=self.worker_name, files=files, submitted_at=row.submitted_at,
                         started_at=started, ended_at=time.time())

    async def _run_in_tab(self, row: RowTask, env_id: str) -> Any:
        doc = validate_document(row.document)
        tab = str((await self._call("tab_open", {"env": env_id}))["tabId"])
        browser = self.shell.service
        crashes, _reason = browser.renderer_crashes(tab)
        ended_with = (crashes, None)
        runner = self.shell.ctx.runner
        run = asyncio.ensure_future(runner.run(doc, row.inputs, env_id=env_id, tab_id=tab, workflow_id=row.workflow_id,
                                               batch_id=row.batch_id, row_index=row.row_index))
        try:
            record = await asyncio.wait_for(run, row.time_limit)
        except asyncio.TimeoutError:
            raise AppFault(f"row {row.row_index} did not end within its time limit of {row.time_limit:g} s; "
                           "the tab was closed") from None
        finally:
            ended_with = browser.renderer_crashes(tab)
            closed = await self._ops("tab_close", {"tabId": tab})
            if not closed.get("ok"):
                log.warning("could not close tab %s after row %s: %s", tab, row.row_index, closed.get("error"))
        if ended_with[0] > crashes and record.status != "ok":
            raise AppFault(f"the renderer died during row {row.row_index} ({ended_with[1]}); the tab was closed")
        return record

    async def _import_login(self, row: RowTask) -> str:
        """A temporary environment holding the shipped login; its file is deleted as soon as it is read."""
        created = await self._call("env_create", {"name": f"shipped login {row.batch_id} {secrets.token_hex(3)}",
                                                  "remark": "temporary: deleted after the row"})
        env_id = str(created["environment"]["id"])
        path = self.shell.data.root / "exports" / f"shipped-{secrets.token_hex(6)}.json"
        try:
            atomic_write_text(path, json.dumps(row.login))
            os.chmod(path, 0o600)
            await self._call("env_import", {"path": str(path), "env": env_id})
        except BaseException:
            await self._ops("env_delete", {"env": env_id})
            raise
        finally:
            path.unlink(missing_ok=True)
        return env_id
