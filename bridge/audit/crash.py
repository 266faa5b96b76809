"""The crash log: the traceback of ccbridge's own failure, one file per crash in the state
directory, which the audit record names (the record itself keeps only `Type: message`).

Each file is redacted, private (0600 in a 0700 directory), cut to MAX_BYTES, and only the KEEP
newest are kept, so a crash loop cannot fill the disk.
"""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path

from bridge.audit.log import private_dir
from bridge.audit.redact import redact_text

MAX_BYTES = 64 << 10
KEEP = 20
_CUT = b"\n[... cut to the crash log's size cap ...]\n"


def write(state: str | os.PathLike[str], problem: BaseException) -> Path:
    """Write `problem`'s traceback to a new file under `state`/crashes; return its path."""
    text = redact_text("".join(traceback.format_exception(problem)))
    data = text.encode("utf-8", "replace")
    if len(data) > MAX_BYTES:  # keep both ends: where it started and what finally failed
        half = (MAX_BYTES - len(_CUT)) // 2
        data = (data[:half] + _CUT + data[-half:]).decode("utf-8", "ignore").encode()
    folder = private_dir(Path(state) / "crashes")
    now = time.time_ns()
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now // 10**9)) + f".{now % 10**9:09d}Z"
    path = folder / f"crash-{stamp}-{os.getpid()}.txt"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    _prune(folder)
    return path


def _prune(folder: Path) -> None:
    crashes = sorted(folder.glob("crash-*.txt"))  # the names start with the time
    for old in crashes[:-KEEP]:
        old.unlink(missing_ok=True)
