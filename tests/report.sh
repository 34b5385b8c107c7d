#!/bin/sh
# stagebench report on a tree of study outputs made here: a real CPU run's records (no GPU), and
# copies doctored as two GPUs' (a folder each, and a folder holding both), a table .md with a
# Goals list (met, missed, not measured), figures (a fixed 1x1 PNG), a README that is no table,
# Google Benchmark's JSON with a NaN and a folder of figures without records. One page per GPU,
# .md and .html: each names its GPU and build, holds its tables' rows and the goals' summary,
# links its figures (markdown) or embeds them (HTML, escaped text, tags balanced); a table whose
# Device line names one GPU of a shared folder is on that GPU's page alone; the folder without
# records is left out and said to be; without --out the pages go to a fresh
# results/runs/report-<UTC time>/ of the working directory and the DIRs stay byte for byte as
# they were; with --out DIR a second run reads the first's pages as nothing. Errors (no DIR, bad options, a DIR without records, a records
# file that is not JSON, a .png that is no PNG) are one line, exit 2, nothing written. A folder
# and a figure whose names hold ] > ) & ` % and spaces are linked and embedded all the same.
#   usage: sh tests/report.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"
has() { # file text
    grep -qF -- "$2" "$1" || fail "$(basename "$1") lacks '$2'"
}
lacks() { # file text
    ! grep -qF -- "$2" "$1" || fail "$(basename "$1") has '$2'"
}
no_pages() { # dir: nothing written there
    [ -z "$(find "$1" -name 'report-*')" ] || fail "a refused report wrote $(find "$1" -name 'report-*')"
}

expect 0 "--help" "$sb" report --help
grep -q '^usage: stagebench report DIR' "$tmp/out" || fail "--help prints the usage"

# usage errors
expect 2 "no DIR" "$sb" report
one_line_naming "no DIR"
expect 2 "unknown option" "$sb" report "$tmp" --colour red
one_line_naming "unknown option '--colour'"
expect 2 "--out without a folder" "$sb" report "$tmp" --out
one_line_naming "out needs the folder"
expect 2 "no such DIR" "$sb" report "$tmp/nosuch"
one_line_naming "$tmp/nosuch: no such folder"

# a real run's records: no GPU here, or whichever GPU this is (its page is not checked)
expect 0 "a CPU run" "$sb" run motility --variant cpu-reference --param outer=8 --param inner=4 \
    --param steps=1 --min-samples 1 --min-time 0 --timeout 0.001 --metrics none --warmup 0 \
    --no-activity --out "$tmp/real.json"
runs="$tmp/runs"
mkdir -p "$runs/alpha" "$runs/beta" "$runs/both" "$runs/orphan" "$runs/cpu"
cp "$tmp/real.json" "$runs/cpu/cpu.json"
python3 - "$tmp/real.json" "$runs" <<'EOF' || fail "doctoring the records"
import copy, json, sys
real, runs = json.load(open(sys.argv[1])), sys.argv[2]
def gpu(name, ordinal):
    return {"ordinal": ordinal, "name": name, "uuid": "GPU-%d" % ordinal,
            "compute_capability": "9.0", "sm_count": 132, "memory_bytes": 80 * 2**30,
            "single_to_double_perf_ratio": 2, "peak_dram_bytes_per_second": 3.0e12,
            "peak_dram_bytes_per_second_theoretical": 3.35e12}
def save(path, name, gpus, peak, date):
    doc = copy.deepcopy(real)
    sb = doc["context"]["stagebench"]
    doc["context"]["date"] = date
    sb["command"] = "study bench/studies/tiny.study --out " + runs
    sb["git_commit"] = "0123456789abcdef0123456789abcdef01234567+dirty"
    sb["cuda"] = {"driver_version": 13000, "runtime_version": 12080}
    sb["build"]["cuda_compiler"] = "NVIDIA 13.0.88"  # whatever toolkit built this (legacy build)
    sb["devices"] = [gpu(name, i) for i in range(gpus)]
    sb["devices"][0]["peak_dram_bytes_per_second"] = peak
    json.dump(doc, open(path, "w"))
save(runs + "/alpha/alpha.json", "Test GPU Alpha", 1, 3.0e12, "2025-01-02T03:04:05+00:00")
save(runs + "/beta/beta.json", "NVIDIA Test Beta 80GB", 1, 2.0e12, "2025-01-03T03:04:05+00:00")
save(runs + "/both/alpha4.json", "Test GPU Alpha", 4, 3.1e12, "2025-01-04T03:04:05+00:00")
save(runs + "/both/beta.json", "NVIDIA Test Beta 80GB", 1, 2.0e12, "2025-01-03T03:04:05+00:00")
# not records: a calibration, and Google Benchmark's own output (NaN is not JSON)
json.dump({"stagebench_calibration": 1, "benchmarks": []}, open(runs + "/alpha/calibration.json", "w"))
open(runs + "/alpha/gbench.json", "w").write('{"context": {}, "benchmarks": [{"x": NaN}]}\n')
EOF
cat > "$runs/alpha/table1.md" <<'EOF'
## table1: a tiny table, ms per outer step (paper table 1)

