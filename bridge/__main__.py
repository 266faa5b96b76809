"""`python -m bridge` is the same as the `ccbridge` command."""

import sys

from bridge.main import main

sys.exit(main())
