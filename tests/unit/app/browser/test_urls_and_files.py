"""Address-bar input and safe file names."""

from __future__ import annotations

from pathlib import Path

import pytest

from plumbing.filenames import safe_file_name, unique_safe_path
from app.browser.urls import address_to_url, as_address

SEARCH = "https://search.example/?q={query}"


@pytest.mark.parametrize("typed, url", [
    ("example.com", "https://example.com"),
    ("example.com/path?q=1", "https://example.com/path?q=1"),
    ("localhost:8000/x", "http://localhost:8000/x"),
    ("127.0.0.1:5000", "http://127.0.0.1:5000"),
    ("http://a.b/c d", "https://search.example/?q=http%3A%2F%2Fa.b%2Fc+d"),
    ("https://example.com/", "https://example.com/"),
    ("about:blank", "about:blank"),
    ("how to bake bread", "https://search.example/?q=how+to+bake+bread"),
    ("python", "https://search.example/?q=python"),
    ("", "about:blank"),
])
def test_address_to_url(typed: str, url: str) -> None:
    assert address_to_url(typed, SEARCH) == url


@pytest.mark.parametrize("typed, address", [
    ("127.0.0.1:8765/products", "http://127.0.0.1:8765/products"),  # the original's 打开网页 example
    ("shop.example.com/cart", "https://shop.example.com/cart"),
    ("https://example.com/", "https://example.com/"),
    ("how to bake bread", None),
    ("python", None),
])
def test_a_goto_address_is_made_as_the_address_bar_makes_it(typed: str, address: str | None) -> None:
    assert as_address(typed) == address


@pytest.mark.parametrize("proposed, safe", [
    ("report.pdf", "report.pdf"),
    ("../../etc/passwd", "passwd"),
    ("..\\..\\win.ini", "win.ini"),
    ("..", "download"),
    ("", "download"),
    ('a<b>c:"d|e?f*.txt', "a_b_c_d_e_f_.txt"),
    ("\x00\x1fname.csv", "_name.csv"),
])
def test_safe_file_name(proposed: str, safe: str) -> None:
    assert safe_file_name(proposed) == safe


def test_unique_safe_path_deduplicates_inside_the_folder(tmp_path: Path) -> None:
    first = unique_safe_path(tmp_path, "../data.csv")
    first.write_text("1")
    second = unique_safe_path(tmp_path, "data.csv")
    second.write_text("2")
    third = unique_safe_path(tmp_path, "data.csv")
    assert (first.name, second.name, third.name) == ("data.csv", "data (1).csv", "data (2).csv")
    assert third.parent == tmp_path
    assert len(safe_file_name("é" * 300 + ".txt").encode()) <= 200
