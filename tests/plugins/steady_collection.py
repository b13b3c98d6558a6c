"""Collect tests with the garbage collector paused.

CPython 3.11 can fail `ast.parse` with "AST constructor recursion depth mismatch" when a garbage
collection runs finalizers in the middle of building the tree (pytest parses every test module to
rewrite its asserts). Pausing the collector while modules are collected avoids that.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
