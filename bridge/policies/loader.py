"""Loading native policies named in the config as `module:function` or `file.py:function`."""

from __future__ import annotations

import importlib
import sys

# The two functions `importlib.util` re-exports, from where it takes them: importing
# `importlib.util` itself (and `contextlib` with it) costs every guarded hook call about 1 ms.
from importlib._bootstrap import module_from_spec
from importlib._bootstrap_external import spec_from_file_location

from bridge import CcbridgeError
from bridge.wire.digest import sha256_hex  # not hashlib: OpenSSL costs a hook call ~2 ms

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Callable
    from typing import Any


class PolicyLoadError(CcbridgeError):
    pass


BUILTIN = "builtin"  # `builtin:NAME` names a ready-made guard of bridge.policies.builtin


def load_policy(ref: str) -> Callable[..., Any]:
    target, _, attr = ref.rpartition(":")
    if target == BUILTIN:
        from bridge.policies import builtin

        if attr not in builtin.NAMES:
            import difflib

            close = difflib.get_close_matches(attr, builtin.NAMES, n=1)
            hint = f"did you mean {BUILTIN}:{close[0]}? " if close else ""
            raise PolicyLoadError(
                f"cannot load policy {ref}: there is no built-in policy {attr!r} ({hint}the "
                f"built-in ones: {', '.join(f'{BUILTIN}:{name}' for name in builtin.NAMES)})"
            )
        return getattr(builtin, attr)  # type: ignore[no-any-return]
    try:
        if target.endswith(".py") or "/" in target:
            module = _from_file(target)
        else:
            module = importlib.import_module(target)
        policy = getattr(module, attr)
    except PolicyLoadError:
        raise
    except Exception as error:  # any import-time failure of user code is a load error
        raise PolicyLoadError(
            f"cannot load policy {ref}: {type(error).__name__}: {error}"
        ) from None
    if not callable(policy):
        raise PolicyLoadError(f"policy {ref} is not callable")
    return policy  # type: ignore[no-any-return]


def _from_file(path: str) -> Any:
    name = "ccbridge_policy_" + sha256_hex(path.encode())[:16]
    if name in sys.modules:
        return sys.modules[name]
    spec = spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PolicyLoadError(f"cannot load policy file {path}")
    module = module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError:
        del sys.modules[name]
        raise PolicyLoadError(f"policy file {path} does not exist") from None
    except BaseException:
        del sys.modules[name]
        raise
    return module
