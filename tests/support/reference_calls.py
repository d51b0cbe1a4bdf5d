"""The calls whose results the adapters' tests take as the server's own (`reference_result` in
tests/integrations/conftest.py): each is made once per pytest session, which holds only for a call that two starts
of its server answer alike but for a continuation's token and expiry (tests/test_examples.py checks each)."""

REFERENCE_CALLS: tuple[tuple[str, str], ...] = (
    ("mcp_rendering.examples.financial", "financial_statements"),
    ("mcp_rendering.examples.screening", "screening_report"),
    ("tests.support.hostile_server", "huge"),
)
"""(module, tool) pairs, each called without arguments."""
