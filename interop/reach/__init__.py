"""Reach harness: what today's Python agent frameworks hand their model from a verbatim tool result.

`python -m interop.reach` installs each pinned framework in its own environment (`envs`), runs it against the
financial example over stdio without any model (`drivers/`, `measure`), writes `results.json` and renders the
table into the SEP and docs/reach.md (`tables`). See `run` for the modes.
"""
