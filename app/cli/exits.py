"""The command line's exit status, for every verb: 0 success, 1 the operation (or a run, a row) failed, 2 usage
error."""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
