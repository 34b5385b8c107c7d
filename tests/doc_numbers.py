#!/usr/bin/env python3
"""Checks the numbers the docs quote from baselines against the committed records.

Run from the repository root (ctest does): python3 tests/doc_numbers.py [FILE.md ...]
(--share: the share page by page; --list KIND FILE.md ...: where the numbers of a kind stand,
unchecked for instance: the ones to link to a record, to a paper or to the code next)
Without arguments it reads README.md and docs/*.md. Exit status: 0 when every checked cell and
link is right, 1 listing every mismatch as file:line, 2 on a usage error. Standard library only.

The convention (also at the top of docs/results.md)
---------------------------------------------------

A markdown table preceded by an HTML comment (blank lines between them allowed) is checked:

  <!-- records: PATH [PATH ...] [all=SPEC] [row=SPEC ...] [col=SPEC ...] -->

  PATHs are records files, relative to the repository root: stagebench JSON records
  (results/baselines/**/*.json) or their CSV views (*.csv). Every PATH must exist. A file kept
  in an experiment's committed archive is ARCHIVE.tar.xz#MEMBER (MEMBER: its name in the
  archive, or the end of it after a /), here, in fact links, in .txt citations and in links.

  Each data cell of the table is matched to exactly one record and its number recomputed from
  it. The cell's constraints are, merged in this order (a later key wins):
    all=SPEC          for every cell;
    the row's:        the n-th row=SPEC for the n-th data row, or, without row= options,
                      variant:NAME, NAME being the first cell's first word (backquotes and *
                      dropped, anything from a space or "(" on ignored: "`multi-gpu` (1 GPU)");
    the column's:     the n-th col=SPEC for the n-th column after the first (col=- : the
                      column is not checked). Without col= options no column is checked.
  SPEC is comma-separated KEY:VALUE items (or "-": not checked; KEY:- drops a KEY that all=
  set, e.g. per:- in a noise column):
    variant:NAME      the record's variant
    file:PATH         the record comes from this one of the PATHs (or one ending in /PATH)
    value:Q           what the cell shows (default time): time (stagebench.time.median, s),
                      steady (steady.seconds, s), wall (wall.median, s), items_per_second
                      (derived.items_per_second), memory (memory.peak_tracked_bytes, bytes), or
                      a dotted path under the record's "stagebench" object (a "_" in a key also
                      matches a space: phases.copy_back; a key may hold dots:
                      counters.metrics.dram__bytes_read.sum; a list's element by its index:
                      activity.run.kernel_table.0.seconds); in a CSV record, a column name
    per:PARAM         divided by the record's parameter PARAM (per:steps: per step), or by a
                      quantity of it, a dotted path as value: takes (a kernel's launches:
                      per:activity.run.kernel_table.0.launches)
    vs:P=V[+P=V]      a speed-up: the same quantity of the record found with P=V instead,
                      divided by this record's (vs:gpus=1: against the same stage on one GPU;
                      vs:variant=cpu-reference: against the reference)
    ratio:P=V[+P=V]   the inverse: this record's over that one's
    scale:F           multiplied by F
    unit:U            the unit of a number written without one (µs, ms, s, B, KiB, MiB, GiB, GB...)
    also:Q[+Q...]     the cell's 2nd, 3rd... numbers (in the order written, parentheses
                      included) are these quantities of the same record (as value:, without
                      per, vs, ratio or scale), each checked the same way
    any other KEY     a parameter the record must have: its stagebench.params[KEY] (a CSV
                      column) equals VALUE, as numbers when both are numbers (11 = 11.0)
  A cell's leading number and unit ("44.3 ms", "3.15 s", "0.441 ms", "2,741", "4.2·10¹⁰",
  "5.1e7", "52 MiB", "(247×)") must equal the recomputed value rounded as the cell rounds it:
  to the decimals the cell shows, after converting to the cell's unit (time units from seconds,
  byte units from bytes; any other unit, or none, compares the raw value). A cell that starts
  with text ("refused: needs 103.76 GiB", "X", "skipped") must match a record that is not
  valid, every number in it appearing in the record's reason; "—", "-" and empty cells are not
  checked.

  <!-- goals: DIR -->

  The paragraph after it states what the goals run in DIR (a folder of bench/scripts/goals)
  found: "N of M goals" as DIR/goals.md's last line says, the commit of DIR's records (its first
  7 hex digits) and the GPU's model as the records name it.

  <!-- table: PATH.md -->

  Each data row of the table (its cells, whitespace-trimmed) must equal a data row of a
  markdown table in the committed file PATH (study output such as table2.md).

Every relative link in the files checked ([text](path) and [text](path#anchor)) must point to an
existing file or directory; an anchor into a markdown file must name one of its headings, and
one into an archive (.tar.xz) a file kept in it. A link's title is in double quotes, \" standing
for a quote in it. A .txt link, or one to a .md page under results/ (a tool's committed output:
proof.md, goals.md, a key table), holds when any line of the file that names the title gives
the link's number right after it; a link to code, when the first such
line does.
"""

import csv
import glob
import importlib.machinery
import io
import json
import lzma
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import types
from decimal import Decimal, ROUND_HALF_EVEN, ROUND_HALF_UP, InvalidOperation

ROOT = os.getcwd()

TIME_UNITS = {"ns": 1e-9, "µs": 1e-6, "μs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0,
              "min": 60.0, "h": 3600.0}
