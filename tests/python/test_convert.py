"""What a user's function gets and how its answers come back: frameworks, dtypes, devices, ops."""
import io
import json
import types

import sys

import numpy as np
import pytest

from pecheck import _serve
from pecheck._api import _Served
from pecheck._convert import Converter, answer_dtype, detect_framework


def served(op, functions, **keywords):
    defaults = dict(dtype=None, compute=None, params=None, layout=None, name=None, framework=None, device=None)
    defaults.update(keywords)
    return _Served(op, functions, **defaults)


def exchange(s, *requests):
    """The answers serve() gives to `requests` (after a protocol-2 hello), as parsed JSON."""
    lines = [{"id": 0, "op": "hello", "protocol": 2}] + [dict(r, id=i + 1) for i, r in enumerate(requests)]
    lines.append({"id": len(lines), "op": "shutdown"})
    out = io.BytesIO()
    inp = io.BytesIO("".join(json.dumps(r) + "\n" for r in lines).encode())
    _serve.serve(**s.serve_kwargs, stdin=inp, stdout=out, as_arrays=True)
    answers = [json.loads(line) for line in out.getvalue().decode().splitlines()]
    return answers[0]["result"], [decode(a) for a in answers[1:-1]]


def decode(answer):
    result = answer.get("result")
    if isinstance(result, dict) and "b64le" in result:
        return {"result": _serve._from_b64le(result, as_lists=False)}
    return answer


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_the_dtype_is_the_one_the_numpy_function_returns(dtype):
    s = served("encode", {"encode": lambda dim, positions, seq_len: np.zeros((len(positions), dim), dtype)})
    assert s.dtype == np.dtype(dtype).name and s.framework == "numpy"


def test_a_declared_dtype_wins_and_inputs_come_in_it():
    seen = {}

    def rotate(positions, x):
        seen.update(positions=positions.dtype, x=x.dtype, shape=x.shape)
        return x

    s = served("rotate", {"rotate": rotate}, dtype="float16")
    hello, answers = exchange(s, {"op": "rotate", "positions": [3, 5], "x": [[1.0, 2.0], [3.0, 4.0]]})
    assert hello["dtype"] == "float16" and hello["name"] == "test_a_declared_dtype_wins_and_inputs_come_in_it.rotate"
    assert seen == {"positions": np.int64, "x": np.float16, "shape": (2, 2)}
    assert np.array_equal(answers[0]["result"], [[1.0, 2.0], [3.0, 4.0]])


def test_seq_len_is_a_keyword_given_only_to_functions_that_take_it():
    calls = []

    def with_seq_len(positions, x, seq_len=None):
        calls.append(seq_len)
        return x

    def without(positions, x):
        calls.append("none")
        return x

    request = {"op": "rotate", "positions": [0], "x": [[1.0, 0.0]], "seq_len": 9}
    exchange(served("rotate", {"rotate": with_seq_len}, dtype="float64"), request)
    exchange(served("rotate", {"rotate": without}, dtype="float64"), request)
    assert calls == [9, "none"]


def test_forward_gets_batches_with_positions_and_padding_and_decode_its_rows():
    seen = {}

    def forward(x, positions, padding):
        seen.update(x=x.shape, positions=positions.tolist(), padding=padding.tolist(), dtype=padding.dtype)
        return x * 2

    def decode(session, x, position):
        return x + position

    s = served("forward", {"forward": forward, "decode": decode, "reset": lambda session: None},
               params={"forward": {"width": 2, "causal": True, "positional": "relative"}})
    assert s.dtype == "float32"  # probed at the declared width; it follows its inputs, given in float32
    hello, answers = exchange(
        s, {"op": "forward", "x": [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]},
        {"op": "forward", "x": [[[1.0, 1.0], [1.0, 1.0]]], "positions": [[0, 0]], "padding": [[False, True]]},
        {"op": "decode", "session": "s", "x": [1.0, 2.0], "position": 3}, {"op": "reset", "session": "s"})
    assert hello["ops"] == ["forward", "decode", "reset"]
    assert np.array_equal(answers[0]["result"], [[[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]]])
    assert seen == {"x": (1, 2, 2), "positions": [[0, 0]], "padding": [[False, True]], "dtype": np.bool_}
    assert np.array_equal(answers[2]["result"], [4.0, 5.0]) and answers[3]["result"] is None


