"""Batches beyond one machine: rows through a Redis broker (Celery) to `browserpilot worker` processes.

Modules, one job each: `models` (what travels: row tasks and results; pure), `tasks` (the Celery app and
its delivery settings), `rows` (running a row in the worker's app), `worker` (the consumer thread and the
worker process), `submitter` (publishing rows and following results on a plain thread), `shipping` (files
back to the submitter), `operation` (`workflow_distribute`), `cli` (the `worker` verb and `run --broker`).
"""
