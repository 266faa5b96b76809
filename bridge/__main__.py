"""`python -m bridge` is the same as the `ccbridge` command."""

import gc
import sys

import bridge

# A hook call is short-lived and builds no cycles worth collecting; the collections the imports
# alone set off cost 5% of a warm call (valgrind). main() turns it back on for other commands.
gc.disable()
bridge.find_own_modules_directly()

from bridge.main import main  # noqa: E402 (after gc.disable on purpose)

sys.exit(main())