def test_forward_defaults_positions_to_0_to_n_and_padding_to_real():
    seen = {}

    def forward(x, positions, padding):
        seen.update(positions=positions.tolist(), padding=padding.tolist())
        return x

    exchange(served("forward", {"forward": forward}, dtype="float64"), {"op": "forward", "x": [[[1.0], [2.0], [3.0]]]})
    assert seen == {"positions": [[0, 1, 2]], "padding": [[True, True, True]]}


def test_bias_and_attention_get_their_arguments_in_order():
    s = served("bias", {"bias": lambda n, m, head: np.full((n, m), -float(head))},
               params={"bias": {"scheme": "alibi", "heads": 4}})
    hello, answers = exchange(s, {"op": "bias", "n": 2, "m": 3, "head": 1})
    assert hello["params"] == {"bias": {"scheme": "alibi", "heads": 4}}
    assert np.array_equal(answers[0]["result"], np.full((2, 3), -1.0))
    masks = []
    a = served("attention", {"attention": lambda q, k, v, mask: masks.append(mask) or v[: len(q)]}, dtype="float64")
    exchange(a, {"op": "attention", "q": [[1.0]], "k": [[1.0]], "v": [[2.0]], "mask": "causal"},
             {"op": "attention", "q": [[1.0]], "k": [[1.0]], "v": [[2.0]], "mask": [[True]]})
    assert masks[0] == "causal" and masks[1].dtype == np.bool_ and masks[1].tolist() == [[True]]


def test_a_refusal_is_an_error_answer_and_the_first_traceback_is_kept():
    def refuses(dim, positions, seq_len):
        raise ValueError(f"odd dim {dim}")

    s = served("encode", {"encode": refuses}, dtype="float32")
    _, answers = exchange(s, {"op": "encode", "dim": 3, "positions": [0], "seq_len": 1})
    assert answers[0]["error"] == "ValueError: odd dim 3"
    assert s.handlers.first_error[0] == "encode" and "ValueError: odd dim 3" in s.handlers.first_error[1]


def test_framework_detection():
    def plain(positions, x):
        return x

    def numpy_function(positions, x):
        return np.asarray(x)

    assert detect_framework(numpy_function) == "numpy"
    if "torch" in sys.modules:  # the identity could take either: pecheck asks
        with pytest.raises(ValueError, match="Declare framework="):
            detect_framework(plain)
    else:  # without torch in the process, only NumPy arrays can be meant
        assert detect_framework(plain) == "numpy"
    with pytest.raises(ValueError, match="framework must be"):
        detect_framework(plain, "jax")


def test_torch_functions_get_tensors_and_a_module_gives_its_dtype(torch):

    class Scale(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.ones(1))

        def rotate(self, positions, x):
            assert isinstance(x, torch.Tensor) and positions.dtype == torch.int64
            return x * self.weight

    module = Scale().to(torch.bfloat16)
    s = served("rotate", {"rotate": module.rotate})
    assert s.framework == "torch" and s.dtype == "bfloat16"
    _, answers = exchange(s, {"op": "rotate", "positions": [0], "x": [[1.5, -2.0]]})
    assert np.array_equal(answers[0]["result"], [[1.5, -2.0]])


def test_a_function_whose_module_imported_torch_is_torch(torch):
    user_module = types.ModuleType("user_code")
    user_module.torch = torch
    exec("def rotate(positions, x):\n    return torch.as_tensor(x)\n", user_module.__dict__)
    assert detect_framework(user_module.rotate) == "torch"
    assert detect_framework(user_module.rotate, "numpy") == "numpy"


def test_torch_answers_come_back_to_numpy_exactly(torch):
    convert = Converter("torch", "bfloat16")
    answer = convert.answer(torch.tensor([[1.0 + 2 ** -7, 3.0]], dtype=torch.bfloat16))
    assert answer.dtype == np.float32 and answer.tolist() == [[1.0 + 2 ** -7, 3.0]]
    assert answer_dtype(torch.zeros(1, dtype=torch.bfloat16)) == "bfloat16"
    assert convert.values([[0.1]]).dtype == torch.bfloat16


def test_device_is_for_torch_functions_only():
    with pytest.raises(ValueError, match="device='cpu' is for torch functions"):
        served("rotate", {"rotate": lambda positions, x: x}, dtype="float64", device="cpu", framework="numpy")


def test_torch_inputs_go_to_the_declared_device(torch):
    devices = []

    def rotate(positions, x):
        devices.append((positions.device.type, x.device.type))
        return x

    s = served("rotate", {"rotate": rotate}, dtype="float32", framework="torch", device="cpu")
    exchange(s, {"op": "rotate", "positions": [1], "x": [[1.0, 0.0]]})
    assert devices == [("cpu", "cpu")] and s.handlers.convert.device == torch.device("cpu")