BYTE_UNITS = {"B": 1.0, "KiB": 1024.0, "MiB": 1024.0 ** 2, "GiB": 1024.0 ** 3,
              "TiB": 1024.0 ** 4, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
ALIASES = {  # quantity: (JSON path under "stagebench", CSV column)
    "time": ("time.median", "median_s"),
    "steady": ("steady.seconds", "steady_s"),
    "wall": ("wall.median", "wall_median_s"),
    "items_per_second": ("derived.items_per_second", "items_per_second"),
    "memory": ("memory.peak_tracked_bytes", "peak_device_bytes"),
}
SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
UNIT_RE = (r"(?:(ns|µs|μs|us|ms|min|s|h|KiB|MiB|GiB|TiB|kB|KB|MB|GB|TB|B)(?![A-Za-z])"
           r"|(%|×))?")
NUMBER_RE = re.compile(
    r"(?<![\w.])([-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)"
    r"(?:(?:[eE]([-+]?\d+))|(?:\s?·\s?10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)))?"
    r"\s?" + UNIT_RE)
EMPTY_CELLS = {"", "—", "–", "-", "n/a"}
HASH_RE = re.compile(r"(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")


class Failure(Exception):
    pass


# ---- records ---------------------------------------------------------------------------------

class Record:
    def __init__(self, path, name, variant, status, params, data, is_csv):
        self.path, self.name, self.variant, self.status = path, name, variant, status
        self.params, self.data, self.is_csv = params, data, is_csv

    def quantity(self, q):
        """The value of quantity q (an alias, a dotted path or a CSV column), as a float."""
        if q in ALIASES:
            q = ALIASES[q][1 if self.is_csv else 0]
        if self.is_csv:
            v = self.data.get(q)
            if v in (None, ""):
                raise Failure("%s has no value in column '%s'" % (self.name, q))
            return float(v)
        node, parts, i = self.data, q.split("."), 0
        while i < len(parts):
            if isinstance(node, list) and parts[i].isdigit():  # an element by its index
                if int(parts[i]) >= len(node):
                    raise Failure("%s: '%s' has no element %s" % (self.name, q, parts[i]))
                node, i = node[int(parts[i])], i + 1
                continue
            if not isinstance(node, dict):
                raise Failure("%s: '%s' is not an object" % (self.name, q))
            # the longest run of parts that names a key: metric names hold dots
            for j in range(len(parts), i, -1):
                key = ".".join(parts[i:j])
                hit = [k for k in node if k == key or k.replace(" ", "_") == key]
                if hit:
                    node, i = node[hit[0]], j
                    break
            else:
                raise Failure("%s has no '%s' (in %s)" % (self.name, parts[i], q))
        if isinstance(node, str):  # parameters are strings
            try:
                return float(node)
            except ValueError:
                pass
        if not isinstance(node, (int, float)) or isinstance(node, bool):
            raise Failure("%s: '%s' is not a number" % (self.name, q))
        return float(node)


_record_cache = {}
_archive_cache = {}


def archive_member(archive, member):
    """The bytes of the member of a committed tarball whose name is member or ends in /member;
    None when the archive or the member is not there."""
    if archive not in _archive_cache:
        members = {}
        if os.path.isfile(archive):
            try:
                with tarfile.open(archive) as t:
                    for info in t.getmembers():
                        if info.isfile():
                            members[info.name] = t.extractfile(info).read()
            except (OSError, tarfile.TarError, lzma.LZMAError):
                pass
        _archive_cache[archive] = members
    members = _archive_cache[archive]
    for name in sorted(members):
        if name == member or name.endswith("/" + member):
            return members[name]
    return None


def committed_text(full):
    """The text of a committed file, full a path under ROOT or ARCHIVE.tar.xz#MEMBER (a file
    kept in an experiment's archive, decompressed when it ends in .xz); None when not there."""
    archive, _, member = full.partition("#")
    if member and archive.endswith((".tar.xz", ".tar.gz", ".tar")):
        data = archive_member(archive, member)
    elif os.path.isfile(full):
        with open(full, "rb") as f:
            data = f.read()
    else:
        return None
    if data is not None and full.endswith(".xz"):
        try:
            data = lzma.decompress(data)
        except lzma.LZMAError:
            return None
    return None if data is None else data.decode("utf-8", errors="replace")


def load_records(path):
    if path in _record_cache:
        return _record_cache[path]
    text = committed_text(os.path.join(ROOT, path))
    if text is None:
        raise Failure("records file %s does not exist (or cannot be read)" % path)
    recs = []
    if path.endswith(".csv"):
        for row in csv.DictReader(io.StringIO(text, newline="")):
            recs.append(Record(path, row.get("name", ""), row.get("variant", ""),
                               row.get("status", ""), row, row, True))
    else:
        try:
            doc = json.loads(text)
        except ValueError as e:
            raise Failure("cannot read %s: %s" % (path, e))
        for b in doc.get("benchmarks", []) if isinstance(doc, dict) else []:
            sb = b.get("stagebench")
            if not isinstance(sb, dict) or b.get("run_type") == "aggregate":
                continue
            recs.append(Record(path, b.get("name", ""), sb.get("variant", ""),
                               sb.get("status", ""), sb.get("params", {}) or {}, sb, False))
        if not recs:
            raise Failure("%s holds no stagebench records" % path)
    _record_cache[path] = recs
    return recs


def same_value(a, b):
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def find(records, constraints):
    """The one record meeting constraints (a dict), preferring valid ones; None if none."""
    hits = []
    for r in records:
        ok = True
        for k, v in constraints.items():
            if k == "variant":
                ok = r.variant == v
            elif k == "file":
                ok = r.path == v or r.path.endswith("/" + v)
            elif k == "status":
                ok = r.status == v
            else:
                ok = k in r.params and same_value(r.params[k], v)
            if not ok:
                break
        if ok:
            hits.append(r)
    if not hits:
        return None
    valid = [r for r in hits if r.status == "valid"]
    if len(valid) > 1:
        raise Failure("%d valid records match %s (%s): add a constraint" % (
            len(valid), fmt_constraints(constraints),
            ", ".join(sorted(set(r.name for r in valid)))[:300]))
    if valid:
        return valid[0]
    if len(hits) > 1:
        raise Failure("%d records match %s, none valid: add a constraint" % (
            len(hits), fmt_constraints(constraints)))
    return hits[0]


def fmt_constraints(c):
    return ",".join("%s:%s" % kv for kv in c.items()) or "(nothing)"


# ---- specs -----------------------------------------------------------------------------------

CONTROL = {"value", "per", "vs", "ratio", "scale", "unit", "also"}


def parse_spec(text, where):
    if text == "-":
        return None
    spec = {}
    for item in filter(None, text.split(",")):
        if ":" not in item:
            raise Failure("%s: '%s' is not KEY:VALUE" % (where, item))
        k, v = item.split(":", 1)
        spec[k] = v
    return spec


def parse_subst(text, where):
    out = {}
    for part in text.split("+"):
        if "=" not in part:
            raise Failure("%s: '%s' is not PARAM=VALUE" % (where, part))
        k, v = part.split("=", 1)
        out[k] = v
    return out


def per(rec, what):
    """What per:WHAT divides by: the record's parameter WHAT, else its quantity WHAT."""
    if what in rec.params:
        return float(rec.params[what])
    if "." not in what:
        raise Failure("%s has no parameter '%s'" % (rec.name, what))
    return rec.quantity(what)


def compute(records, spec, quantity, where):
    """(value, record, base record or None) for the cell spec; a quantity given (also:) is the
    record's own, without per, vs, ratio or scale."""
    spec = {k: v for k, v in spec.items() if v not in ("", "-")}  # KEY:- undoes an all= KEY
    constraints = {k: v for k, v in spec.items() if k not in CONTROL}
    rec = find(records, constraints)
    if rec is None:
        return None, None, None
    if rec.status != "valid":
        return None, rec, None
    if quantity:
        return rec.quantity(quantity), rec, None
    q = spec.get("value", "time")
    val = rec.quantity(q)
    base = None
    for key in ("vs", "ratio"):
        if key in spec:
            bc = dict(constraints)
            bc.update(parse_subst(spec[key], where))
            base = find(records, bc)
            if base is None or base.status != "valid":
                raise Failure("no valid record for %s:%s (%s)" % (key, spec[key],
                                                                 fmt_constraints(bc)))
            bval = base.quantity(q)
            if "per" in spec:
                bval /= per(base, spec["per"])
            mine = val / per(rec, spec["per"]) if "per" in spec else val
            val = bval / mine if key == "vs" else mine / bval
            break
    else:
        if "per" in spec:
            val /= per(rec, spec["per"])
    if "scale" in spec:
        val *= float(spec["scale"])
    return val, rec, base


# ---- cells -----------------------------------------------------------------------------------

def clean(cell):
    return cell.replace("*", "").replace("`", "").strip()


def numbers(text):
    """Every number in text: (start, mantissa, exponent, unit)."""
    out = []
    for m in NUMBER_RE.finditer(text):
        if HASH_RE.match(text, m.start()):  # a commit (535adef), not a number
            continue
        exp = m.group(2) or (m.group(3).translate(SUPERSCRIPT) if m.group(3) else None)
        out.append((m.start(), m.group(1).replace("−", "-"), int(exp) if exp else 0,
                    m.group(4) or m.group(5)))
    return out


def factor(unit, default_unit):
    u = unit or default_unit
    if u in TIME_UNITS:
        return TIME_UNITS[u]
    if u in BYTE_UNITS:
        return BYTE_UNITS[u]
    return 1.0


def rounds_to(value, mantissa, exponent, unit, default_unit):
    """(matches, what the value shows as at the cell's precision)."""
    shown = Decimal(mantissa.replace(",", ""))
    decimals = -shown.as_tuple().exponent if "." in mantissa else 0
    scaled = value / factor(unit, default_unit) / (10.0 ** exponent)
    try:
        exact = Decimal(repr(scaled))
        quantum = Decimal(1).scaleb(-decimals)
        up = exact.quantize(quantum, rounding=ROUND_HALF_UP)
        even = exact.quantize(quantum, rounding=ROUND_HALF_EVEN)
    except InvalidOperation:
        return False, repr(scaled)
    text = str(up)
    if exponent:
        text += "e%d" % exponent
    if unit or default_unit:
        text += " " + (unit or default_unit)
    return (up == shown or even == shown), text


def check_cell(cell, spec, records, where):
    """Problems (a list of strings) with one cell."""
    text = clean(cell)
    if text in EMPTY_CELLS:
        return []
    nums = numbers(text)
    lead = text.lstrip("≈~(")
    starts_with_number = bool(nums) and nums[0][0] == len(text) - len(lead)
    try:
        val, rec, _ = compute(records, spec, None, where)
    except Failure as e:
        return [str(e)]
    if rec is None:
        return ["no record matches %s" % fmt_constraints(
            {k: v for k, v in spec.items() if k not in CONTROL})]
    if not starts_with_number:
        if rec.status == "valid":
            return ["the cell has no number but %s is valid" % rec.name]
        reason = "" if rec.is_csv else str(rec.data.get("reason", ""))
        missing = [n[1] for n in nums if n[1] not in reason]
        if missing:
            return ["%s not in the reason of %s (%s): '%s'" % (
                ", ".join(missing), rec.name, rec.status, reason[:200])]
        return []
    if rec.status != "valid":
        return ["the record %s is %s (%s)" % (rec.name, rec.status,
                                             rec.data.get("reason", "") if not rec.is_csv
                                             else "")]
    problems = []
    unit = spec.get("unit")
    _, mant, exp, u = nums[0]
    ok, shown = rounds_to(val, mant, exp, u, unit)
    if not ok:
        problems.append("expected %s (%s in %s)" % (shown, rec.name, rec.path))
    extras = spec["also"].split("+") if "also" in spec else []
    for (_, mant, exp, u), q in zip(nums[1:], extras):
        try:
            v, r, _ = compute(records, spec, q, where)
        except Failure as e:
            problems.append(str(e))
            continue
        ok, shown = rounds_to(v, mant, exp, u, None)
        if not ok:
            problems.append("%s: expected %s (%s in %s)" % (q, shown, r.name, r.path))
    return problems


# ---- markdown --------------------------------------------------------------------------------

def split_row(line):
    """The cells of a markdown table row (no leading and trailing pipes; \\| and `|` kept)."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells, cur, code = [], "", False
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s) and s[i + 1] == "|":
            cur += "|"
            i += 2
            continue
        if c == "`":
            code = not code
        if c == "|" and not code:
            cells.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    cells.append(cur.strip())
    return cells


def is_separator(line):
    return re.match(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", line) is not None


def tables(lines):
    """Every markdown table: (index of its header line, header cells, [(line index, cells)])."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|") and i + 1 < len(lines) and is_separator(lines[i + 1]):
            header = split_row(lines[i])
            rows, j = [], i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append((j, split_row(lines[j])))
                j += 1
            out.append((i, header, rows))
            i = j
        else:
            i += 1
    return out


