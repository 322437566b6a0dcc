"""`python -m kopsim`, as the `kopsim` script."""

import sys

from .cli import main

sys.exit(main())
