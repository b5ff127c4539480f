"""Settings for the whole test suite.

Under CI (``CI`` set) hypothesis draws the same examples on every run, so a result depends on
the code and not on the draw; locally it explores fresh examples each time.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
