#!/bin/bash
# The report in a real browser: renders `orrery demo`'s report.html with headless Chromium at
# 1280 px and checks that the page logs nothing to the console, has no load errors, does not
# overflow horizontally and cuts off no table or chart; saves screenshots (PNG) for the docs.
#
#   browser_test.sh ORRERY_BINARY WORK_DIR [SCREENSHOT_DIR]
#
# First the checker proves it can see failures, on a page with a console error, a broken image
# and a table wider than the window (the 1400 px summary table that was cut off at 1280 px).
# Skips (exit code 77, CTest SKIP_RETURN_CODE) only when Chromium is absent.
set -u
orrery=$1
work=$2
shots=${3:-$work/screenshots}
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "SKIP: $chromium not found (Debian package chromium; scripts/install-deps.sh installs it)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work" "$shots"

fail() {
  echo "FAIL: $*"
  exit 1
}

# chromium_run PROFILE_NAME ARGS... : a fresh profile per run, no network, no background work.
chromium_run() {
  local profile=$work/profile-$1
  shift
  rm -rf "$profile"
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-extensions --user-data-dir="$profile" "$@"
}

# The probe goes first in <head>: it records console.error/warn calls and failed loads, and once
# the page has loaded writes what it measured at the end of <body> for --dump-dom to read.
probe='<script>(function(){var seen=[];["error","warn"].forEach(function(level){var f=console[level];console[level]=function(){seen.push(level+": "+Array.prototype.join.call(arguments," "));f.apply(console,arguments);};});window.addEventListener("error",function(e){seen.push("load error: "+(e.message||(e.target&&(e.target.src||e.target.href))||"?"));},true);window.addEventListener("load",function(){var d=document.documentElement,out={scrollWidth:d.scrollWidth,clientWidth:d.clientWidth,innerWidth:window.innerWidth,cut:[],console:seen};document.querySelectorAll(".table-wrap").forEach(function(w,i){if(w.scrollWidth>w.clientWidth+1)out.cut.push("table "+(i+1)+": "+w.scrollWidth+" px in "+w.clientWidth);});document.querySelectorAll("svg").forEach(function(s,i){var r=s.getBoundingClientRect();if(r.right>window.innerWidth+0.5)out.cut.push("chart "+(i+1)+" ends at "+Math.round(r.right)+" px");});var p=document.createElement("pre");p.id="orrery-probe";p.textContent=JSON.stringify(out);document.body.appendChild(p);});})();</script>'

# probe_page IN OUT: a copy of IN with the probe (the report itself has no scripts).
probe_page() {
  python3 - "$1" "$2" "$probe" <<'PY'
import sys
src, dst, probe = sys.argv[1], sys.argv[2], sys.argv[3]
html = open(src, encoding="utf-8").read()
assert "<head>" in html, src + ": no <head>"
open(dst, "w", encoding="utf-8").write(html.replace("<head>", "<head>\n" + probe, 1))
PY
}

# measure NAME PAGE: prints the probe's JSON and keeps Chromium's log in $work/NAME.log.
measure() {
  chromium_run "$1" --window-size=1280,900 --enable-logging=stderr --v=0 --dump-dom \
    "file://$2" 2>"$work/$1.log" | python3 -c '
import html, re, sys
m = re.search(r"<pre id=\"orrery-probe\">(.*?)</pre>", sys.stdin.read(), re.S)
print(html.unescape(m.group(1)) if m else "")'
}

# check NAME JSON: the verdict on one page; prints the problems, returns 1 when there are some.
check() {
  python3 - "$2" "$work/$1.log" <<'PY'
import json, re, sys
probe, log = sys.argv[1], open(sys.argv[2], errors="replace").read()
if not probe:
    print("the probe did not run (no load event?)"); sys.exit(1)
p = json.loads(probe)
problems = []
if p["innerWidth"] != 1280:
    problems.append("window is %d px wide, not 1280" % p["innerWidth"])
if p["scrollWidth"] > p["clientWidth"]:
    problems.append("horizontal overflow: the page is %d px wide in a %d px window (%d px without the scroll bar)" % (p["scrollWidth"], p["innerWidth"], p["clientWidth"]))
problems += ["cut off: " + c for c in p["cut"]]
problems += ["console " + c for c in p["console"]]
# Whatever reached Chromium's console log (e.g. CSP or parse messages the probe cannot see).
problems += ["console log: " + l.strip() for l in log.splitlines() if ":CONSOLE" in l]
for q in problems: print("  " + q)
sys.exit(1 if problems else 0)
PY
}

# 1. The checker sees a console error, a failed load and a cut-off wide table.
cat >"$work/broken.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"/><style>body{max-width:1540px}.table-wrap{overflow-x:auto}</style></head>
<body><script>console.error("deliberate");</script><img src="missing.png" alt=""/>
<div class="table-wrap"><table><tr><td style="min-width:1400px">a summary table 1400 px wide</td></tr></table></div>
<div style="width:1400px">wider than the window</div></body></html>
HTML
probe_page "$work/broken.html" "$work/broken-probe.html"
out=$(check broken "$(measure broken "$work/broken-probe.html")")
[ $? -eq 1 ] || fail "the checker found nothing wrong with a broken page"
for expect in "console error: deliberate" "load error:" "cut off: table 1" "horizontal overflow"; do
  grep -qF "$expect" <<<"$out" || fail "the checker missed \"$expect\" on the broken page: $out"
done
echo "checker sees failures:"
echo "$out"

# 2. The demo report.
"$orrery" demo --out "$work/demo" --no-wall-clock --quiet --jobs 2 >/dev/null ||
  fail "orrery demo failed"
probe_page "$work/demo/report.html" "$work/report-probe.html"
json=$(measure report "$work/report-probe.html")
echo "report.html at 1280 px: $json"
check report "$json" || fail "report.html in Chromium at 1280 px (above)"

# 3. Screenshots for docs/report.md: the top (verdict, setup), and one section each, cut out
# into a page of its own (the report's head and styles, that section only).
python3 - "$work/demo/report.html" "$work" <<'PY' || fail "cannot cut the report into sections"
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
head = html[: html.index("<body>") + len("<body>")]
for name, heading in [("jobs", "Jobs"), ("timeseries", "Cluster over time")]:
    m = re.search(r'<section id="s\d+">\n<h2>' + re.escape(heading) + r'</h2>.*?</section>', html, re.S)
    assert m, heading
    open(sys.argv[2] + "/section-" + name + ".html", "w", encoding="utf-8").write(
        head + m.group(0) + "</body></html>\n")
PY
for shot in verdict:demo/report.html jobs:section-jobs.html \
  timeseries:section-timeseries.html; do
  name=${shot%%:*}
  chromium_run "shot-$name" --window-size=1280,1000 --hide-scrollbars \
    --screenshot="$shots/report-$name.png" "file://$work/${shot#*:}" >/dev/null 2>&1
  [ -s "$shots/report-$name.png" ] || fail "no screenshot $shots/report-$name.png"
  head -c 8 "$shots/report-$name.png" | od -An -tx1 | grep -q "89 50 4e 47" ||
    fail "$shots/report-$name.png is not a PNG"
done
echo "PASS: no console messages, no overflow, nothing cut off at 1280 px; screenshots in $shots"
