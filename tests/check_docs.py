#!/usr/bin/env python3
"""The documentation a newcomer reads stays true to the tree.

- README.md is at most 250 lines and links every page docs/*.md;
- every relative link in README.md and docs/*.md names a file or folder that
  exists, and a link `page.md#anchor` names a heading of that page with that
  GitHub-style anchor (a bare `#anchor` a heading of the page itself);
- every path docs/architecture.md names in backquotes under src/, include/,
  properties/, tests/, bench/, python/, adapters/, scripts/, reports/, docs/,
  examples/, fuzz/ or cmake/ exists (a glob such as `properties/rope_*.cpp`
  matches at least one file), so its "files to touch" lists stay true as
  files move.

Usage: check_docs.py SOURCE_DIR          (exit 0: consistent; 1: each problem printed)
"""
import pathlib
import re
import sys

MAX_README_LINES = 250
ROOTS = ("src/", "include/", "properties/", "tests/", "bench/", "python/", "adapters/", "scripts/", "reports/",
         "docs/", "examples/", "fuzz/", "cmake/")
# Fewer paths than this on the architecture page means its lists were lost, not kept true.
MIN_ARCHITECTURE_PATHS = 40

FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?:[^\]\n]|\n(?!\n))*?\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)


def without_code(markdown: str) -> str:
    """The text outside fenced blocks and inline code, where a link is a link."""
    return INLINE_CODE.sub("", FENCE.sub("", markdown))


def anchors(markdown: str) -> set:
    """The anchors GitHub gives the headings of a Markdown text (duplicates get -1, -2, …)."""
    out, seen = set(), {}
    for m in HEADING.finditer(FENCE.sub("", markdown)):
        text = m.group(2)
        text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its text
        text = re.sub(r"<[^>]+>", "", text).lower()                 # inline HTML goes
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")      # punctuation goes, spaces become hyphens
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def check_links(root: pathlib.Path, doc: pathlib.Path, problems: list) -> None:
    text = doc.read_text(encoding="utf-8")
    where = doc.relative_to(root)
    for target in LINK.findall(without_code(text)):
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target):
            continue  # https:, mailto:: not this check's business
        path, _, anchor = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc.resolve()
        if not resolved.exists():
            problems.append(f"{where} links {target}: {path} does not exist")
            continue
        try:
            resolved.relative_to(root)
        except ValueError:
            problems.append(f"{where} links {target}: outside the repository")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved.read_text(encoding="utf-8")):
            problems.append(f"{where} links {target}: {resolved.relative_to(root)} has no heading #{anchor}")


def architecture_paths(text: str) -> list:
    """The repository paths named in backquotes (inside fenced blocks too)."""
    out = []
    for code in re.findall(r"`([^`\n]+)`", text):
        for word in code.split():
            word = word.strip("'\"()[],;:")
            if word.startswith(ROOTS) and "<" not in word and "{" not in word:
                out.append(word)
    return out


def check(root: pathlib.Path) -> list:
    problems = []
    readme = root / "README.md"
    docs = sorted((root / "docs").glob("*.md"))
    text = readme.read_text(encoding="utf-8")
    lines = len(text.splitlines())
    if lines > MAX_README_LINES:
        problems.append(f"README.md has {lines} lines; at most {MAX_README_LINES}")
    linked = {(root / t.partition("#")[0]).resolve() for t in LINK.findall(without_code(text))}
    for page in docs:
        if page.resolve() not in linked:
            problems.append(f"README.md does not link docs/{page.name}")

    for doc in [readme, *docs]:
        check_links(root, doc, problems)

    arch = root / "docs" / "architecture.md"
    if not arch.exists():
        problems.append("docs/architecture.md is missing")
        return problems
    paths = architecture_paths(arch.read_text(encoding="utf-8"))
    for path in paths:
        if any(c in path for c in "*?["):
            if not any(root.glob(path)):
                problems.append(f"docs/architecture.md names {path}, which matches no file")
        elif not (root / path).exists():
            problems.append(f"docs/architecture.md names {path}, which does not exist")
    if len(set(paths)) < MIN_ARCHITECTURE_PATHS:
        problems.append(f"docs/architecture.md names only {len(set(paths))} paths (at least "
                        f"{MIN_ARCHITECTURE_PATHS}): are its lists of files to touch gone?")
    return problems


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    problems = list(dict.fromkeys(check(root)))  # a link made twice is one problem
    for p in problems:
        print(f"check_docs: {p}", file=sys.stderr)
    if not problems:
        pages = len(list((root / "docs").glob("*.md")))
        print(f"check_docs: README.md ({len((root / 'README.md').read_text(encoding='utf-8').splitlines())} lines) "
              f"links all {pages} docs/ pages; every link resolves; every path docs/architecture.md names exists")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
