"""Batches beyond one machine: rows through a Redis broker (Dramatiq) to `browserpilot worker` processes.

Modules, one job each: `models` (what travels: row tasks and results; pure), `broker` (the Redis broker and
its heartbeat settings), `ledger` (one batch's record in Redis: the workers' events and row claims),
`batches` (the submitter's own record of a batch, on file: the source of truth), `rows` (running a row in the
worker's app), `worker` (the Dramatiq worker in the app's process), `submitter` (publishing rows and following
them on a plain thread), `shipping` (files back to the submitter), `operation` (`workflow_distribute`,
`batch_resume`, `batch_list`), `cli` (the `worker` and `batch` verbs and `run --broker`).
"""
