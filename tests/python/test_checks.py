"""check_* against the real CLI: a correct function passes, a buggy one fails with its counterexample,
and every way a check can go wrong is a clear error, never a pass."""
import json
import os

import numpy as np
import pytest

import pecheck
from pecheck import _defaults
from support import attention, rope, rope_float32, rope_half_positions


def test_a_correct_float64_rotary_passes_and_its_temporary_reports_are_removed():
    with _defaults.settings():  # as outside pytest: no report folder from the plugin
        result = pecheck.check_rotary(rope, cases=30)
    assert result.passed and result.exit_code == 0
    # The six rope.* claims, and history_independence through copies forked from this process.
    assert result.cells == 7 and result.failed == 0
    assert "history_independence" in {r["property"] for r in result.results}
    assert result.subject == {"name": "rope", "op": "rotate", "dtype": "float64", "framework": "numpy"}
    assert result.report["subjects"][0]["dtype"] == "float64"
    assert result.report_dir is None  # passed, and nobody asked for the reports


def test_a_correct_attention_passes_every_attention_property(tmp_path):
    result = pecheck.check_attention(attention, cases=20, report_dir=tmp_path / "reports")
    assert result.passed and result.cells >= 5
    assert {r["property"] for r in result.results} >= {"attention.convex_combination",
                                                        "attention.padding_mask_isolation"}
    assert (tmp_path / "reports" / "report.json").is_file()  # asked for: kept


def test_float16_positions_fail_with_the_shrunk_counterexample_and_the_reports_are_kept():
    with pytest.raises(AssertionError) as caught:
        pecheck.check_rotary(rope_half_positions)
    failure = caught.value
    assert isinstance(failure, pecheck.CheckFailed)
    result, message = failure.result, str(failure)
    assert result.exit_code == 1 and not result.passed and result.failed >= 1
    assert result.subject["dtype"] == "float32"  # inferred from the answers
    assert "FAILED rope.relative_dot" in message or "FAILED rope.composition" in message
    failed = [r for r in result.results if r["status"] == "failed"]
    witness = failed[0]["counterexample"]
    assert json.dumps(witness["inputs"], separators=(",", ":")) in message  # the shrunk inputs, verbatim
    assert f"tolerance {witness['tolerance']['bound']:.6g}" in message
    # float16 holds every integer up to 2048 exactly: the smallest witness needs a position beyond it.
    positions = [v for k, v in witness["inputs"].items() if "position" in k or k in ("first", "second")]
    assert max(positions) > 2048
    assert os.path.isfile(os.path.join(result.report_dir, "report.json"))
    assert f"reports: {result.report_dir}" in message
    # The replay hint is the cause's: the failure the message leads with (a claim no other failure explains).
    cause = next(r for r in failed if not r.get("consequence_of"))
    assert message.index(f"FAILED {cause['property']}") < message.index(f"FAILED {failed[0]['property']}") or \
        cause is failed[0]
    path = result.counterexample_file(cause)
    assert path and os.path.isfile(path) and f"pecheck.replay({path!r}" in message
    assert "rerun:" in message and "--pecheck-seed 1" in message


def test_raise_on_failure_false_returns_the_failed_result():
    result = pecheck.check_rotary(rope_half_positions, raise_on_failure=False)
    assert not result.passed and result.exit_code == 1 and result.failed >= 1
    assert "FAILED" in result.message()


def test_replay_measures_a_recorded_counterexample_against_the_fixed_function():
    failed = pecheck.check_rotary(rope_half_positions, raise_on_failure=False)
    record = next(r for r in failed.results if r["status"] == "failed")
    path = failed.counterexample_file(record)
    fixed = pecheck.replay(path, rotate=rope_float32)
    assert fixed["exit_code"] == 0 and fixed["property"] == record["property"]
    with pytest.raises(AssertionError, match="still fails"):
        pecheck.replay(path, rotate=rope_half_positions)


def test_seed_and_cases_reach_the_cli():
    result = pecheck.check_rotary(rope, cases=7, seed=12345, properties="rope.norm_preservation")
    assert result.report["seed"] == 12345 and result.report["cases"] == 7
    assert [r["property"] for r in result.results] == ["rope.norm_preservation"]
    assert result.results[0]["cases"] == 7


def test_a_check_that_checks_nothing_is_never_green():
    # An encoder asked for rotary properties only: no cell applies.
    with pytest.raises((pecheck.CheckFailed, pecheck.UsageError)) as caught:
        pecheck.check_encoder(lambda dim, positions, seq_len: np.zeros((len(positions), dim)), properties="rope.*")
    if isinstance(caught.value, pecheck.CheckFailed):
        assert caught.value.result.cells == 0 and "no property was checked" in str(caught.value)


