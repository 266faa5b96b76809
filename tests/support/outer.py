"""The environment the suite was started in, read once when tests/conftest.py loads, before its
autouse fixture gives each test a home and an environment of its own. Only what must come from
outside reads it: the real home (whose files tests/support/machine.py watches, and where
scripts/fetch-clients caches the real clients) and the switches set for a run
($CCBRIDGE_CLAUDE_CACHE, $CCBRIDGE_CLIENTS_CACHE, $CCBRIDGE_CI_NO_USERNS)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

ENVIRON: Mapping[str, str] = MappingProxyType(dict(os.environ))
HOME = Path(os.path.expanduser("~"))
