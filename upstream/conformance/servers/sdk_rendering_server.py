"""The SDK's rendering tutorial server (docs_src/rendering/tutorial001.py of the patched SDK), over streamable HTTP.

It uses only the patched SDK: `mcp.server.rendering` and `MCPServer`. Run from the patched tree, with its
environment (upstream/conformance/check.sh does): python sdk_rendering_server.py PORT
"""

import sys

import uvicorn

from docs_src.rendering.tutorial001 import mcp

if __name__ == "__main__":
    uvicorn.run(mcp.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