def test_a_glob_that_matches_no_property_is_a_usage_error():
    with pytest.raises(pecheck.UsageError, match=r"--properties .nothing.such\*. matches no property"):
        pecheck.check_rotary(rope, properties="nothing.such*")


def test_a_function_that_raises_on_every_input_shows_its_traceback():
    def broken(positions, x):
        raise KeyError("a bug inside the function")

    with pytest.raises(pecheck.CheckFailed) as caught:
        # framework declared: the function names neither NumPy nor torch (a test run after one that
        # imported torch could not tell which it takes)
        pecheck.check_rotary(broken, dtype="float64", framework="numpy", cases=5)
    message = str(caught.value)
    assert "the function raised" in message and "KeyError: 'a bug inside the function'" in message
    assert caught.value.result.errors >= 1


def test_a_refused_input_is_not_shown_beside_a_counterexample_it_did_not_cause():
    def rotate(positions, x):  # built for one declared width; wrong (float16 angles) there
        if np.asarray(x).shape[1] != 8:
            raise ValueError(f"built for head_dim=8, got {np.asarray(x).shape[1]}")
        return rope_half_positions(positions, x)

    with pytest.raises(pecheck.CheckFailed) as caught:
        pecheck.check_rotary(rotate, dtype="float32", framework="numpy", params={"rotate": {"shapes": {"d": 8}}})
    message = str(caught.value)
    assert "counterexample" in message and "FAILED rope." in message
    assert "the function raised" not in message, message


def test_an_answer_of_the_wrong_shape_is_a_subject_failure():
    def one_row_short(positions, x):
        return np.asarray(x)[:-1] if len(x) > 1 else np.asarray(x)

    with pytest.raises(pecheck.CheckFailed) as caught:
        pecheck.check_rotary(one_row_short, dtype="float64")
    assert caught.value.result.exit_code == 3
    assert "broke the protocol" in str(caught.value)


def test_declarations_are_checked_before_pecheck_starts():
    with pytest.raises(ValueError, match=r"params\.rotate\.rope_theta: a field pecheck does not know"):
        pecheck.check_rotary(rope, params={"rotate": {"rope_theta": 10000}})
    with pytest.raises(ValueError, match="dtype must be one of"):
        pecheck.check_rotary(rope, dtype="float8")
    with pytest.raises(ValueError, match="dynamic_ntk"):
        pecheck.check_rotary(rope, dtype="float64", params={"rotate": {"scaling": {
            "type": "dynamic_ntk", "factor": 2, "original_max_position": 16}}})


def test_a_rotary_built_for_one_width_declares_it_and_is_sent_nothing_else():
    def rope_128(positions, x):
        if np.asarray(x).shape[1] != 128:
            raise ValueError(f"built for head_dim 128, got {np.asarray(x).shape[1]}")
        return rope(positions, x)

    result = pecheck.check_rotary(rope_128, cases=20, params={"rotate": {"shapes": {"d": 128}}})
    assert result.passed
    for r in result.results:
        assert r["discards"] == 0, r
        width = r["coverage"]["axes"]["width"]
        assert width["reached"] == 128
        if "gate" in width:  # the cells the shape ladder gates: the declaration set the gate
            assert width["gate"] == 128 and width["set_by"] == "params.rotate.shapes.d"
    with pytest.raises(ValueError, match=r"params\.rotate\.shapes\.q, a dimension pecheck does not know"):
        pecheck.check_rotary(rope_128, params={"rotate": {"shapes": {"q": 128}}})
    with pytest.raises(ValueError, match=r"params\.rotate\.shapes\.d: min \(8\) exceeds max \(4\)"):
        pecheck.check_rotary(rope_128, params={"rotate": {"shapes": {"d": {"min": 8, "max": 4}}}})


def test_a_dtype_that_cannot_be_inferred_asks_for_one():
    with pytest.raises(ValueError, match="Declare dtype="):
        pecheck.check_rotary(lambda positions, x: [[0.0] * len(row) for row in x], framework="numpy")
    with pytest.raises(ValueError, match="could not infer the dtype"):
        pecheck.check_module(lambda x, positions, padding: x, framework="numpy")  # no width to probe with


def test_a_batched_rotary_passes_and_its_buggy_twin_fails_as_the_plain_one_does():
    def rope_many(requests):
        return [rope(positions, x) for positions, x, _ in requests]

    def rope_half_positions_many(requests):
        return [rope_half_positions(positions, x) for positions, x, _ in requests]

    assert pecheck.check_rotary(rope_many, batched=True, cases=50).passed
    plain = pecheck.check_rotary(rope_half_positions, raise_on_failure=False)
    batched = pecheck.check_rotary(rope_half_positions_many, batched=True, raise_on_failure=False)
    assert not batched.passed
    assert [r["status"] for r in batched.results] == [r["status"] for r in plain.results]
    failed = [r for r in batched.results if r["status"] == "failed"]
    assert [r["counterexample"]["inputs"] for r in failed] == [
        r["counterexample"]["inputs"] for r in plain.results if r["status"] == "failed"]


