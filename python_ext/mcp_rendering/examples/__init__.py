"""Example servers: real uses of the rendering hints, on synthetic data, over stdio.

Each example is a module runnable as ``python -m mcp_rendering.examples.<name>``:

- `financial`: a French company's annual accounts in the order of the plan comptable général — balance sheet,
  income statement with its subtotals and totals, and a five-year growth section with a null.
- `screening`: a KYC / sanctions screening batch that must show every flagged customer; paged.
- `orgchart`: an org chart of a few thousand people, five levels deep; paged.

All names, companies, lists and figures are invented.
"""

from __future__ import annotations

__all__ = ["EXAMPLES", "module_of"]

EXAMPLES: dict[str, str] = {
    "financial": "annual accounts in plan comptable général order (balance sheet, income statement, CAGR)",
    "screening": "a KYC / sanctions screening batch listing every flagged customer (paged)",
    "orgchart": "a five-level org chart of a few thousand people (paged)",
}
"""Example name -> one-line description."""


def module_of(name: str) -> str:
    """The module that runs example `name` (for ``python -m``)."""
    if name not in EXAMPLES:
        raise KeyError(f"unknown example {name!r}; choose one of {', '.join(EXAMPLES)}")
    return f"{__name__}.{name}"