def code_mask(lines):
    """True for the lines inside fenced code blocks."""
    mask, fence = [], None
    for line in lines:
        m = re.match(r"^\s*(```|~~~)", line)
        if fence:
            mask.append(True)
            if m and m.group(1) == fence:
                fence = None
        elif m:
            fence = m.group(1)
            mask.append(True)
        else:
            mask.append(False)
    return mask


def strip_code_spans(line):
    """The line without its inline code spans (`...`), where a comment is only quoted."""
    return re.sub(r"`[^`]*`", "", line)


def comments(lines, mask):
    """Every <!-- records: ... --> and <!-- table: ... --> comment: (first line, last line,
    kind, words)."""
    out, i = [], 0
    while i < len(lines):
        line = strip_code_spans(lines[i])
        if mask[i] or "<!--" not in line:
            i += 1
            continue
        start = i
        text = line[line.index("<!--") + 4:]
        while "-->" not in text and i + 1 < len(lines):
            i += 1
            text += " " + lines[i]
        text = text[:text.index("-->")] if "-->" in text else text
        m = re.match(r"\s*(records|table|goals):(.*)$", text, re.S)
        if m:
            out.append((start, i, m.group(1), m.group(2).split()))
        i += 1
    return out


def slug(heading):
    h = heading.strip().lower().replace("`", "")
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    mask = code_mask(lines)
    seen, out = {}, set()
    for line, code in zip(lines, mask):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m and not code:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            out.add(s if n == 0 else "%s-%d" % (s, n))
            seen[s] = n + 1
    return out


