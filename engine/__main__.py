"""``python -m engine``: the command-line tools (see :mod:`engine.cli`)."""

import sys

from engine.cli import main

sys.exit(main())
