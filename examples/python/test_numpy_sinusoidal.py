"""pecheck gates a NumPy sinusoidal encoder from pytest (the dtype, float32, is read from its answers)."""
import pecheck
from sinusoidal_numpy import sinusoidal


def test_sinusoidal_encoding():
    pecheck.check_encoder(sinusoidal, layout="interleaved")