# a link's title in double quotes, \" standing for a quote in it (a line of code cited by a
# constant link may hold quotes: [64](../variants/x.c "{\"outer\", SB_PARAM_INT, \"")
TITLE = r'"((?:[^"\\]|\\.)*)"'
LINK_RE = re.compile(r"(?<!\!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+" + TITLE + r")?\s*\)")


def unquote(title):
    return re.sub(r'\\(.)', r'\1', title)


def check_links(path, lines, mask, problems):
    base = os.path.dirname(path)
    count = 0
    for n, (line, code) in enumerate(zip(lines, mask), 1):
        if code:
            continue
        for m in LINK_RE.finditer(strip_code_spans(line)):
            target = m.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue
            count += 1
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(base, file_part)) if file_part else path
            if not os.path.exists(dest):
                problems.append("%s:%d: link %s: %s does not exist" % (
                    path, n, target, os.path.relpath(dest, ROOT)))
            elif anchor and dest.endswith((".tar.xz", ".tar.gz", ".tar")):
                if archive_member(dest, anchor) is None:  # ARCHIVE#MEMBER: a file kept in it
                    problems.append("%s:%d: link %s: no %s in %s" % (
                        path, n, target, anchor, os.path.relpath(dest, ROOT)))
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append("%s:%d: link %s: no heading '%s' in %s" % (
                    path, n, target, anchor, os.path.relpath(dest, ROOT)))
    return count


# A source path a page names (`bench/scripts/goals`, tests/gate.sh): it must be there, so that a
# file moved or removed leaves no page pointing at its old place. Placeholders are not paths:
# NAME, TARGET, <w>, globs, and a stem ending in "_" (`tests/gpu_<w>...` written as tests/gpu_).
PATH_RE = re.compile(r"(?<![\w./<-])((?:bench|tests|harness|cuda|variants)/[A-Za-z0-9_./-]*[A-Za-z0-9_])(?![*<\w])")


def check_paths(path, lines, problems):
    count = 0
    for n, line in enumerate(lines, 1):
        for m in PATH_RE.finditer(line):
            p = m.group(1)
            if p.endswith("_") or re.search(r"/[A-Z]+(?:[./-]|$)", p):
                continue
            count += 1
            if not os.path.exists(os.path.join(ROOT, p)):
                problems.append("%s:%d: %s: no such file or folder (moved? name it where it is)" % (
                    path, n, p))
    return count


# A measured number in prose links to its record, the link's title the SPEC of a table cell:
#   [3.254 ms](../results/baselines/DEV/STUDY/fig5.json "variant:gpu-fused,cell:rbc,value:steady,per:steps")
# The link text's first number (and, with also:, the next ones) is recomputed as a cell is.
FACT_RE = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+\.(?:json|json\.xz|csv))>?\s+" + TITLE + r"\s*\)")
# A published value links to its paper in docs/papers.md, the title naming where in it:
#   [17×](papers.md#rdme "fig. 5")
QUOTE_RE = re.compile(r"\[([^\]]*)\]\(\s*(?:[^)\s]*/)?papers\.md#([\w-]+)\s+\"([^\"]+)\"\s*\)")


# A constant of the method links to where the code sets it, the title naming it there:
#   [5 %](../harness/json.h "SB_CAUTION_NOISE")    [up to 40](../harness/gate.c ".max_rounds")
# The first line of the file naming it, and giving a number after the name, must give the link
# text's number (a % as a fraction: 5 % is 0.05), so that a page cannot drift from the code. A
# committed text record (.txt: a command's output) is cited the same way, the title words of
# its line, the number rounded as the page writes it (counted as recomputed): [310 s](cpu/first-day.txt "run-main-study:").
CONST_RE = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+?)>?\s+" + TITLE + r"\s*\)")
SOURCE_SUFFIXES = (".c", ".h", ".cu", ".cuh", ".cc", ".py", ".sh", ".gp", ".study", ".suite", ".cmake",
                   "CMakeLists.txt", ".txt")


def is_output(target):
    """A tool's committed output: a .txt, or a page a tool wrote under results/ (proof.md,
    goals.md, an Nsight key table), also inside an archive."""
    return target.endswith(".txt") or (target.endswith(".md") and "results/" in target)


def is_source_link(target):
    return target.endswith(SOURCE_SUFFIXES) or "/scripts/" in target or is_output(target)


