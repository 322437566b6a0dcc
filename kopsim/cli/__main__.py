"""`python -m kopsim.cli`, as the `kopsim` script."""

import sys

from . import main

sys.exit(main())
