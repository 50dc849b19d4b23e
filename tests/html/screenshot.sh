#!/usr/bin/env bash
# Renders report.html of the full claims matrix (plus dtype variants, so the
# error-against-position plots show a low-precision encoder) in headless
# Chromium and checks the screenshot is a real picture of the grid and the
# plots: its pixels hold the matrix cells' green and teal and the Gram
# heatmap's reds and blues. Usage: screenshot.sh PECHECK_BIN [OUT_DIR]
# Exit 77 (skipped) when no Chromium, or no Pillow to read its PNG, is
# installed (scripts/install-deps.sh docs installs both).
set -euo pipefail
bin=$1
out=${2:-$(mktemp -d)}
mkdir -p "$out"
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z "$browser" ]]; then
  echo "no chromium: skipped" >&2
  exit 77
fi
if ! /usr/bin/python3 -c 'import PIL' 2>/dev/null; then
  echo "no Pillow (python3-pil) to read the screenshot: skipped" >&2
  exit 77
fi
# The default claims matrix, plus two low-precision variants for the plots.
PECHECK_NO_REGRESSIONS=1 "$bin" run -q --cases 1 --report-dir "$out/default" >/dev/null || true
subjects=()
for s in $(/usr/bin/python3 -c 'import json,sys; print(" ".join(s["spec"] for s in json.load(open(sys.argv[1]))["subjects"]))' "$out/default/report.json") \
         builtin:sinusoidal@float16 builtin:rope@float16; do
  subjects+=(--subject "$s")
done
PECHECK_NO_REGRESSIONS=1 "$bin" run -q "${subjects[@]}" --report-dir "$out/reports" >"$out/run.log" || true
test -s "$out/reports/report.html"
# --no-sandbox: tests may run as root, where Chromium refuses its sandbox.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --user-data-dir="$out/profile" --window-size=1400,9000 --screenshot="$out/report.png" \
  "file://$out/reports/report.html" >"$out/chromium.log" 2>&1
/usr/bin/python3 - "$out/report.png" <<'PY'
import os, sys
from PIL import Image
image = Image.open(sys.argv[1])
assert image.format == "PNG", f"not a PNG: {image.format}"
width, height = image.size
colours = {px[:3]: n for n, px in image.convert("RGB").getcolors(width * height)}
def near(target, tol=6):
    return sum(n for px, n in colours.items() if all(abs(p - t) <= tol for p, t in zip(px, target)))
checks = {
    "matrix cell, holds as expected (#a5d6a7)": near((0xa5, 0xd6, 0xa7)),
    "matrix cell, violated as expected (#80cbc4)": near((0x80, 0xcb, 0xc4)),
    "heatmap, strongest red (#b2182b)": near((0xb2, 0x18, 0x2b)),
    "heatmap, a blue level": sum(n for (r, g, b), n in colours.items() if b > 150 and r < 120 and g < 170 and b - r > 60),
}
print(f"{width}x{height}, {len(colours)} colours, {os.path.getsize(sys.argv[1])} bytes")
for what, n in checks.items():
    print(f"  {what}: {n} px")
assert width == 1400 and height == 9000, (width, height)
assert len(colours) > 200, "too few colours for a page of tables and plots"
for what, n in checks.items():
    assert n > 200, f"missing: {what}"
PY
echo "screenshot: $out/report.png"
