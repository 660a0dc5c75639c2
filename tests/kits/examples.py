"""How many examples the property tests draw. ``make test`` runs the suite's counts, sized so the
whole suite keeps within its time budget; ``HYPOTHESIS_PROFILE=thorough`` (before a release, or
after changing matching) runs the larger counts these tests were written with. The state
machines of trades and events keep their fixed, derandomised counts: they assert that their runs
reach every transition, which fewer runs do not. tests/conftest.py loads the same
profile for the tests that leave their count to Hypothesis."""

from __future__ import annotations

import os

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "suite")
THOROUGH = PROFILE == "thorough"


def examples(suite: int, thorough: int) -> int:
    """The count for this run: ``suite`` in ``make test``, ``thorough`` in a thorough run."""
    return thorough if THOROUGH else suite
