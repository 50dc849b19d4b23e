"""pecheck_subject: serve plain Python functions to pecheck as a subject process.

The implementation lives in the Python package ``pecheck`` (python/pecheck/
_serve.py in the checkout; one source of truth). This file keeps the
historical import working for scripts that put adapters/python on sys.path
(``from pecheck_subject import serve``): it makes ``pecheck_subject`` the
very module object ``pecheck._serve``, private helpers included.

Found in this order: the package in this checkout (../../python), then an
installed ``pecheck`` (pip install ./python, or the Debian package).
"""
import os
import sys

_checkout = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
_checkout = os.path.normpath(_checkout)
if os.path.isfile(os.path.join(_checkout, "pecheck", "_serve.py")) and _checkout not in sys.path:
    sys.path.insert(0, _checkout)

from pecheck import _serve  # noqa: E402

sys.modules[__name__] = _serve