def _alibi(sign):
    def bias(n, m, head):
        slope = 2.0 ** (-8.0 * (head + 1) / 2)  # two heads: 2^-4, 2^-8
        i, j = np.arange(n)[:, None], np.arange(m)[None, :]
        return sign * slope * np.abs(i - j).astype(np.float64)
    return bias


def test_check_bias_passes_alibi_and_fails_its_sign_flipped_twin():
    params = {"bias": {"scheme": "alibi", "heads": 2}}
    result = pecheck.check_bias(_alibi(-1.0), params=params, cases=30, name="alibi")
    assert result.passed and result.cells >= 3
    with pytest.raises(AssertionError) as caught:
        pecheck.check_bias(_alibi(+1.0), params=params, cases=30, name="alibi_flipped")
    failed = [r for r in caught.value.result.results if r["status"] == "failed"]
    assert {r["property"] for r in failed} >= {"bias.reference_values"}
    assert "counterexample" in failed[0] and "alibi_flipped" in str(caught.value)


def test_check_module_passes_a_module_without_positions():
    def forward(x, positions, padding):
        return np.tanh(x)  # token by token: no order, no positions, pads ignored

    result = pecheck.check_module(forward, dtype="float64", cases=30,
                                  params={"forward": {"causal": False, "positional": "none", "width": 4}})
    assert result.passed and result.cells >= 3
    assert "module.permutation_equivariance" in {r["property"] for r in result.results}


def _gqa(tile):
    """Grouped-query attention on H×n×d queries over G×m×d keys: kv heads repeated in place, or tiled."""
    def attention(q, k, v, mask):
        q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
        reps = q.shape[0] // k.shape[0]
        repeat = (lambda x: np.tile(x, (reps, 1, 1))) if tile else (lambda x: np.repeat(x, reps, axis=0))
        k, v = repeat(k), repeat(v)
        scores = q @ np.transpose(k, (0, 2, 1)) / np.sqrt(q.shape[-1])
        n, m = q.shape[1], k.shape[1]
        if isinstance(mask, str):
            allowed = np.tril(np.ones((n, m), dtype=bool)) if mask == "causal" else np.ones((n, m), dtype=bool)
        else:
            allowed = np.asarray(mask, dtype=bool)
        scores = np.where(allowed[None], scores, -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ v
    return attention


def test_check_attention_with_grouped_heads_passes_repeat_interleave_and_fails_tile():
    params = {"attention": {"num_attention_heads": 4, "num_key_value_heads": 2}}
    result = pecheck.check_attention(_gqa(tile=False), dtype="float64", params=params, cases=20,
                                     properties=["attention.gqa_grouping", "attention.convex_combination"])
    assert result.passed, result.message()
    failed = pecheck.check_attention(_gqa(tile=True), dtype="float64", params=params, cases=20,
                                     properties=["attention.gqa_grouping"], raise_on_failure=False)
    assert not failed.passed
    witness = [r for r in failed.results if r["status"] == "failed"][0]["counterexample"]
    assert "tile" in witness["diagnosis"]


def test_tiled_kv_heads_lead_with_the_grouping_claim_and_group_what_it_breaks():
    """Issue 40: the claim built for the convention leads the message; the structural claims that fail beside it
    (convex_combination first in the catalog) come after it, named as its likely consequences."""
    params = {"attention": {"num_attention_heads": 4, "num_key_value_heads": 2}}
    failed = pecheck.check_attention(_gqa(tile=True), dtype="float64", params=params, cases=30,
                                     raise_on_failure=False)
    consequences = [r for r in failed.results if r.get("consequence_of") == "attention.gqa_grouping"]
    assert consequences, failed.message()  # the tiling breaks more than the grouping claim
    message = failed.message()
    first = next(line for line in message.splitlines() if line.startswith(("FAILED", "ERROR")))
    assert first.startswith("FAILED attention.gqa_grouping"), message
    assert "likely consequences of attention.gqa_grouping" in message
    assert message.index("likely consequences") < message.index("FAILED " + consequences[0]["property"])


def test_attention_declarations_are_checked_before_pecheck_starts():
    with pytest.raises(ValueError, match="kv_heads .2. must divide"):
        pecheck.check_attention(_gqa(tile=False), dtype="float64", params={"attention": {"heads": 3, "kv_heads": 2}})
    with pytest.raises(ValueError, match="sink_logits with one number per head"):
        pecheck.check_attention(_gqa(tile=False), dtype="float64",
                                params={"attention": {"heads": 2, "sinks": True, "sink_logits": [0.5]}})