def check_constant(path, n, text, target, name, problems):
    base = os.path.dirname(path)
    full = os.path.normpath(os.path.join(base, target))
    content = committed_text(full)
    if content is None:
        return  # the link check names the missing file
    nums = numbers(text)
    if not nums:
        problems.append("%s:%d: '%s' links a constant (%s) but holds no number" % (
            path, n, text, name))
        return
    output = is_output(target)  # a tool's output: any line naming it may give the number
    first_miss = None
    for line in content.split("\n"):
        at = line.find(name)
        if at < 0:
            continue
        code = numbers(line[at + len(name):])
        if not code:
            continue
        _, mant, exp, unit = nums[0]
        want = float(mant.replace(",", "")) * 10 ** exp
        got = float(code[0][1].replace(",", "")) * 10 ** code[0][2]
        decimals = len(mant.split(".")[1]) if "." in mant else 0
        if abs(got - want) <= 1e-9 * max(1.0, abs(want)) or \
                (unit == "%" and abs(got * 100 - want) <= 1e-9 * max(1.0, abs(want))) or \
                (output and unit == code[0][3] and exp == 0 and
                 abs(round(got, decimals) - want) < 1e-9):
            return
        first_miss = first_miss or code[0][1]
        if not output:
            break
    if first_miss:
        problems.append("%s:%d: '%s': %s is %s in %s, not %s" % (
            path, n, text, name, first_miss, target, nums[0][1]))
        return
    problems.append("%s:%d: '%s': no line of %s gives %s a number" % (path, n, text, target, name))


def check_facts(path, lines, mask, problems):
    base = os.path.dirname(path)
    count = 0
    for n, (line, code) in enumerate(zip(lines, mask), 1):
        if code:
            continue
        text = strip_code_spans(line)
        for m in FACT_RE.finditer(text):
            where = "%s:%d" % (path, n)
            count += 1
            rec_path = os.path.relpath(os.path.normpath(os.path.join(base, m.group(2))), ROOT)
            try:
                spec = parse_spec(m.group(3), where) or {}
                records = load_records(rec_path)
            except Failure as e:
                problems.append("%s: %s" % (where, e))
                continue
            for p in check_cell(m.group(1), spec, records, where):
                problems.append("%s: '%s' (%s): %s" % (where, m.group(1), m.group(3), p))
        # a quote's paper and its heading are checked as every relative link is
        count += len(QUOTE_RE.findall(text))
        for m in CONST_RE.finditer(text):
            if is_source_link(m.group(2)):
                count += 1
                check_constant(path, n, m.group(1), m.group(2), unquote(m.group(3)), problems)
    return count


def check_records_table(path, cline, words, table, problems):
    _, header, rows = table
    paths, cols, rowspecs, allspec = [], [], [], {}
    where = "%s:%d" % (path, cline + 1)
    try:
        for w in words:
            if "=" in w and w.split("=", 1)[0] in ("col", "row", "all"):
                k, v = w.split("=", 1)
                spec = parse_spec(v, where)
                if k == "col":
                    cols.append(spec)
                elif k == "row":
                    rowspecs.append(spec)
                else:
                    allspec = spec or {}
            else:
                paths.append(w)
        if not paths:
            raise Failure("records: names no file")
        records = []
        for p in paths:
            records.extend(load_records(p))
    except Failure as e:
        problems.append("%s: %s" % (where, e))
        return 0
    if rowspecs and len(rowspecs) != len(rows):
        problems.append("%s: %d row= specs for %d data rows" % (where, len(rowspecs), len(rows)))
        return 0
    if len(cols) > len(header) - 1:
        problems.append("%s: %d col= specs for %d columns after the first" % (
            where, len(cols), len(header) - 1))
        return 0
    checked = 0
    for r, (ln, cells) in enumerate(rows):
        if rowspecs:
            rspec = rowspecs[r]
            if rspec is None:
                continue
        else:
            first = clean(cells[0]) if cells else ""
            rspec = {"variant": re.split(r"[\s(]", first, 1)[0]} if first else None
            if not rspec:
                continue
        for c, cspec in enumerate(cols, 1):
            if cspec is None or c >= len(cells):
                continue
            spec = dict(allspec)
            spec.update(rspec)
            spec.update(cspec)
            checked += 1
            for p in check_cell(cells[c], spec, records, where):
                problems.append("%s:%d: cell '%s' (column %d, '%s'): %s" % (
                    path, ln + 1, cells[c], c + 1, header[c] if c < len(header) else "", p))
    return checked


_table_cache = {}


def committed_rows(p):
    if p not in _table_cache:
        text = committed_text(os.path.join(ROOT, p))
        if text is None:
            raise Failure("table file %s does not exist" % p)
        lines = text.split("\n")
        _table_cache[p] = [tuple(cells) for _, _, rows in tables(lines) for _, cells in rows]
    return _table_cache[p]


def check_quoted_table(path, cline, words, table, problems):
    where = "%s:%d" % (path, cline + 1)
    if len(words) != 1:
        problems.append("%s: table: names %d files (one PATH.md)" % (where, len(words)))
        return 0
    try:
        rows = set(committed_rows(words[0]))
    except Failure as e:
        problems.append("%s: %s" % (where, e))
        return 0
    n = 0
    for ln, cells in table[2]:
        n += 1
        if tuple(cells) not in rows:
            problems.append("%s:%d: row '%s' is not a row of %s" % (
                path, ln + 1, " | ".join(cells), words[0]))
    return n


def check_goals_claim(path, line, words, following, problems):
    """<!-- goals: DIR -->: the paragraph after it must state what DIR's goals.md says: "N of M
    goals" (its last line, "N of M goals met."), the commit of DIR's records (7 hex digits) and
    the GPU's model as the records name it (e.g. H100). Returns 1 (a claim checked)."""
    where = "%s:%d" % (path, line + 1)
    if len(words) != 1:
        problems.append("%s: <!-- goals: DIR --> names one folder" % where)
        return 0
    folder = os.path.join(ROOT, words[0])
    md = os.path.join(folder, "goals.md")
    if not os.path.isfile(md):
        problems.append("%s: %s has no goals.md (sh bench/scripts/goals --figures-only %s)" % (
            where, words[0], words[0]))
        return 0
    last = [l for l in open(md, encoding="utf-8").read().split("\n") if l.strip()][-1]
    m = re.match(r"(\d+) of (\d+) goals met\.", last)
    if not m:
        problems.append("%s: %s ends in '%s', not 'N of M goals met.'" % (where, md, last))
        return 0
    paragraph = []
    for l in following:
        if not l.strip():
            break
        paragraph.append(l)
    text = " ".join(paragraph)
    claim = "%s of %s goals" % (m.group(1), m.group(2))
    if claim not in text:
        problems.append("%s: the claim does not say '%s' as %s does" % (where, claim, md))
    commits, devices = set(), set()
    for f in glob.glob(os.path.join(folder, "*.json")) + glob.glob(os.path.join(folder, "*.json.xz")):
        doc = json.load(lzma.open(f) if f.endswith(".xz") else open(f))
        sb = doc.get("context", {}).get("stagebench", {})
        commits.add(sb.get("git_commit", "")[:7])
        for d in sb.get("devices", [])[:1]:
            devices.add(d.get("name", ""))
    for c in sorted(commits):
        if c not in text:
            problems.append("%s: the claim does not name %s's commit %s" % (where, words[0], c))
    for d in sorted(devices):
        model = [w for w in d.split() if re.match(r"[A-Z]\d{2,}", w)]
        if model and model[0] not in text:
            problems.append("%s: the claim does not name the GPU %s (%s)" % (where, model[0], d))
    return 1


