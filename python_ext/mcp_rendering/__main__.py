"""`python -m mcp_rendering`: the same command line as `mcp-rendering`."""

from __future__ import annotations

import sys

from mcp_rendering.cli import main

if __name__ == "__main__":
    sys.exit(main())