Device: Test GPU Alpha (compute capability 9.0, 132 SMs, FP32:FP64 throughput 2:1, 80.00 GiB, measured DRAM peak 3000 GB/s).
Records: alpha.json (2 records).

| | 8²×4² | 16²×8² |
|---|---|---|
| original | 8200 | 16400 |
| optimized | 20.0 (410×) | 80.0 (205×) |
| *paper* | *1000 (7.16)* | *2000 (8.76)* |
| a <b> & c \| d | — | X (needs 52.10 GiB, 41.00 GiB free) |

Values: the median time of a run / steps, in ms. Ratios (r×), at the same column: original / the row, a speed-up. *paper*: the published values.

- **optimized** (at 16²×8²): 205×: `micro_bounded` has 64 registers.

Goals:

- optimized at least 300× the original at 8²×4²: **met** (measured 410× at 8²×4², goal ≥ 300×)
- optimized at least 300× the original at 16²×8²: **missed** (measured 205× at 16²×8², goal ≥ 300×)
- multi-gpu at least 3.6× faster on 4 GPUs: not measured (no record)
EOF
sed -e 's/table1: a tiny table/table2: the other table/' -e 's/Test GPU Alpha/NVIDIA Test Beta 80GB/' \
    -e 's/| optimized | 20.0 (410×)/| beta-row | 30.0 (273×)/' -e '/^Goals:/,$d' \
    "$runs/alpha/table1.md" > "$runs/beta/table2.md"
sed -e 's/table1: a tiny table/table3: Alpha alone/' -e '/^Goals:/,$d' \
    "$runs/alpha/table1.md" > "$runs/both/table3.md"
echo "# Notes: not a table" > "$runs/alpha/README.md"
png=iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==
for f in alpha/fig1.png beta/fig2.png both/shared.png orphan/lost.png; do
    printf '%s' "$png" | base64 -d > "$runs/$f" || fail "decoding the PNG"
done

# errors: one line naming the input and the fix, exit 2, nothing written
mkdir -p "$tmp/empty" "$tmp/notrecords" "$tmp/broken/a" "$tmp/fakepng"
cp "$runs/alpha/calibration.json" "$tmp/notrecords/"
expect 2 "a DIR without records" "$sb" report "$tmp/empty"
one_line_naming "$tmp/empty: no records in it or its folders"
expect 2 "a DIR of JSON that is not records" "$sb" report "$tmp/notrecords"
one_line_naming "$tmp/notrecords: no records"
expect 2 "a DIR without records after one with" "$sb" report "$runs" "$tmp/empty" --out "$tmp/pages"
one_line_naming "$tmp/empty: no records"
[ ! -e "$tmp/pages" ] || fail "a refused report made its --out folder"
cp "$runs/alpha/alpha.json" "$tmp/broken/"
head -c 300 "$runs/alpha/alpha.json" > "$tmp/broken/a/cut.json"
expect 2 "a records file cut short" "$sb" report "$tmp/broken"
one_line_naming "$tmp/broken/a/cut.json:1: not valid JSON"
grep -q "fix the file or move it out of the folder" "$tmp/err" || fail "the fix: $(cat "$tmp/err")"
cp "$runs/alpha/alpha.json" "$tmp/fakepng/"
echo "not a picture" > "$tmp/fakepng/fig.png"
expect 2 "a .png that is no PNG" "$sb" report "$tmp/fakepng"
one_line_naming "$tmp/fakepng/fig.png: not a PNG image"
no_pages "$tmp"

# without --out: a fresh results/runs/report-<UTC time>/ (of the working directory), the DIRs
# byte for byte as they were
mkdir -p "$tmp/cwd"
cp -a "$runs" "$tmp/runs-before"
n=$((n + 1))
(sb_path=$(cd "$(dirname "$sb")" && pwd)/$(basename "$sb") && cd "$tmp/cwd" && "$sb_path" report "$runs/") >"$tmp/out" 2>"$tmp/err" || fail "report without --out: exit $?"
diff -r "$tmp/runs-before" "$runs" >/dev/null || fail "report without --out changed its DIR"
no_pages "$runs"
set -- "$tmp"/cwd/results/runs/report-*/report-test-gpu-alpha.md
[ -s "$1" ] && [ -s "${1%.md}.html" ] || fail "report without --out: no results/runs/report-<UTC time>/report-test-gpu-alpha.md and .html"
grep -q "^report: results/runs/report-[0-9]*-[0-9]*/report-test-gpu-alpha.md and .html: Test GPU Alpha" "$tmp/out" ||
    fail "report says where it wrote: $(cat "$tmp/out")"