def check_file(path, problems, stats):
    lines = open(path, encoding="utf-8").read().split("\n")
    mask = code_mask(lines)
    found = {t[0]: t for t in tables(lines)}
    for start, end, kind, words in comments(lines, mask):
        j = end + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if kind == "goals":
            stats["goals"] += check_goals_claim(path, start, words, lines[j:], problems)
            continue
        if j not in found:
            problems.append("%s:%d: <!-- %s: --> is not followed by a table" % (
                path, start + 1, kind))
            continue
        stats["tables"] += 1
        if kind == "records":
            stats["cells"] += check_records_table(path, start, words, found[j], problems)
        else:
            stats["rows"] += check_quoted_table(path, start, words, found[j], problems)
    stats["links"] += check_links(path, lines, mask, problems)
    stats["paths"] += check_paths(path, lines, problems)
    stats["facts"] += check_facts(path, lines, mask, problems)
    share = classify(path, lines, mask)
    for k, v in share.items():
        stats["kinds"][k] = stats["kinds"].get(k, 0) + v


def run(files):
    problems, stats = [], {"tables": 0, "cells": 0, "rows": 0, "links": 0, "goals": 0, "paths": 0,
                        "facts": 0, "kinds": {}}
    for f in files:
        if not os.path.isfile(f):
            problems.append("%s: no such file" % f)
            continue
        check_file(f, problems, stats)
    return problems, stats


# ---- what kind each number of a page is ------------------------------------------------------
#
# recomputed   a cell of a <!-- records: --> table, a fact link's text, or a row of a
#              <!-- table: --> table whose file `bench/scripts/tables check` makes again
#              (a study folder's table outside earlier/)
# quoted       a published value: a link to docs/papers.md (QUOTE_RE), or a table column
#              headed paper/published/thesis
# constant     in code (a command, a parameter, a threshold written as the code has it), or a
#              constant link's text (CONST_RE: checked against the line of code that sets it)
# identifier   not a quantity: headings, a table's header row and first column (the points'
#              names), dates, "fig. 5", "table 2", "issue 21", "CUDA 13.0" ...
# copied       a row of a <!-- table: --> table that no test makes again (earlier/ folders)
# unchecked    anything else
# The share that counts: (recomputed + quoted + constant) / (all - identifiers).
SHARE_GOAL = 95.0
# Fails below this (31.1 % when first counted, at 6c40c3e; the goal since 4d8c2fa's pages and
# their second round: a page's new number comes with its source).
SHARE_FLOOR = 95.0
IDENT_BEFORE = re.compile(
    r"(?i)(?:\bfigs?\.|\bfigures?|\btables?|\bissues?|\bsections?|§|\beqs?\.|\bpp?\.|"
    r"\bchapters?|\bstages?|\bparts?|\bitems?|\bCUDA|\bsm_|\bcompute capability|\bversion|"
    r"\bGPL-|\bApache-|\bUbuntu|\bDebian|\bC|\bC\+\+|\bPython|\bstop|\blevel|\bSHA-|"
    r"\bthesis figures|\bexits?|\bstatus|\bcode|[≥≤]\s*CUDA)"
    # the rest of a list: "figs. 3.4, 3.6 and 3.8", "tables 2-4", "issues 50 and 51"
    r"\s*\(?(?:[\d.]+\s*(?:[-–,]|and|or)\s*)*$")
CONSTANT_BEFORE = re.compile(r"(?i)(?:\bexits?|\bexit status|\bstatus|\bcode)\s*$")
PUBLISHED_HEADER = re.compile(r"(?i)paper|published|thesis")


def tool_made():
    """The committed tables `bench/scripts/tables check` makes again with a tool, from the lines of
    the experiments' READMEs (its tool_tables: one definition)."""
    script = os.path.join(ROOT, "bench/scripts/tables")
    if not os.path.isfile(script):  # a tree of the self-test's own
        return set()
    loader = importlib.machinery.SourceFileLoader("tables", script)
    tables = types.ModuleType(loader.name)
    tables.__file__ = loader.path
    loader.exec_module(tables)
    return {os.path.normpath(os.path.join(folder, table))
            for folder, table, _, _, _ in tables.tool_tables()}


TOOL_MADE = None


def regenerated(table_path):
    """Whether `bench/scripts/tables check` makes this committed table again."""
    global TOOL_MADE
    if TOOL_MADE is None:
        TOOL_MADE = tool_made()
    path = os.path.normpath(os.path.join(ROOT, table_path))
    folder = os.path.dirname(path)
    return "/earlier/" not in table_path and (path in TOOL_MADE or bool(
        glob.glob(os.path.join(folder, "*.json")) + glob.glob(os.path.join(folder, "*.json.xz"))))


def in_date(text, pos):
    """Whether the number at pos is part of a date (2026-12-07) or a time of day (13:11)."""
    return any(m.start() <= pos < m.end() for m in
               re.finditer(r"\b\d{4}-\d\d-\d\d\b|\b\d\d:\d\d(?::\d\d)?\b", text))


def list_marker(text, pos):
    """Whether the number at pos numbers an ordered list's item ("1. ")."""
    return not text[:pos].strip() and re.match(r"\d+\.\s", text[pos:]) is not None


_commits = {}


def digit_commit(text, pos):
    """Whether the number at pos is a commit of this repository written in digits only
    (4475986): git says so; without git (an exported tree) it stays a number."""
    m = re.match(r"\d{7,12}\b", text[pos:])
    if not m:
        return False
    token = m.group(0)
    if token not in _commits:
        try:
            r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "--quiet",
                                token + "^{commit}"], capture_output=True)
            _commits[token] = r.returncode == 0
        except OSError:
            _commits[token] = False
    return _commits[token]