def test_a_batched_function_answers_a_whole_batch_in_one_call():
    calls = []

    def rotate_many(requests):
        calls.append(len(requests))
        out = []
        for positions, x, seq_len in requests:
            assert isinstance(x, np.ndarray) and positions.dtype == np.int64
            out.append(x * (1.0 if seq_len is None else seq_len))
        return out

    s = served("rotate", {"rotate": rotate_many}, dtype="float64", batched=True)
    hello, answers = exchange(
        s, {"op": "batch", "requests": [{"op": "rotate", "positions": [0, 1], "x": [[1.0, 2.0], [3.0, 4.0]]},
                                         {"op": "rotate", "positions": [2], "x": [[5.0, 6.0]], "seq_len": 3}]})
    assert hello["batch"] is True
    items = answers[0]["result"]
    assert calls == [2]  # the whole batch in one call
    assert [_serve._from_b64le(i["result"], as_lists=False).tolist() for i in items] == [
        [[1.0, 2.0], [3.0, 4.0]], [[15.0, 18.0]]]


def test_a_batch_a_batched_function_refuses_is_asked_again_item_by_item():
    def encode_many(requests):
        if any(dim % 2 for dim, _, _ in requests):
            raise ValueError("odd dim")
        return [np.zeros((len(positions), dim)) for dim, positions, _ in requests]

    s = served("encode", {"encode": encode_many}, dtype="float64", batched=True)
    _, answers = exchange(s, {"op": "batch", "requests": [{"op": "encode", "dim": 2, "positions": [0], "seq_len": 1},
                                                          {"op": "encode", "dim": 3, "positions": [0], "seq_len": 1}]})
    first, second = answers[0]["result"]
    assert _serve._from_b64le(first["result"], as_lists=False).shape == (1, 2)
    assert second == {"error": "ValueError: odd dim"}


def test_a_batched_function_that_miscounts_its_answers_is_refused_in_words():
    s = served("bias", {"bias": lambda requests: [np.zeros((n, m)) for n, m, _ in requests][:1]}, dtype="float64",
               batched=True, params={"bias": {"scheme": "alibi", "heads": 2}})
    _, answers = exchange(s, {"op": "batch", "requests": [{"op": "bias", "n": 1, "m": 1, "head": 0},
                                                          {"op": "bias", "n": 2, "m": 2, "head": 1}]})
    first, second = answers[0]["result"]
    assert "result" in first  # asked again alone, it answers
    assert "result" in second


def test_batched_names_only_ops_that_can_take_a_batch():
    with pytest.raises(ValueError, match="cannot take a batch"):
        _serve._batched_ops(["decode"], {"decode": print, "reset": print})
    with pytest.raises(ValueError, match="no encode function"):
        _serve._batched_ops(["encode"], {"rotate": print})
    assert _serve._batched_ops(True, {"forward": print, "decode": print, "reset": print}) == {"forward"}


@pytest.mark.parametrize("text, why", [
    ("AAAAAAAA8D8", "Incorrect padding"),            # a character short
    ("AAAAAAAA 8D8=", "Only base64 data"),           # whitespace inside
    ("AAAAAAAA8D8-", "Only base64 data"),            # the URL-safe alphabet
    ("AAAAAAAA8D8=AAAA", "Excess data after padding"),
])
def test_a_b64le_array_that_is_not_strict_base64_is_refused(text, why):
    with pytest.raises(ValueError, match=why):
        _serve._from_b64le({"b64le": text, "dtype": "float64", "shape": [1, 1]}, as_lists=False)


def test_a_b64le_array_decodes_exactly_and_its_other_faults_are_named():
    one = {"b64le": "AAAAAAAA8D8=", "dtype": "float64", "shape": [1, 1]}
    assert _serve._from_b64le(one, as_lists=False).tolist() == [[1.0]]
    assert _serve._from_b64le(one) == [[1.0]]
    with pytest.raises(ValueError, match=r"unknown keys \['order'\]"):
        _serve._from_b64le(dict(one, order="C"))
    with pytest.raises(ValueError, match="dtype must be float64 or float32"):
        _serve._from_b64le(dict(one, dtype="float16"))
    with pytest.raises(ValueError, match="holds 8 bytes, not 16"):
        _serve._from_b64le(dict(one, shape=[1, 2]))
