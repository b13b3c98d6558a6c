"""Under QIPAI_REQUIRE_SERVICES=1 (CI), an integration or e2e test that skips is a failure.

Fixtures skip when Postgres or Redis cannot be found so a contributor without them can still run
the unit tests; CI has both, so there a skip means a test silently did not run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_GUARDED = ("integration", "e2e")


def _required() -> bool:
    return os.environ.get("QIPAI_REQUIRE_SERVICES", "") not in ("", "0", "false")


def _guarded(item: pytest.Item) -> bool:
    parts = Path(str(item.fspath)).parts
    return any(p in parts for p in _GUARDED) or any(item.get_closest_marker(m) for m in _GUARDED)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    outcome = yield
    report = outcome.get_result()
    if report.skipped and _required() and _guarded(item) and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"QIPAI_REQUIRE_SERVICES=1 forbids skipping this test; it skipped: {reason}"
