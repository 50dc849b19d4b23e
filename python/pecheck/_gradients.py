"""The backward op for a user's function (SUBJECT-PROTOCOL.md "Gradients"): the vector-Jacobian products
of rotate and attention, answered by pecheck's package itself.

- A torch function: autograd through it (custom ``torch.autograd.Function``s included, so a kernel's own
  backward is what is judged), at the request's inputs in the check's dtype and device.
- A NumPy function has no backward unless the user gives one: ``backward=`` a second callable taking the
  function's arguments then the upstream gradient, and returning dx (rotate) or (dq, dk, dv) (attention).
"""

from ._serve import BACKWARD_INPUTS

# The positions of the array inputs of each op's function arguments (rotate(positions, x, ...),
# attention(q, k, v, mask), forward(x, positions, padding): a module's dx, B × N × d).
_ARRAY_ARGUMENTS = {"rotate": (1,), "attention": (0, 1, 2), "forward": (0,)}


def autograd_backward(functions):
    """backward(of, arguments, keywords, grad) -> {name: gradient}, through torch autograd."""
    import torch

    def backward(of, arguments, keywords, grad):
        fn = functions[of]
        arguments = list(arguments)
        leaves = []
        for index in _ARRAY_ARGUMENTS[of]:
            leaf = arguments[index].detach().clone().requires_grad_(True)
            arguments[index] = leaf
            leaves.append(leaf)
        # Converter.call runs functions under no_grad; a backward needs the graph, and inference_mode
        # tensors cannot join one (the clones above are ordinary tensors).
        with torch.inference_mode(False), torch.enable_grad():
            output = fn(*arguments, **keywords)
            if not isinstance(output, torch.Tensor):
                raise TypeError(f"the {of} function returned {type(output).__name__}, not a tensor: autograd "
                                "cannot differentiate it")
            if not output.requires_grad:
                raise TypeError(f"the {of} function's answer has no gradient (grad_fn is None): it does not "
                                "depend on its inputs through autograd")
            grads = torch.autograd.grad(output, leaves, grad_outputs=grad.to(dtype=output.dtype, device=output.device),
                                        allow_unused=True)
        return {name: (g if g is not None else torch.zeros_like(leaf))
                for name, g, leaf in zip(BACKWARD_INPUTS[of], grads, leaves)}

    return backward


def given_backward(of, fn):
    """backward(of, arguments, keywords, grad) from a user's callable fn(*arguments, grad, **keywords)."""
    names = BACKWARD_INPUTS[of]

    def backward(asked, arguments, keywords, grad):
        if asked != of:
            raise ValueError(f"this backward= answers the gradients of {of}, not {asked}")
        result = fn(*arguments, grad, **keywords)
        if len(names) == 1:
            return {names[0]: result}
        result = tuple(result)
        if len(result) != len(names):
            raise ValueError(f"the {of} backward returned {len(result)} gradients, not {len(names)} "
                             f"({', '.join(names)})")
        return dict(zip(names, result))

    return backward