def classify(path, lines, mask, where=None):
    """Counts of each kind of number on the page; where, a list, also gets (line, number, kind)."""
    kinds = {}
    found = {t[0]: t for t in tables(lines)}
    row_kind, quoted_cols = {}, {}
    for start, end, kind, words in comments(lines, mask):
        j = end + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j not in found or kind not in ("records", "table"):
            continue
        for ln, _ in found[j][2]:
            if kind == "records":
                row_kind[ln] = "recomputed"
            else:
                row_kind[ln] = "recomputed" if words and regenerated(words[0]) else "copied"
    labels = {}  # a table's header row and first column name its points: identifiers
    for head, header, rows in found.values():
        cols = {c for c, h in enumerate(header) if PUBLISHED_HEADER.search(h)}
        labels[head] = None
        for ln, _ in rows:
            quoted_cols[ln] = cols
            labels[ln] = 1
    in_comment = False
    for i, line in enumerate(lines):
        text = line
        if in_comment or "<!--" in text:
            if in_comment and "-->" not in text:
                continue
            if in_comment:
                text, in_comment = text[text.index("-->") + 3:], False
            text = re.sub(r"<!--.*?-->", "", text)
            if "<!--" in text:
                text, in_comment = text[:text.index("<!--")], True
        if mask[i]:
            kinds["constant"] = kinds.get("constant", 0) + len(numbers(text))
            if where is not None:
                where.extend((i + 1, n[1], "constant") for n in numbers(text))
            continue
        spans = {}
        for m in re.finditer(r"`[^`]*`", text):
            spans[(m.start(), m.end())] = "constant"
        for m in FACT_RE.finditer(text):
            spans[(m.start(1), m.end(1))] = "recomputed"
        for m in QUOTE_RE.finditer(text):
            spans[(m.start(1), m.end(1))] = "quoted"
        for m in CONST_RE.finditer(text):
            if is_source_link(m.group(2)):
                spans[(m.start(1), m.end(1))] = \
                    "recomputed" if is_output(m.group(2)) else "constant"
        # link targets and titles are not the page's numbers
        masked = re.sub(r'\]\((?:[^)"]|' + TITLE + r')*\)',
                        lambda m: "]" + " " * (len(m.group(0)) - 1), text)
        cells, label_end = None, -1
        if i in labels:
            bars = [m.start() for m in re.finditer(r"(?<!\\)\|", masked)]
            label_end = len(masked) if labels[i] is None else (bars[1] if len(bars) > 1 else -1)
            cells = [(bars[c], bars[c + 1]) for c in sorted(quoted_cols.get(i, ()))
                     if c + 1 < len(bars)]
        # a sentence goes on from the line before: "figures (3.4, 3.6,\n3.8"
        before = (lines[i - 1] if i and not mask[i - 1] else "")[-60:] + " "
        for pos, _, _, _ in numbers(masked):
            kind = next((k for (a, b), k in spans.items() if a <= pos < b), None)
            if kind is None:
                context = before + masked[:pos] if not masked[:pos].strip() or \
                    re.match(r"^[\d.\s,–-]*$", masked[:pos]) else masked[:pos]
                if pos < label_end:
                    kind = "identifier"
                elif CONSTANT_BEFORE.search(context):
                    kind = "constant"
                elif masked.lstrip().startswith("#") or IDENT_BEFORE.search(context) or \
                        in_date(masked, pos) or list_marker(masked, pos) or \
                        digit_commit(masked, pos):
                    kind = "identifier"
                elif cells and any(a < pos < b for a, b in cells):
                    kind = "quoted"
                else:
                    kind = row_kind.get(i, "unchecked")
            kinds[kind] = kinds.get(kind, 0) + 1
            if where is not None:
                where.append((i + 1, masked[pos:pos + 12].split(" ")[0], kind))
    return kinds


def share_line(kinds):
    """(share in %, the line that says it)."""
    counted = sum(kinds.values()) - kinds.get("identifier", 0)
    good = kinds.get("recomputed", 0) + kinds.get("quoted", 0) + kinds.get("constant", 0)
    share = 100.0 * good / counted if counted else 100.0
    parts = ", ".join("%d %s" % (kinds.get(k, 0), k) for k in
                      ("recomputed", "quoted", "constant", "copied", "unchecked", "identifier"))
    return share, ("doc_numbers: %.1f %% of %d numbers recomputed, quoted or constants (%s; "
                   "goal %.0f %%, floor %.1f %%)" % (share, counted, parts, SHARE_GOAL, SHARE_FLOOR))


# ---- self-test: the checker must catch what it claims to ------------------------------------

