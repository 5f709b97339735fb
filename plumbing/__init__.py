"""Shared plumbing under every other package (pure Python, no Qt): atomic file writes, the JSON store and the
off-thread save manager, the data folder's layout, the feed of store changes, safe file names and the names of
the app's loggers. It knows nothing of environments, workflows or windows; `envs/`, `workflows/` and `app/` build
on it."""
