"""C++ source text as the checkers of tests/ read it: one lexer for comments and literals.

check_function_length.py counts braces (comments and literals blanked), check_rapidcheck_glue.py and
check_boundaries.py search code for names and prefixes (comments blanked, literals kept: a spec
prefix lives in a string). Newlines are always kept, so line numbers stay those of the file.
"""


def _literal_end(text, i):
    """The index just past the string or character literal opening at text[i]."""
    quote, j, n = text[i], i + 1, len(text)
    while j < n and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return min(j + 1, n)


def _raw_string_end(text, i):
    """The index just past the raw string literal R"delim( ... )delim" opening at text[i]."""
    k = text.find("(", i + 2)
    if k < 0:
        return len(text)
    delim = ")" + text[i + 2:k] + '"'
    j = text.find(delim, k)
    return len(text) if j < 0 else j + len(delim)


def strip(text, blank_literals=False):
    """`text` with // and /* */ comments removed (newlines kept); with `blank_literals`, every string
    and character literal is also emptied ("" or '', a raw string's newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            j = _raw_string_end(text, i)
            out.append('""' + "\n" * text.count("\n", i, j) if blank_literals else text[i:j])
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(c)  # a digit separator (1'000)
                i += 1
                continue
            j = _literal_end(text, i)
            out.append(c + c if blank_literals else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def code_lines(text):
    """The lines of `text` without their comments (literals kept), numbered as the file's."""
    return strip(text).split("\n")