def self_test():
    global ROOT
    saved = ROOT
    with tempfile.TemporaryDirectory() as d:
        ROOT = d
        os.makedirs(os.path.join(d, "r"))
        rec = {"context": {}, "benchmarks": [
            {"name": "w/a/x:1", "stagebench": {"variant": "a", "status": "valid",
                                                "params": {"x": "1", "steps": "100"},
                                                "time": {"median": 0.0443},
                                                "steady": {"seconds": 0.0036},
                                                "memory": {"peak_tracked_bytes": 54771032},
                                                "phases": {"copy back": 0.338},
                                                "kernels": [{"seconds": 0.5, "launches": 4},
                                                            {"seconds": 0.9, "launches": 10}]}},
            {"name": "w/a/x:2", "stagebench": {"variant": "a", "status": "valid",
                                                "params": {"x": "2", "steps": "100"},
                                                "time": {"median": 3.1517}}},
            {"name": "w/b/x:1", "stagebench": {"variant": "b", "status": "skipped",
                                                "params": {"x": "1"}, "reason": "needs 2 GPUs"}},
            {"name": "w/b/x:2", "stagebench": {"variant": "b", "status": "valid",
                                                "params": {"x": "2", "steps": "100"},
                                                "time": {"median": 0.315}}}]}
        with open(os.path.join(d, "r", "a.json"), "w") as f:
            json.dump(rec, f)
        with open(os.path.join(d, "r", "t.md"), "w") as f:
            f.write("| a | b |\n|---|---|\n| 1 | 2 |\n")
        # a page a tool wrote under results/, cited like a .txt
        os.makedirs(os.path.join(d, "results"))
        with open(os.path.join(d, "results", "proof.md"), "w") as f:
            f.write("| gate runs | failed |\n|---|---|\n| 3 | 0 (0.0-70.8 %) |\n")
        # an experiment's archive: a record and a tool's output kept in it
        with tarfile.open(os.path.join(d, "r", "e.tar.xz"), "w:xz") as t:
            for name, data in (("x/a.json.xz", lzma.compress(json.dumps(rec).encode())),
                               ("x/out.txt", b"a: slower by 7.2 %\nb: slower by 3.1 %\n")):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        good = ("# T\n\n<!-- records: r/a.json col=x:1 col=x:2 col=x:2,vs:variant=a -->\n\n"
                "| variant | one | two | speed-up |\n|---|---|---|---|\n"
                "| `a` | 44.3 ms | 3.15 s | — |\n| b (2 GPUs) | refused: needs 2 GPUs | 315 ms | "
                "10.0× |\n\n<!-- records: r/a.json all=variant:a,x:1 col=value:steady,per:steps,"
                "unit:µs col=value:phases.copy_back col=value:memory -->\n"
                "| | per step | copy | memory |\n|---|---|---|---|\n| a | 36.0 | 338 ms | 52 MiB |"
                "\n\n<!-- table: r/t.md -->\n| x | y |\n|---|---|\n| 1 | 2 |\n\n[t](#t) "
                "[f](r/t.md)\n\n<!-- records: r/a.json col=x:1 -->\n| v | t |\n|---|---|\n| a | 44.3 ms |\n"
                "\nRun `tests/run.sh`, or tests/NAME.sh (a placeholder).\n"
                "\nA step took [36.0 µs](r/a.json \"variant:a,x:1,value:steady,per:steps,unit:µs\"),"
                " the paper's [17×](papers.md#p \"fig. 5\"), above [5 %](c.h \"LIMIT\").\n"
                "\nA kernel: [90 ms](r/a.json \"variant:a,x:1,value:kernels.1.seconds,"
                "per:kernels.1.launches\") a launch.\n"
                "\nKept in the archive: [44.3 ms](r/e.tar.xz#x/a.json.xz \"variant:a,x:1\"), "
                "b [3.1 %](r/e.tar.xz#x/out.txt \"b: slower by\") ([out](r/e.tar.xz#x/out.txt)); "
                "at most [70.8 %](results/proof.md \"0 (0.0-\").\n")
        with open(os.path.join(d, "c.h"), "w") as f:
            f.write("#define LIMIT 0.05\n")
        with open(os.path.join(d, "papers.md"), "w") as f:
            f.write("# Papers\n\n## P\n")
        os.makedirs(os.path.join(d, "tests"))
        open(os.path.join(d, "tests", "run.sh"), "w").close()
        bad = good.replace("44.3 ms", "44.4 ms").replace("315 ms", "316 ms").replace(
            "52 MiB", "53 MiB").replace("| 1 | 2 |\n\n", "| 1 | 3 |\n\n").replace(
            "(r/t.md)", "(r/gone.md)").replace("(#t)", "(#u)").replace(
            "r/a.json col=x:1 -->", "r/none.json col=x:1 -->").replace(
            "tests/run.sh", "tests/moved.sh").replace("[36.0 µs]", "[36.1 µs]").replace(
            "papers.md#p ", "papers.md#q ").replace("[5 %]", "[6 %]").replace(
            "[44.3 ms](r/e", "[44.2 ms](r/e").replace("[3.1 %]", "[7.2 %]").replace(
            "x/out.txt)", "x/gone.txt)").replace("[70.8 %]", "[70.9 %]").replace(
            "[90 ms]", "[125 ms]")
        cases = [(good, 0), (bad, 16)]
        for text, want in cases:
            p = os.path.join(d, "doc.md")
            with open(p, "w") as f:
                f.write(text)
            _record_cache.clear()
            _table_cache.clear()
            problems, _ = run([p])
            if len(problems) != want:
                ROOT = saved
                print("doc_numbers self-test: %d problems where %d were planted:" % (
                    len(problems), want))
                for pr in problems:
                    print("  " + pr)
                return 1
    ROOT = saved
    print("doc_numbers self-test: a right page passes, 16 planted mistakes are all reported")
    return 0


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    if argv[1:2] == ["--list"] and len(argv) > 3:
        # every number of KIND on the pages, file:line: number (what to link or drop next)
        for f in argv[3:]:
            lines = open(f, encoding="utf-8").read().split("\n")
            where = []
            classify(f, lines, code_mask(lines), where)
            for ln, text, kind in where:
                if kind == argv[2]:
                    print("%s:%d: %s" % (f, ln, text))
        return 0
    if any(a.startswith("-") for a in argv[1:]) and argv[1:2] != ["--share"] or \
            any(a.startswith("-") for a in argv[2:]):
        print("usage: python3 tests/doc_numbers.py [--self-test | --list KIND FILE.md ... | "
              "[--share] FILE.md ...]",
              file=sys.stderr)
        return 2
    per_file = argv[1:2] == ["--share"]
    if per_file:
        argv = argv[:1] + argv[2:]
    files = argv[1:] or ["README.md"] + sorted(glob.glob("docs/*.md")) + ["results/README.md"]
    if per_file:
        for f in files:
            lines = open(f, encoding="utf-8").read().split("\n")
            print("%-30s %s" % (f, share_line(classify(f, lines, code_mask(lines)))[1][13:]))
    problems, stats = run(files)
    for p in problems:
        print(p)
    if problems:
        print("doc_numbers: %d mismatch(es) in %s" % (len(problems), ", ".join(files)))
        return 1
    print("doc_numbers: %d tables (%d cells recomputed from records, %d rows found in committed "
          "tables), %d goals claims, %d facts and quotes, %d relative links and %d source paths "
          "in %d files: all match" % (
              stats["tables"], stats["cells"], stats["rows"], stats["goals"], stats["facts"],
              stats["links"], stats["paths"], len(files)))
    share, line = share_line(stats["kinds"])
    print(line)
    if share < SHARE_FLOOR:
        print("doc_numbers: the share fell below its floor: link the new numbers to their records"
              " (a fact link, a <!-- records: --> table) or to the paper they quote")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
