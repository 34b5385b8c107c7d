#!/usr/bin/env python3
"""A stand-in for a build of stagebench in the gate's tests: `run WORKLOAD --variant a,b ...
--out FILE` writes a records file in stagebench's shape (results/SCHEMA.md) without measuring:
each variant's median is its level times this build's factor, times log-normal noise.

The build is described by the JSON file named by the environment variable FAKE_BUILD, or by
the file `fake-build.json` beside this program (a bisect's commits carry their own):
  {"name": "base", "commit": "c0", "levels": {"v": 1e-3}, "factor": {"v": 1.05},
   "noise": 0.003, "invalid": ["v"], "throttle_every": 0, "refuse": false}
Each call appends "<name> <workload> <variants> <argv...>" to FAKE_LOG when it is set, and
"<name> <SB_REFERENCE_CACHE> <whether that folder is there>" to FAKE_CACHE_LOG."""
import json, math, os, random, sys

here = os.path.dirname(os.path.abspath(__file__))
spec = json.load(open(os.environ.get("FAKE_BUILD") or os.path.join(here, "fake-build.json")))
args = sys.argv[1:]
if not args or args[0] != "run":
    sys.exit("fake stagebench: only `run` is faked")
workload = args[1]
variants = args[args.index("--variant") + 1].split(",") if "--variant" in args else ["v"]
out = args[args.index("--out") + 1]
if os.environ.get("FAKE_LOG"):
    with open(os.environ["FAKE_LOG"], "a") as log:
        log.write("%s %s %s %s\n" % (spec.get("name", "?"), workload, ",".join(variants),
                                     " ".join(args)))
if os.environ.get("FAKE_CACHE_LOG"):
    cache = os.environ.get("SB_REFERENCE_CACHE")
    with open(os.environ["FAKE_CACHE_LOG"], "a") as log:
        log.write("%s %s %s\n" % (spec.get("name", "?"), cache, cache and os.path.isdir(cache)))
if spec.get("refuse"):
    print("fake stagebench: refused", file=sys.stderr)
    sys.exit(2)
# a count of calls of this build, for throttle_every
counter = out + ".count"
calls_file = os.path.join(os.path.dirname(out), ".fake-calls-" + spec.get("name", "x"))
calls = int(open(calls_file).read()) + 1 if os.path.exists(calls_file) else 1
open(calls_file, "w").write(str(calls))
# the same noise on every run of the test: seeded by the build, the line and the call
rng = random.Random("%s/%s/%d" % (spec.get("name", "?"), workload, calls))
throttle_every = spec.get("throttle_every", 0)
entries = []
for v in variants:
    level = spec["levels"].get(v, 1e-3) * spec.get("factor", {}).get(v, 1.0)
    median = level * math.exp(rng.gauss(0, spec.get("noise", 0.003)))
    if spec.get("bimodal", {}).get(v) and rng.random() < 0.5:
        median *= spec["bimodal"][v]
    status = "invalid" if v in spec.get("invalid", []) else "valid"
    throttled = 1 if throttle_every and calls % throttle_every == 0 else 0
    name = "%s/%s/n:1" % (workload, v)
    entries.append({"name": name, "run_name": name, "run_type": "iteration", "iterations": 10,
                    "real_time": median * 1e3, "cpu_time": median * 1e3, "time_unit": "ms",
                    "stagebench": {"workload": workload, "variant": v, "params": {"n": "1"},
                                   "device": 0, "status": status,
                                   "time": {"median": median, "noise": 0.001,
                                            "samples": [median] * 10},
                                   "clock": {"available": True, "sm_mhz_min": 1980,
                                             "sm_mhz_median": 1980, "sm_mhz_max": 1980,
                                             "throttled_samples": throttled,
                                             "temperature_c_max": 40}}})
doc = {"context": {"date": "2026-01-01T00:00:%02dZ" % (calls % 60),
                   "stagebench": {"git_commit": spec.get("commit", "c0"),
                                  "devices": [{"name": "Fake GPU", "uuid": "GPU-fake"}]}},
       "benchmarks": entries}
tmp = out + ".part"
json.dump(doc, open(tmp, "w"))
os.replace(tmp, out)
sys.exit(1 if status == "invalid" else 0)
