"""Helpers shared by the tests: a local HTTP server and a way to run the real app as a subprocess."""
