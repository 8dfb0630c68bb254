"""The public API is fully annotated: every function and public method named in a module's
``__all__`` (and defined there) has a type for each parameter and for its return value, so that
users' type checkers and editors know what it takes and gives (the package ships ``py.typed``)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any, Callable, Iterator

import board_arena


def _public_callables(module: Any) -> Iterator[tuple[str, Callable]]:
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name, None)
        if getattr(obj, "__module__", None) != module.__name__:
            continue  # re-exported: checked where it is defined
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj):
            for key, value in vars(obj).items():
                if key.startswith("_") and key != "__init__":
                    continue
                if isinstance(value, (staticmethod, classmethod)):
                    value = value.__func__
                elif isinstance(value, property):
                    value = value.fget
                if inspect.isfunction(value):
                    yield f"{name}.{key}", value


def test_every_public_function_and_method_is_annotated():
    # Every module, the optional extras' too (the test extra installs gymnasium, pettingzoo, ray).
    modules = [importlib.import_module(info.name) for info in pkgutil.walk_packages(board_arena.__path__, "board_arena.")]
    missing = []
    for module in modules:
        for label, function in _public_callables(module):
            signature = inspect.signature(function)
            unannotated = [p for p, param in signature.parameters.items()
                           if p not in ("self", "cls") and param.annotation is inspect.Parameter.empty]
            no_return = signature.return_annotation is inspect.Signature.empty and function.__name__ != "__init__"
            if unannotated or no_return:
                missing.append(f"{module.__name__}.{label}: " + ", ".join(unannotated + (["return"] if no_return else [])))
    assert len(modules) > 40
    assert not missing, "unannotated public API:\n" + "\n".join(missing)
