from tests.support.qt import shell, windowed_shell  # noqa: F401  (fixtures)
