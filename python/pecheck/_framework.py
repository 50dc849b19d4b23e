"""Which framework a user's function takes: NumPy arrays or torch tensors, decided once per check.

The answer is certain or there is none: ``framework="numpy"`` or ``"torch"``
when declared; torch for a torch.nn.Module or a method of one; otherwise what
the function's code refers to, followed through the functions it calls (its
global names, the attributes it reads of modules, the values its closure
holds): only torch things, torch; only NumPy things, NumPy; both, or neither
while torch is imported, pecheck does not guess and asks for ``framework=``,
with what it saw. With torch not imported in the process at all, a function
can only take NumPy arrays.
"""

import functools
import inspect
import sys
import types

FRAMEWORKS = ("numpy", "torch")
_DEPTH = 4          # how many calls deep the references are followed
_MAX_VISITED = 400  # values looked at, at most (a large user module stays quick)


class FrameworkUnknown(ValueError):
    """pecheck cannot tell which framework a function takes; the message says why and what to declare."""


def _torch():
    return sys.modules.get("torch")


def owner_module(fn):
    """The torch.nn.Module that `fn` is, or is a bound method of; None otherwise."""
    torch = _torch()
    if torch is None:
        return None
    if isinstance(fn, torch.nn.Module):
        return fn
    owner = getattr(fn, "__self__", None)
    return owner if isinstance(owner, torch.nn.Module) else None


def _framework_of_name(module_name):
    root = (module_name or "").split(".", 1)[0]
    return root if root in FRAMEWORKS else None


def _plain_function(fn):
    """The Python function behind a partial, a bound method, a decorated function or a callable object."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    fn = getattr(fn, "__func__", fn)
    try:
        fn = inspect.unwrap(fn)
    except ValueError:
        pass
    if inspect.isfunction(fn):
        return fn
    call = getattr(type(fn), "__call__", None)
    call = getattr(call, "__func__", call)
    return call if inspect.isfunction(call) else None


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


class _Search:
    """The frameworks a function's code refers to, with a sample reference for each."""

    def __init__(self):
        self.seen = {}       # framework -> "np.asarray in rope", the first reference found
        self.visited = set()

    def value(self, value, label, depth, names=()):
        """Looks at one value the code refers to; `names` are the attribute names the code reads."""
        if id(value) in self.visited or len(self.visited) >= _MAX_VISITED:
            return
        self.visited.add(id(value))
        framework = self._framework(value)
        if framework:
            self.seen.setdefault(framework, label)
            return
        if depth >= _DEPTH:
            return
        # A user module or object: the attributes this code reads of it (rope.rotate, self.inv_freq).
        try:
            attributes = vars(value) if not inspect.isfunction(value) else {}
        except TypeError:
            attributes = {}
        for attribute in names:
            if attribute in attributes:
                self.value(attributes[attribute], f"{label}.{attribute}", depth + 1, names)
        owner = getattr(value, "__self__", None)
        if owner is not None and not isinstance(owner, types.ModuleType):
            self.value(owner, label, depth + 1, names)
        function = _plain_function(value) if callable(value) and not inspect.isclass(value) else None
        if function is not None:
            self.function(function, depth + 1, owner)

    @staticmethod
    def _framework(value):
        torch = _torch()
        if torch is not None and isinstance(value, (torch.nn.Module, torch.Tensor)):
            return "torch"
        if isinstance(value, types.ModuleType):
            return _framework_of_name(value.__name__)
        if callable(value) or inspect.isclass(value):
            return _framework_of_name(getattr(value, "__module__", None))
        return _framework_of_name(type(value).__module__)

    def function(self, fn, depth, owner=None):
        if id(fn.__code__) in self.visited:
            return
        self.visited.add(id(fn.__code__))
        where = fn.__qualname__.replace(".<locals>.", ".")
        names = set()
        for code in _code_objects(fn.__code__):
            names.update(code.co_names)
        names = sorted(names)
        module_globals = fn.__globals__
        for name in names:
            if name in module_globals:
                self.value(module_globals[name], f"{name} in {where}", depth, names)
        if owner is not None:  # a method: what it reads of self
            try:
                attributes = vars(owner)
            except TypeError:
                attributes = {}
            for name in names:
                if name in attributes:
                    self.value(attributes[name], f"self.{name} in {where}", depth, names)
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            self.value(contents, f"{name} in {where}", depth, names)
        for default in (fn.__defaults__ or ()):
            self.value(default, f"a default of {where}", depth, names)


def detect_framework(fn, declared=None):
    """'numpy' or 'torch' for `fn` (see the module's docstring); FrameworkUnknown when it cannot be told."""
    if declared is not None:
        if declared not in FRAMEWORKS:
            raise ValueError(f"framework must be 'numpy' or 'torch' (or None to detect it), got {declared!r}")
        if declared == "torch":
            try:
                import torch  # noqa: F401  (declared: import it for the user)
            except ImportError:
                raise ValueError("framework='torch' needs PyTorch, which does not import here") from None
        return declared
    if _torch() is None:
        return "numpy"
    if owner_module(fn) is not None:
        return "torch"
    search = _Search()
    search.value(fn, "it", 0)
    if len(search.seen) == 1:
        return next(iter(search.seen))
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    name = name.replace(".<locals>.", ".")
    if search.seen:
        why = (f"its code refers to both NumPy ({search.seen['numpy']}) and torch ({search.seen['torch']}), so it "
               f"may take either")
    else:
        why = ("its code refers to neither NumPy nor torch (pecheck follows its globals, closures and the functions "
               "it calls), and torch is imported in this process")
    raise FrameworkUnknown(f"pecheck cannot tell whether {name} takes NumPy arrays or torch tensors: {why}. "
                           f"Declare framework='numpy' or framework='torch'")
