"""Shared test configuration: Hypothesis profiles, and the SDK patch left as each test found it.

`ci` (the default, everywhere) is bounded and derandomized, so that every run is repeatable and stays within its
time budget; `thorough` explores far more examples and is selected with HYPOTHESIS_PROFILE=thorough.
"""

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from mcp_rendering.patch import is_installed, uninstall

settings.register_profile("thorough", max_examples=500, deadline=None)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _sdk_left_as_found() -> Iterator[None]:
    """Building a `RenderingExtension` or calling `tool_annotations()` installs the SDK patch for the process, as
    it should in a server; here each test gets the SDK back as it found it, so that no test sees another's patch."""
    was_installed = is_installed()
    yield
    if is_installed() and not was_installed:
        uninstall()
