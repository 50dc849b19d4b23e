"""Arguments for a user's function (NumPy arrays or torch tensors) and its answers as NumPy arrays.

Which framework a function gets (decided once per check, never per call):
``framework="numpy"`` or ``"torch"`` when declared; otherwise torch when torch
is already imported and the function is a torch.nn.Module, a method of one, or
a function whose module imported torch; NumPy otherwise. pecheck never
imports torch itself unless asked to (``framework="torch"``).

Floating inputs are given in the subject's dtype (declared, or inferred from
what the function returns), so a bfloat16 module gets bfloat16 tensors as it
would in a model; NumPy has no bfloat16 and gets float32 for it. Positions are
int64, masks and padding booleans. torch inputs go to ``device`` (default: the
device of the module's first parameter or buffer, else the CPU) and answers
come back to the CPU; bfloat16 answers are widened to float32 (exactly).
"""

import sys

import numpy as np

from ._framework import FRAMEWORKS, FrameworkUnknown, detect_framework, owner_module  # noqa: F401

_NUMPY_INPUT = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": np.float32}
_NUMPY_NAMES = {np.dtype(np.float64): "float64", np.dtype(np.float32): "float32", np.dtype(np.float16): "float16"}


def _torch():
    return sys.modules.get("torch")


def module_dtype_and_device(fn):
    """(dtype name or None, device or None) of the module `fn` belongs to, from its first floating tensor."""
    module = owner_module(fn)
    if module is None:
        return None, None
    device = None
    for tensor in list(module.parameters()) + list(module.buffers()):
        device = device or tensor.device
        if tensor.is_floating_point():
            return dtype_name(tensor.dtype), tensor.device
    return None, device


def dtype_name(dtype):
    """'float64', 'float32', 'float16' or 'bfloat16' for a NumPy or torch dtype; None for anything else."""
    torch = _torch()
    if torch is not None and isinstance(dtype, torch.dtype):
        return {torch.float64: "float64", torch.float32: "float32", torch.float16: "float16",
                torch.bfloat16: "bfloat16"}.get(dtype)
    try:
        return _NUMPY_NAMES.get(np.dtype(dtype))
    except TypeError:
        return None


def answer_dtype(value):
    """The dtype name of what a function returned, or None (a list, an integer array, ...)."""
    dtype = getattr(value, "dtype", None)
    return dtype_name(dtype) if dtype is not None else None


class Converter:
    """Turns pecheck's request values into one framework's arguments, and answers into NumPy."""

    def __init__(self, framework, dtype, device=None):
        self.framework, self.dtype = framework, dtype
        self.torch = None
        if framework == "torch":
            import torch
            self.torch = torch
            self.device = torch.device(device) if device is not None else torch.device("cpu")
            self.float_dtype = {"float64": torch.float64, "float32": torch.float32, "float16": torch.float16,
                                "bfloat16": torch.bfloat16}[dtype]
        else:
            if device is not None:
                raise ValueError(f"device={device!r} is for torch functions; this one gets NumPy arrays")
            self.float_dtype = _NUMPY_INPUT[dtype]

    def values(self, value):
        array = np.asarray(value, dtype=np.float64)
        if self.torch is None:
            return array.astype(self.float_dtype)
        return self.torch.from_numpy(array).to(device=self.device, dtype=self.float_dtype)

    def integers(self, value):
        array = np.asarray(value, dtype=np.int64)
        return array if self.torch is None else self.torch.from_numpy(array).to(self.device)

    def booleans(self, value):
        array = np.asarray(value, dtype=bool)
        return array if self.torch is None else self.torch.from_numpy(array).to(self.device)

    def call(self, fn, *args, **kwargs):
        if self.torch is None:
            return fn(*args, **kwargs)
        with self.torch.no_grad():
            return fn(*args, **kwargs)

    def answer(self, value):
        """A NumPy float array of what the function returned (a tensor on any device, an array, nested lists)."""
        torch = self.torch or _torch()
        if torch is not None and isinstance(value, torch.Tensor):
            value = value.detach().cpu()
            if value.dtype == torch.bfloat16:
                value = value.float()  # NumPy has no bfloat16; float32 holds every bfloat16 exactly
            value = value.numpy()
        array = np.asarray(value)
        if array.dtype.kind in "biu":
            array = array.astype(np.float64)
        if array.dtype.kind != "f":
            raise TypeError(f"returned {type(value).__name__} of {array.dtype}, not an array of numbers")
        return array