has "$1" "![alpha/fig1.png](../../../../runs/alpha/fig1.png)"

# the pages, into the first DIR when --out names it (how the committed pages are made again);
# a folder of CSV views alone is said to be passed over (they name no GPU)
mkdir -p "$runs/csv-only" && printf 'name,median\nw/a,1\n' > "$runs/csv-only/fig4.csv"
expect 0 "report" "$sb" report "$runs/" --out "$runs"
alpha="$runs/report-test-gpu-alpha" beta="$runs/report-test-beta-80gb"
for page in "$alpha" "$beta"; do
    [ -s "$page.md" ] && [ -s "$page.html" ] || fail "$page.md and .html"
done
ls "$runs"/report-*.md | grep -qv -e alpha -e beta || fail "the CPU run's page"
[ "$(ls "$runs"/report-*.md | wc -l)" = 3 ] || fail "three pages: $(ls "$runs")"
[ -z "$(find "$runs" -name '*.tmp.*')" ] || fail "temporary files left"
grep -q "^report: $alpha.md and .html: Test GPU Alpha, 2 folders, 2 tables, 2 figures; goals 1 met, 1 missed, 1 not measured$" "$tmp/out" ||
    fail "alpha's line on stdout"
grep -q "^report: $beta.md and .html: NVIDIA Test Beta 80GB, 2 folders, 1 table, 2 figures; goals 0 met, 0 missed, 0 not measured$" "$tmp/out" ||
    fail "beta's line on stdout"
grep -q "^passed over: $runs/alpha/gbench.json: not valid JSON" "$tmp/out" || fail "gbench.json passed over"
grep -q "^left out: $runs/orphan (1 figure): no records beside them$" "$tmp/out" || fail "orphan left out"
grep -q "^passed over: $runs/csv-only: CSV records only, which name no GPU" "$tmp/out" ||
    fail "a folder of CSV views alone passed over, and said"

md="$alpha.md"
has "$md" "# stagebench report: Test GPU Alpha"
has "$md" "**Device**: Test GPU Alpha, compute capability 9.0, 132 SMs, 80.00 GiB, FP32:FP64 throughput 2:1, measured DRAM peak 3000 to 3100 GB/s (theoretical 3350 GB/s); machines of 1 and 4 GPUs."
has "$md" "**Records**: 2 files in 2 folders of \`$runs\`, dated 2025-01-02 to 2025-01-04."
has "$md" "| \`0123456789ab+dirty\` | NVIDIA 13.0.88 | 13.0 | 12.8 | 2 | 2025-01-02 to 2025-01-04 | alpha, both |"
has "$md" "**1 met, 1 missed, 1 not measured** (3 goals in 1 table)."
grep -A 4 '^| goal |' "$md" | sed -n 3,5p | cut -d'|' -f3 > "$tmp/order"
[ "$(tr -d ' \n' < "$tmp/order")" = "**missed**notmeasured**met**" ] || fail "goals, missed first: $(cat "$tmp/order")"
has "$md" "| optimized at least 300× the original at 16²×8² | **missed** | measured 205× at 16²×8², goal ≥ 300× | alpha/table1 |"
has "$md" "| multi-gpu at least 3.6× faster on 4 GPUs | not measured | no record | alpha/table1 |"
has "$md" "## alpha"
has "$md" "\`$runs/alpha\`: 1 records file (alpha.json); made by stagebench study \`bench/studies/tiny.study\`."
has "$md" "### table1: a tiny table, ms per outer step (paper table 1)"
has "$md" "| optimized | 20.0 (410×) | 80.0 (205×) |"
has "$md" "| a <b> & c \| d | — | X (needs 52.10 GiB, 41.00 GiB free) |"
has "$md" "![alpha/fig1.png](alpha/fig1.png)"
has "$md" "### table3: Alpha alone"
has "$md" "![both/shared.png](both/shared.png)"
has "$md" "the folder holds records of 2 GPUs"
has "$md" "## Left out"
has "$md" "\`$runs/orphan\` (1 figure)"
lacks "$md" "lost.png"
lacks "$md" "not a table"
lacks "$md" "table2: the other table"
md="$beta.md"
has "$md" "# stagebench report: NVIDIA Test Beta 80GB"
has "$md" "measured DRAM peak 2000 GB/s (theoretical 3350 GB/s); machines of 1 GPU."
has "$md" "None of the tables on this page states goals."
has "$md" "| beta-row | 30.0 (273×) | 80.0 (205×) |"
has "$md" "![beta/fig2.png](beta/fig2.png)"
has "$md" "![both/shared.png](both/shared.png)"
lacks "$md" "table3: Alpha alone"
lacks "$md" "table1: a tiny table"
if [ -e "$runs/report-no-gpu.md" ]; then # this machine has no GPU: the real run's page
    has "$runs/report-no-gpu.md" "**Device**: no GPU in these records (CPU stages only)."
    has "$runs/report-no-gpu.md" "Folders of these records without tables or figures (records files): \`cpu\` (1)."
