"""The host side with no MCP SDK installed: reading, `present` and `audit` on wire dictionaries, under the
interpreter that runs it. Used to prove that `pip install mcp-rendering` (no extra) serves a host on any SDK.
Exits non-zero on any failure; prints one line per check."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "schema" / "examples"


def main() -> int:
    assert importlib.util.find_spec("mcp") is None, "this check needs an environment without the MCP SDK"
    import mcp_rendering
    from mcp_rendering.audit import audit
    from mcp_rendering.host import present

    print(f"ok: import mcp_rendering {mcp_rendering.__version__} without the SDK")
    tool = json.loads((EXAMPLES / "Tool" / "verbatim-income-statement.json").read_text(encoding="utf-8"))
    for name, complete in (("verbatim-statement", True), ("incomplete-page", False)):
        result = json.loads((EXAMPLES / "CallToolResult" / f"{name}.json").read_text(encoding="utf-8"))
        rendering = mcp_rendering.resolve_rendering(tool, result)
        assert rendering.mode == "verbatim" and rendering.complete is complete, rendering
        presentation = present(tool, result, server="example")
        assert presentation.complete is complete
        report = audit(presentation.text, result)
        assert report.clean, report.format()
        print(f"ok: {name}: read, presented and audited clean")
    try:
        mcp_rendering.install()
    except (ImportError, mcp_rendering.UnsupportedSDKError) as error:
        assert "pip install 'mcp-rendering[sdk]'" in str(error), error
        print("ok: the SDK side names the extra it needs")
    else:
        raise AssertionError("install() succeeded without the SDK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
