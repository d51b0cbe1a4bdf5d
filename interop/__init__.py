"""Interop harness: measures what real, unmodified MCP clients do with the rendering fields.

`python -m interop.run` drives every pinned client against the fixture server and rewrites
`interop/results/matrix.json` and `interop/results/matrix.md`. Importing this package stays cheap (stdlib only),
because the fixture server is started from it once per scenario.
"""