fi

html="$alpha.html"
has "$html" "<title>stagebench report: Test GPU Alpha</title>"
has "$html" "<h3>table1: a tiny table, ms per outer step (paper table 1)</h3>"
has "$html" "<tr><td>optimized</td><td>20.0 (410×)</td><td>80.0 (205×)</td></tr>"
has "$html" "<tr><td><em>paper</em></td><td><em>1000 (7.16)</em></td><td><em>2000 (8.76)</em></td></tr>"
has "$html" "<tr><td>a &lt;b&gt; &amp; c | d</td><td>—</td>"
has "$html" "<td><strong>missed</strong></td><td>measured 205× at 16²×8², goal ≥ 300×</td>"
has "$html" "<li><strong>optimized</strong> (at 16²×8²): 205×: <code>micro_bounded</code> has 64 registers.</li>"
has "$html" "<img alt=\"alpha/fig1.png\" src=\"data:image/png;base64,$png\">"
has "$html" "<img alt=\"both/shared.png\" src=\"data:image/png;base64,$png\">"
lacks "$html" "]("
has "$beta.html" "<img alt=\"beta/fig2.png\" src=\"data:image/png;base64,$png\">"
for page in "$alpha" "$beta"; do
    python3 - "$page.html" <<'EOF' || fail "$page.html: tags not balanced"
import sys
from html.parser import HTMLParser
class Check(HTMLParser):
    def __init__(self):
        super().__init__()
        self.open = []
    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "img"):
            self.open.append(tag)
    def handle_endtag(self, tag):
        if not self.open or self.open.pop() != tag:
            sys.exit("</%s> at %s closes nothing open" % (tag, self.getpos()))
check = Check()
check.feed(open(sys.argv[1]).read())
sys.exit("left open: %s" % check.open if check.open else 0)
EOF
done

# a second run reads the first's pages as nothing of its own: the same pages
cp "$alpha.md" "$tmp/alpha-first.md"
cp "$beta.html" "$tmp/beta-first.html"
expect 0 "report again" "$sb" report "$runs" --out "$runs"
cmp -s "$alpha.md" "$tmp/alpha-first.md" && cmp -s "$beta.html" "$tmp/beta-first.html" ||
    fail "a second run changed the pages"

# several DIRs, the pages elsewhere: folders named with their DIR, figures linked from there
expect 0 "two DIRs, --out" "$sb" report "$runs/alpha" "$runs/beta" --out "$tmp/pages"
has "$tmp/pages/report-test-gpu-alpha.md" "## alpha"
has "$tmp/pages/report-test-gpu-alpha.md" "![alpha/fig1.png](../runs/alpha/fig1.png)"
has "$tmp/pages/report-test-beta-80gb.md" "![beta/fig2.png](../runs/beta/fig2.png)"
has "$tmp/pages/report-test-beta-80gb.md" "**Records**: 1 file in 1 folder of \`$runs/beta\`, dated 2025-01-03."

# a folder and a figure named with what ends a markdown image or its alt, or reads as an entity or
# a code span (]  >  )  &amp;  `  a space  %): the link's path percent-encoded, its alt
# backslash-escaped, and the HTML page embeds the figure with the name as its alt (before, the
# link ended early: the page showed it as text, or linked no file)
odd="$tmp/odd/o]>) &amp; \`d"
mkdir -p "$odd"
cp "$runs/alpha/alpha.json" "$odd/"
printf '%s' "$png" | base64 -d > "$odd/fig [1]>) 100%.png" || fail "decoding the PNG"
expect 0 "figures of odd names" "$sb" report "$tmp/odd" --out "$tmp/oddpages"
has "$tmp/oddpages/report-test-gpu-alpha.md" '![o\]\>) \&amp; \`d/fig \[1\]\>) 100%.png](../odd/o%5D%3E%29%20%26amp;%20%60d/fig%20%5B1%5D%3E%29%20100%25.png)'
has "$tmp/oddpages/report-test-gpu-alpha.html" "<img alt=\"o]&gt;) &amp;amp; \`d/fig [1]&gt;) 100%.png\" src=\"data:image/png;base64,$png\">"
lacks "$tmp/oddpages/report-test-gpu-alpha.html" "]("
echo "report: $n checks passed"
