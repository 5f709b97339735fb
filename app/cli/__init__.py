"""The `browserpilot` command line, one module per group of verbs (app/cli/main.py parses and dispatches;
app/cli/common.py runs an operation here or in the running app; app/cli/exits.py the exit status)."""
