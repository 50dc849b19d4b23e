"""Issue 39: an attention declaring a window and a chunk together (a chunked layer that also slides, or a
window inside Llama 4's chunks) made one of the two claims give up on a correct subject: each claim probed
the row its own mask alone names, which the other mask hides. Each now probes the last row that sees the
changed key under every declared mask."""
import numpy as np
import pytest

import pecheck

CLAIMS = ["attention.window_no_lookback", "attention.chunk_isolation"]


def attention_masked(window, chunk):
    def attention(q, k, v, mask):
        q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
        n, m = q.shape[0], k.shape[0]
        if isinstance(mask, str):
            i, j = np.arange(n)[:, None], np.arange(m)[None, :]
            allowed = (j <= i) & (j > i - window) & (j // chunk == i // chunk) if mask == "causal" else \
                np.ones((n, m), dtype=bool)
        else:
            allowed = np.asarray(mask, dtype=bool)
        scores = np.where(allowed, q @ k.T / np.sqrt(q.shape[-1]), -np.inf)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)) @ v
    return attention


@pytest.mark.parametrize("window, chunk", [(8, 4), (4, 8)])
def test_a_correct_attention_with_a_window_and_a_chunk_passes_both_claims(window, chunk):
    result = pecheck.check_attention(attention_masked(window, chunk), dtype="float64", framework="numpy", cases=30,
                                     properties=CLAIMS, params={"attention": {"window": window, "chunk": chunk}},
                                     raise_on_failure=False)
    assert result.passed, result.output
    assert sorted(r["property"] for r in result.results) == sorted(CLAIMS)


def test_the_window_forgotten_inside_a_chunk_fails_the_window_claim():
    # Declared window 4 inside chunks of 8; the subject masks by chunk alone.
    result = pecheck.check_attention(attention_masked(10 ** 6, 8), dtype="float64", framework="numpy", cases=30,
                                     properties=CLAIMS, params={"attention": {"window": 4, "chunk": 8}},
                                     raise_on_failure=False)
    status = {r["property"]: r["status"] for r in result.results}
    assert status == {"attention.window_no_lookback": "failed", "attention.chunk_isolation": "passed"}, result.output


def test_a_probe_pecheck_discards_is_never_counted_as_the_subjects_refusal():
    # Issue 36: a window longer than a case holds (9,000 > 8,192 rows) discards every probe of
    # window_no_lookback; the console counted them as the subject's refusals ("9 refused (64%)").
    result = pecheck.check_attention(attention_masked(9000, 10 ** 6), dtype="float64", framework="numpy", cases=10,
                                     properties=["attention.window_no_lookback"],
                                     params={"attention": {"window": 9000}}, raise_on_failure=False)
    (cell,) = result.results
    assert cell["status"] != "passed", result.output  # nothing judged is never green
    assert cell["coverage"]["refusals"] == {}, cell["coverage"]
    assert "the harness discards this input" in result.output, result.output
    assert "refused" not in result.output, result.output
