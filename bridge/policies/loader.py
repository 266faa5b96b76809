"""Loading native policies named in the config as `module:function` or `file.py:function`."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from typing import Any


class PolicyLoadError(ValueError):
    pass


def load_policy(ref: str) -> Callable[..., Any]:
    target, _, attr = ref.rpartition(":")
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
    name = "ccbridge_policy_" + hashlib.sha256(path.encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PolicyLoadError(f"cannot load policy file {path}")
    module = importlib.util.module_from_spec(spec)
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
