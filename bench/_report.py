"""What every benchmark shares: a printed table and flat JSON under bench/results/."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain aligned text table."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def write(name: str, figures: Mapping[str, float | int | str]) -> Path:
    """Write `figures` (flat) to bench/results/<name>.json and return the path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(dict(figures), indent=2, sort_keys=True) + "\n")
    return path


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.1f}" if value >= 100 else f"{value:.3g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


class Errors:
    """Errors counted by kind (the exception's type): every bench reports them, never hides them."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()

    def add(self, exc: BaseException | str) -> None:
        """Count one error: an exception (by its type) or a kind named by the caller."""
        self.kinds[exc if isinstance(exc, str) else type(exc).__name__] += 1

    def __len__(self) -> int:
        return sum(self.kinds.values())

    def figures(self) -> dict[str, int | str]:
        """`errors` (how many) and `error_kinds` ("Kind count, ..." most first; "" when none)."""
        return {"errors": len(self), "error_kinds": ", ".join(f"{k} {n}" for k, n in self.kinds.most_common() if n > 0)}

    def line(self) -> str:
        """One line for under a table."""
        if not self:
            return "errors: 0"
        return f"ERRORS: {len(self):,} ({self.figures()['error_kinds']}): the figures above are not valid"
