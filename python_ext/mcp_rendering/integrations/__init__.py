"""Adapters for server and host frameworks other than the official SDK's `MCPServer` and `mcp.Client`.

Each module imports its framework on first use and is installed with the matching extra (`mcp-rendering[...]`).
"""
