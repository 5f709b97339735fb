from tests.support.qt import shell  # noqa: F401  (fixture)
