#!/usr/bin/env bash
# Checks that docs/SUBJECT-PROTOCOL.md and docs/CLAIMS.md carry the maintainers' spec verbatim
# after their leading comment (the project's copies may add sections after it). The spec lives
# beside the checkout in ../shared/spec (or in $PECHECK_SPEC_DIR); where it is absent, as on a
# CI clone, there is nothing to compare and the check says so.
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${PECHECK_SPEC_DIR:-../shared/spec}
if [[ ! -d $spec ]]; then
  echo "check-spec-copies: no spec at $spec; nothing to compare"
  exit 0
fi
exec python3 - "$spec" <<'PY'
import pathlib, sys
spec = pathlib.Path(sys.argv[1])
status = 0
for name in ("SUBJECT-PROTOCOL.md", "CLAIMS.md"):
    copy = pathlib.Path("docs", name).read_text(encoding="utf-8")
    if copy.startswith("<!--"):
        copy = copy[copy.index("-->") + 3:].lstrip("\n")
    if not copy.startswith((spec / name).read_text(encoding="utf-8")):
        print(f"check-spec-copies: docs/{name} does not begin with {spec / name} verbatim", file=sys.stderr)
        status = 1
    else:
        print(f"check-spec-copies: docs/{name} carries {spec / name}")
sys.exit(status)
PY
