#!/usr/bin/env bash
# REPORT.html (docs/DESIGN-EXTENSIONS.md, "The report's files"): a small report's HTML renders in
# headless Chromium with no network; the screenshot is not blank (enough non-white pixels, and
# saturated pixels, which only the figures' inline SVGs draw); the DOM Chromium builds holds one
# <svg> per figure that REPORT.md references, inside its <figure data-file=…>, with the figure's
# caption as its <title>; the file references nothing outside itself (no src=, no URL href); the
# verdicts are badges (✓ ✗ ?), not emoji.
# Skipped (exit 77) when chromium is not installed (Debian package chromium; ./run.sh test
# installs it).
# Usage: bash report_html.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: chromium not installed (apt-get install chromium; ./run.sh test installs it)"
  exit 77
fi

# The maps: 7 claims, ≈ 1.5 s on the quick grid, 11 figures (heat maps and line plots), so that
# "every figure present" is checked on many.
"$FEDVERIFY" report --quick --only 'maps.*' --out "$WORK/r" --threads 2 \
  > /dev/null 2> "$WORK/err.txt" || fail "report: exit $?: $(tail -2 "$WORK/err.txt")"
[ -s "$WORK/r/REPORT.html" ] || { fail "no REPORT.html written"; exit 1; }

# Chromium as root needs --no-sandbox; no network: a network namespace of its own when the
# system allows one (unshare -n, as root), and in any case a resolver that resolves nothing.
NONET=()
unshare -n true 2> /dev/null && NONET=(unshare -n)
chrome() {
  timeout 120 "${NONET[@]}" "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
    --no-default-browser-check --disable-extensions --host-resolver-rules='MAP * ~NOTFOUND' \
    --user-data-dir="$WORK/profile" "$@" "file://$WORK/r/REPORT.html" 2> "$WORK/chrome.err"
}
chrome --window-size=1200,3000 --screenshot="$WORK/shot.png" > /dev/null ||
  fail "chromium --screenshot: exit $?: $(tail -2 "$WORK/chrome.err")"
chrome --dump-dom > "$WORK/dom.html" || fail "chromium --dump-dom: exit $?"

python3 - "$WORK/r/REPORT.md" "$WORK/r/REPORT.html" "$WORK/dom.html" "$WORK/shot.png" <<'PY' ||
import html.parser, re, struct, sys, zlib

md, page, dom, shot = (open(p, "rb").read() for p in sys.argv[1:])
md, page, dom = md.decode(), page.decode(), dom.decode()
failures = []

# Every figure REPORT.md references, with its caption (markdown: ![caption](file)).
figures = re.findall(r"^!\[(.*)\]\(([^)]+\.svg)\)$", md, re.M)
if len(figures) < 5:
    failures.append(f"REPORT.md references {len(figures)} figures (the maps draw 11)")


class Figures(html.parser.HTMLParser):
    """The <figure data-file> elements of a DOM: the number of <svg> in each and their titles."""

    def __init__(self):
        super().__init__()
        self.current, self.svgs, self.titles, self.in_title, self.external = None, {}, {}, False, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "src" in a or (a.get("href") or "#").split(":")[0] in ("http", "https", "file"):
            self.external.append((tag, a))
        if tag == "figure" and "data-file" in a:
            self.current = a["data-file"]
            self.svgs[self.current], self.titles[self.current] = 0, []
        elif tag == "svg" and self.current is not None:
            self.svgs[self.current] += 1
        elif tag == "title" and self.current is not None:
            self.in_title = True

    def handle_endtag(self, tag):
        if tag == "figure":
            self.current = None
        if tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.titles[self.current].append(data)


for name, text in (("REPORT.html", page), ("Chromium's DOM", dom)):
    parsed = Figures()
    parsed.feed(text)
    for caption, file in figures:
        if parsed.svgs.get(file, 0) != 1:
            failures.append(f"{name}: figure {file}: {parsed.svgs.get(file, 0)} <svg>, expected 1")
        elif caption not in "".join(parsed.titles[file]):
            failures.append(f"{name}: figure {file}: its <svg> title is not the caption")
    if parsed.external:
        failures.append(f"{name}: external references {parsed.external[:3]}")
    n = len(figures)
    print(f"ok: {name}: {sum(parsed.svgs.values())} inline <svg> for {n} figure{'s' if n != 1 else ''}")

# Verdicts as badges drawn from characters every font has (html.cpp): an emoji verdict is an empty
# box in a browser without an emoji font (Debian's chromium without fonts-noto-color-emoji).
badges = len(re.findall(r'<span class="verdict (?:holds|fails|open)">', dom))
emoji = sum(dom.count(c) for c in "✅❌❔")
if not badges or emoji:
    failures.append(f"verdicts: {badges} badges, {emoji} emoji left in Chromium's DOM")
else:
    print(f"ok: {badges} verdict badges, no emoji")


def pixels(png):
    """The RGB(A) rows of an 8-bit non-interlaced PNG (what Chromium writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat = 8, b""
    while at < len(png):
        n, kind = struct.unpack(">I4s", png[at:at + 8])
        body = png[at + 8:at + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - bpp] if i >= bpp else 0
            up, ul = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + left) & 255
            elif f == 2: line[i] = (line[i] + up) & 255
            elif f == 3: line[i] = (line[i] + (left + up) // 2) & 255
            elif f == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else ul
                line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


w, h, bpp, rows = pixels(shot)
total = w * h
ink = coloured = 0
for line in rows:
    for i in range(0, len(line), bpp):
        r, g, b = line[i], line[i + 1], line[i + 2]
        if r < 235 or g < 235 or b < 235:
            ink += 1
        if max(r, g, b) - min(r, g, b) > 60:  # saturated: a series or heat-map colour
            coloured += 1
print(f"ok: screenshot {w}×{h}: {100 * ink / total:.1f} % non-white, "
      f"{100 * coloured / total:.2f} % saturated")
# Text and tables alone give a few per cent of ink; a blank or unstyled failure page gives ~0.
if ink < 0.02 * total:
    failures.append(f"screenshot nearly blank: {ink} of {total} pixels non-white")
if coloured < 0.001 * total:
    failures.append(f"screenshot has no coloured pixels ({coloured}): figures not drawn")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
PY
  fail "REPORT.html checks"

finish "REPORT.html"
