"""What the cells a page cannot show did to the state the cells it shows see.

The build runs every code cell of a snippet in one namespace (tools/running/notebooks.py run()).
A page shows some of them (``{{ code("name") }}``, tagged cells); a reader who copies them runs
only those. Around every code cell the build notes, in ``state.json`` beside ``cells.json``:

- ``changed``: the names the cell bound, rebound, deleted or changed in place (a digest of each
  name's value before and after: numpy arrays and torch tensors by their bytes, modules by their
  parameters, buffers and training flags, optimisers and random generators by their state,
  containers and plain objects by their contents; a value none of these reach, e.g. a
  tokenizer or a figure, only by its type and identity);
- ``globals``: whether it changed what the next cells compute or print with outside the
  namespace: the global random generators (torch's, numpy's, Python's), numpy's and torch's
  print options, torch's default dtype, gradient mode and deterministic switch;
- ``before``: every name's digest when it started; ``end``: every name's digest after the last cell.

tests/test_page_cells.py uses it to show that the build's run of a page's cells is the run a
reader's copy makes (so it need not run them again): see its docstring.
"""

from __future__ import annotations

import hashlib
import os
import random
import sys
import types
import warnings

MAX_DEPTH = 8


def _places() -> list[tuple[str, str]]:
    """The run's scratch folders (its output folder, its working folder): named apart, so the
    same run gives the same digests in any folder."""
    places = [(os.environ.get("EXPLAINER_OUTPUT_DIR", ""), "<output>"), (os.getcwd(), "<cwd>")]
    return [(place, name) for place, name in places if len(place) > 1]


def _feed(h, value, depth: int, seen: set[int]) -> None:
    np = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    kind = type(value)
    if kind is str:
        for place, name in _places():
            value = value.replace(place, name)
    if value is None or kind in (bool, int, float, complex, str, bytes):
        h.update(f"{kind.__name__}:{value!r};".encode())
        return
    if id(value) in seen or depth > MAX_DEPTH:
        h.update(f"<{kind.__qualname__}>;".encode())
        return
    seen = seen | {id(value)}
    feed = lambda v: _feed(h, v, depth + 1, seen)  # noqa: E731
    h.update(f"{kind.__module__}.{kind.__qualname__}(".encode())
    if np is not None and isinstance(value, np.ndarray):
        h.update(f"{value.dtype}{value.shape}".encode())
        if value.dtype == object:
            for item in value.flat:
                feed(item)
        else:
            h.update(np.ascontiguousarray(value).tobytes())
    elif np is not None and isinstance(value, np.generic):
        h.update(repr(value.item() if value.dtype != object else value).encode())
    elif np is not None and isinstance(value, np.random.Generator):
        feed(value.bit_generator.state)
    elif np is not None and isinstance(value, np.random.RandomState):
        feed(value.get_state(legacy=False))
    elif torch is not None and isinstance(value, torch.Tensor):
        tensor = value.detach()
        h.update(f"{tensor.dtype}{tuple(tensor.shape)}{value.requires_grad}".encode())
        if tensor.layout == torch.strided and tensor.device.type == "cpu" and not tensor.is_quantized:
            h.update(tensor.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes())
        else:
            h.update(f"<{tensor.layout} {tensor.device}>".encode())
        if value.is_leaf and value.grad is not None:   # a non-leaf's .grad warns, and is None
            feed(value.grad)
    elif torch is not None and isinstance(value, torch.nn.Module):
        h.update(str([m.training for m in value.modules()]).encode())
        for name, tensor in value.state_dict(keep_vars=True).items():
            h.update(name.encode())
            feed(tensor)
    elif torch is not None and isinstance(value, torch.Generator):
        feed(value.get_state())
    elif torch is not None and isinstance(value, torch.optim.Optimizer):
        feed(value.state_dict())
    elif isinstance(value, random.Random):
        feed(value.getstate())
    elif isinstance(value, dict):
        for key, item in value.items():
            feed(key)
            feed(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            feed(item)
    elif isinstance(value, (set, frozenset)):
        h.update("".join(sorted(digest(item) for item in value)).encode())
    elif isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                            types.ModuleType, type)):
        h.update(getattr(value, "__qualname__", getattr(value, "__name__", "")).encode())
        if isinstance(value, types.FunctionType) and value.__defaults__:
            feed(value.__defaults__)
    elif kind.__module__.split(".")[0] == "matplotlib":
        pass   # figures and axes: drawing, not numbers (type and identity only)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        feed(vars(value))
    h.update(b");")


def digest(value) -> str:
    h = hashlib.blake2b(digest_size=12)
    _feed(h, value, 0, set())
    return h.hexdigest()


def _names(namespace: dict) -> dict[str, tuple[int, str]]:
    """name -> (identity, digest) of every name a cell may have set (not the dunders). Quietly:
    what a snippet's run writes to stderr is the snippet's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _quietly(namespace)


def _quietly(namespace: dict) -> dict[str, tuple[int, str]]:
    out = {}
    for name, value in list(namespace.items()):
        if name.startswith("__"):
            continue
        try:
            out[name] = (id(value), digest(value))
        except Exception as error:  # noqa: BLE001 — an unreadable value counts as changed
            out[name] = (id(value), f"unreadable:{type(error).__name__}")
    return out


def _globals() -> str:
    """What a cell can change outside its namespace that the next cells compute or print with:
    the global random generators (Python's, numpy's, torch's), numpy's and torch's print
    options, torch's default dtype, gradient mode and deterministic-algorithms switch."""
    parts = [repr(random.getstate())]
    np = sys.modules.get("numpy")
    torch = sys.modules.get("torch")
    if np is not None:
        parts += [digest(np.random.get_state(legacy=False)), repr(sorted(np.get_printoptions().items()))]
    if torch is not None:
        parts += [digest(torch.random.get_rng_state()), repr(vars(torch._tensor_str.PRINT_OPTS)),
                  repr((torch.get_default_dtype(), torch.is_grad_enabled(),
                        torch.are_deterministic_algorithms_enabled()))]
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=12).hexdigest()


class Watch:
    """Notes on every code cell of one run, for state.json (one look at the namespace between
    two cells serves as the first's end and the second's start)."""

    def __init__(self, namespace: dict):
        self.namespace = namespace
        self.cells: dict[int, dict] = {}
        self.last = self._look()

    def _look(self) -> tuple[dict, str]:
        return _names(self.namespace), _globals()

    def cell(self, index: int) -> None:
        """The cell ``index`` has just run."""
        (names, rng), now = self.last, self._look()
        changed = sorted(n for n in set(names) | set(now[0]) if names.get(n) != now[0].get(n))
        self.cells[index] = {"before": {n: d for n, (_, d) in sorted(names.items())},
                             "changed": changed, "globals": rng != now[1]}
        self.last = now

    def record(self) -> dict:
        return {"cells": {str(i): cell for i, cell in self.cells.items()},
                "end": {n: d for n, (_, d) in sorted(self.last[0].items())}}
