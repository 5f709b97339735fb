"""The distributed batch's defaults, in a module of their own so the command line can name them without
loading pydantic (`browserpilot mcp` builds the whole parser before it starts the app)."""

DEFAULT_QUEUE = "browserpilot"
"""The queue workers consume and submitters send to, unless told otherwise."""
DEFAULT_FILE_LIMIT = 20 * 1024 * 1024
"""Bytes of files per row shipped back to the submitter; bigger ones stay on the worker."""
DEFAULT_ROW_TIME_LIMIT = 600.0
"""Seconds a row may take before the worker gives up on it (and recovers its tab)."""
DEFAULT_HEARTBEAT_TIMEOUT = 15.0
"""Seconds without a heartbeat (a worker sends several a second) after which the live workers take
a worker for dead and put the rows it held back in the queue."""
NAMESPACE = "browserpilot"
"""The prefix of every Redis key of distributed batches (the broker's queues and each batch's keys)."""
