"""Shared test configuration: Hypothesis profiles.

`thorough` (the default) explores widely on a developer machine; `ci` is bounded and derandomized so that a CI
run is repeatable and stays within its time budget. Select with HYPOTHESIS_PROFILE.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("thorough", max_examples=500, deadline=None)
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "thorough"))
