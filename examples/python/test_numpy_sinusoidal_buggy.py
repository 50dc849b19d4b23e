"""The buggy twin of test_numpy_sinusoidal.py: this test FAILS, with the shrunk counterexample."""
import pecheck
from sinusoidal_numpy import sinusoidal_exponent_i_over_d


def test_sinusoidal_encoding_with_the_exponent_slip():
    pecheck.check_encoder(sinusoidal_exponent_i_over_d, layout="interleaved")
