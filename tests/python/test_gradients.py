"""gradients=True: the package answers pecheck's backward op itself — through autograd for a torch function
(a custom autograd.Function's own backward included), through backward= for a NumPy one — and the grad.*
claims (CLAIMS.md §11) judge it."""
import numpy as np
import pytest

import pecheck
from support import attention, rope

GRAD = "grad.*"


def _angles(positions, d, dtype=np.float64):
    theta = dtype(10000.0) ** (-dtype(2.0) * np.arange(d // 2, dtype=dtype) / dtype(d))
    return np.asarray(positions).astype(dtype)[:, None] * theta


def rope_backward(positions, x, grad, sign=-1.0):
    """dx = R(−θ)·g pair by pair (interleaved); sign=+1 turns by +θ, the published bug."""
    g = np.asarray(grad, dtype=np.float64)
    a = sign * _angles(positions, g.shape[1])
    dx = np.empty_like(g)
    dx[:, 0::2] = g[:, 0::2] * np.cos(a) - g[:, 1::2] * np.sin(a)
    dx[:, 1::2] = g[:, 0::2] * np.sin(a) + g[:, 1::2] * np.cos(a)
    return dx


def test_a_numpy_rotary_with_its_correct_backward_passes_the_gradient_claims():
    result = pecheck.check_rotary(rope, backward=rope_backward, properties=GRAD, cases=30)
    assert result.passed
    assert {r["property"] for r in result.results} == {"grad.reference_values", "grad.rotary_inverse"}


def test_a_numpy_backward_turning_by_plus_theta_fails_grad_rotary_inverse():
    result = pecheck.check_rotary(rope, backward=lambda p, x, g: rope_backward(p, x, g, sign=1.0),
                                  properties=GRAD, cases=30, raise_on_failure=False)
    failed = {r["property"] for r in result.results if r["status"] == "failed"}
    assert "grad.rotary_inverse" in failed and "grad.reference_values" in failed


def test_gradients_on_a_numpy_function_without_backward_is_a_usage_error():
    with pytest.raises(pecheck.UsageError, match="backward="):
        pecheck.check_rotary(rope, gradients=True, framework="numpy")


def attention_backward(q, k, v, mask, grad):
    """The VJPs of support.attention (one head, float64)."""
    q, k, v, g = (np.asarray(a, dtype=np.float64) for a in (q, k, v, grad))
    scale = 1 / np.sqrt(q.shape[1])
    logits = q @ k.T * scale
    allowed = np.tril(np.ones(logits.shape, bool)) if mask == "causal" else (
        np.ones(logits.shape, bool) if isinstance(mask, str) else np.asarray(mask, bool))
    logits = np.where(allowed, logits, -np.inf)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    dv = p.T @ g
    dp = g @ v.T
    ds = p * (dp - (p * dp).sum(axis=1, keepdims=True))
    return ds @ k * scale, ds.T @ q * scale, dv


def test_a_numpy_attention_with_its_backward_passes_and_a_leaking_one_fails_causality():
    result = pecheck.check_attention(attention, backward=attention_backward, properties=GRAD, cases=20)
    assert result.passed and "grad.causality" in {r["property"] for r in result.results}

    def leaking(q, k, v, mask, grad):  # recomputes the weights without the causal mask
        return attention_backward(q, k, v, "none", grad)
    result = pecheck.check_attention(attention, backward=leaking, properties="grad.causality", cases=20,
                                     raise_on_failure=False)
    assert not result.passed
    failed = [r for r in result.results if r["status"] == "failed"]
    assert failed and failed[0]["counterexample"]["check"] in ("dk", "dv")


def _torch_rope(torch, plus_theta=False):
    """A RoPE as a custom autograd.Function (a fused kernel's shape): its forward turns by +θ, its backward
    by −θ — or by +θ, the published bug (a sign lost on the sin term)."""
    def turn(x, cos, sin, sign):
        out = torch.empty_like(x)
        out[:, 0::2] = x[:, 0::2] * cos - sign * x[:, 1::2] * sin
        out[:, 1::2] = sign * x[:, 0::2] * sin + x[:, 1::2] * cos
        return out

    class Rope(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, cos, sin):
            ctx.save_for_backward(cos, sin)
            return turn(x, cos, sin, 1.0)

        @staticmethod
        def backward(ctx, grad):
            cos, sin = ctx.saved_tensors
            return turn(grad, cos, sin, 1.0 if plus_theta else -1.0), None, None

    def rotate(positions, x):
        d = x.shape[1]
        theta = 10000.0 ** (-2.0 * torch.arange(d // 2, dtype=torch.float64) / d)
        angles = positions.to(torch.float64)[:, None] * theta
        cos, sin = (f(angles).to(x.dtype) for f in (torch.cos, torch.sin))
        return Rope.apply(x, cos, sin)
    return rotate


def test_a_torch_rope_backward_turning_by_plus_theta_passes_every_forward_claim_and_fails_rotary_inverse(torch):
    forward = pecheck.check_rotary(_torch_rope(torch, plus_theta=True), framework="torch", dtype="float64", cases=30,
                                   raise_on_failure=False)
    assert forward.passed  # the forward is exact: no forward claim sees the bug
    result = pecheck.check_rotary(_torch_rope(torch, plus_theta=True), gradients=True, framework="torch", dtype="float64", cases=30,
                                  raise_on_failure=False)
    failed = {r["property"] for r in result.results if r["status"] == "failed"}
    assert "grad.rotary_inverse" in failed
    assert pecheck.check_rotary(_torch_rope(torch), gradients=True, framework="torch", dtype="float64", cases=30).passed


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_correct_torch_backwards_pass_at_every_dtype(torch, dtype):
    assert pecheck.check_rotary(_torch_rope(torch), gradients=True, framework="torch", dtype=dtype, properties=GRAD, cases=30).passed

    def sdpa(q, k, v, mask):
        """Attention as half-precision kernels compute it: products and softmax accumulated in float32, the
        answer in the inputs' dtype (autograd brings the gradients back through the casts)."""
        qf, kf, vf = q.float(), k.float(), v.float()
        scores = qf @ kf.transpose(-1, -2) / qf.shape[-1] ** 0.5
        if isinstance(mask, str):
            if mask == "causal":
                scores = scores.masked_fill(~torch.ones_like(scores, dtype=torch.bool).tril(), float("-inf"))
        else:
            scores = scores.masked_fill(~mask, float("-inf"))
        return (torch.softmax(scores, dim=-1) @ vf).to(q.dtype)
    assert pecheck.check_attention(sdpa, gradients=True, dtype=dtype, framework="torch", properties=GRAD,
                                   cases=20).passed


def test_the_pytest_option_turns_gradients_on_unless_a_check_says_otherwise(pytester, package_env):
    from pecheck import _defaults
    with _defaults.settings(gradients=True):  # what --pecheck-gradients sets for each test
        with pytest.raises(pecheck.UsageError, match="backward="):
            pecheck.check_rotary(rope, framework="numpy", properties=GRAD)
        assert pecheck.check_rotary(rope, gradients=False, properties="rope.identity_at_zero", cases=5).passed
    pytester.makepyfile(test_option="import pecheck\n\n"
                        "def test_it():\n"
                        "    assert pecheck._defaults.get('gradients') is True\n")
    assert pytester.runpytest_subprocess("-p", "pecheck.pytest_plugin", "--pecheck-gradients").ret == 0


# ---------------------------------------------------------------- modules (of: forward)

BLOCK = {"forward": {"causal": True, "positional": "none", "width": 8}}


def _torch_causal_block(torch, leak=False):
    """A causal block h = x + Attn(x W_q, x W_k, x W_v)·W_o whose attention is a custom autograd.Function (a fused
    kernel's shape) with its own backward; leak=True recomputes the weights in the backward without the causal mask
    (a kernel's backward that drops is_causal): the forward stays exact, later tokens get gradient."""
    generator = torch.Generator().manual_seed(7)
    w = [torch.randn(8, 8, generator=generator, dtype=torch.float64) / 8 ** 0.5 for _ in range(4)]

    def weights(q, k, masked):
        s = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        if masked:
            n = s.shape[-1]
            s = s.masked_fill(~torch.ones(n, n, dtype=torch.bool, device=s.device).tril(), float("-inf"))
        return torch.softmax(s, dim=-1)

    class CausalAttention(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v):
            ctx.save_for_backward(q, k, v)
            return weights(q, k, True) @ v

        @staticmethod
        def backward(ctx, g):
            q, k, v = ctx.saved_tensors
            p = weights(q, k, not leak)
            dv = p.transpose(-1, -2) @ g
            dp = g @ v.transpose(-1, -2)
            ds = p * (dp - (p * dp).sum(-1, keepdim=True)) / q.shape[-1] ** 0.5
            return ds @ k, ds.transpose(-1, -2) @ q, dv

    def forward(x, positions, padding):
        wq, wk, wv, wo = (m.to(x.dtype) for m in w)
        return x + CausalAttention.apply(x @ wq, x @ wk, x @ wv) @ wo
    return forward


def test_a_torch_causal_block_passes_grad_causality_and_one_leaking_to_later_tokens_fails(torch):
    result = pecheck.check_module(_torch_causal_block(torch), gradients=True, params=BLOCK, dtype="float64",
                                  framework="torch", properties=GRAD, cases=20)
    assert result.passed
    # grad.causality judges it; grad.reference_values has no reference for a user's module and does not apply.
    assert {r["property"] for r in result.results} == {"grad.causality"}
    leaking = _torch_causal_block(torch, leak=True)
    assert pecheck.check_module(leaking, params=BLOCK, dtype="float64", framework="torch",
                                properties="module.causality", cases=20).passed  # the forward is exact
    result = pecheck.check_module(leaking, gradients=True, params=BLOCK, dtype="float64", framework="torch",
                                  properties=GRAD, cases=20, raise_on_failure=False)
    failed = [r for r in result.results if r["status"] == "failed"]
    assert [r["property"] for r in failed] == ["grad.causality"]
    assert failed[0]["counterexample"]["check"] == "dx"


def test_a_numpy_module_gives_its_backward_as_a_second_callable():
    def forward(x, positions, padding):  # a causal running sum: row i is x_0 + … + x_i
        return np.cumsum(np.asarray(x, dtype=np.float64), axis=1)

    def backward(x, positions, padding, grad):  # dx_j = Σ_{i ≥ j} g_i
        return np.flip(np.cumsum(np.flip(np.asarray(grad, dtype=np.float64), axis=1), axis=1), axis=1)

    params = {"forward": {"causal": True, "positional": "none", "width": 4}}
    assert pecheck.check_module(forward, backward=backward, params=params, dtype="float64", properties=GRAD,
                                cases=20).passed
    result = pecheck.check_module(forward, backward=lambda x, p, m, g: np.cumsum(np.asarray(g), axis=1),
                                  params=params, dtype="float64", properties=GRAD, cases=20, raise_on_failure=False)
    assert not result.passed  # the transposed Jacobian's wrong triangle: dx_j collects the rows before it
