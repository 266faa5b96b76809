"""SHA-256 hex digests that do not load OpenSSL for the small inputs of a hook call.

`hashlib` loads OpenSSL's libcrypto on import, a few milliseconds of every call; the
interpreter's built-in SHA-256 hashes a config file or a tool input in microseconds. Past a
megabyte OpenSSL's faster code repays its loading, so large inputs still go through `hashlib`.
The digests are the same either way.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Callable
    from typing import Any

_SMALL = 1 << 20


def _builtin() -> "Callable[[bytes], Any] | None":
    try:
        module = __import__("_sha256" if sys.version_info < (3, 12) else "_sha2")
    except ImportError:  # an interpreter built without it
        return None
    return module.sha256  # type: ignore[no-any-return]


_BUILTIN = _builtin()


def sha256_hex(data: bytes) -> str:
    if _BUILTIN is not None and len(data) <= _SMALL:
        return str(_BUILTIN(data).hexdigest())
    import hashlib

    return hashlib.sha256(data).hexdigest()


def hmac_sha256_hex(key: bytes, data: bytes) -> str:
    """RFC 2104 HMAC-SHA-256, on the built-in SHA-256 for the same reason as `sha256_hex`."""
    if _BUILTIN is None or len(data) > _SMALL:
        import hashlib
        import hmac

        return hmac.new(key, data, hashlib.sha256).hexdigest()
    if len(key) > 64:  # SHA-256's block size
        key = _BUILTIN(key).digest()
    block = int.from_bytes(key.ljust(64, b"\0"))  # big-endian, as to_bytes below
    inner = _BUILTIN(_pad(block, 0x36) + data).digest()
    return str(_BUILTIN(_pad(block, 0x5C) + inner).hexdigest())


def _pad(block: int, byte: int) -> bytes:
    return (block ^ int.from_bytes(bytes([byte]) * 64)).to_bytes(64)
