#!/usr/bin/env python3
"""Structure-aware fuzz campaign against the `fedverify` command (problem files + flags).

Each input is a problem file mutated as JSON (numbers pushed to the edges of double precision,
wrong types, deep nesting, duplicate or unknown keys, inconsistent shapes, huge sizes) and a
command line drawn from the flags of docs/CLI.md with values from the edges of their ranges. The
binary runs each input under a time limit; an input FAILS when

  * the exit code is not 0, 1 or 2 (3 is an internal error: a bug; negative: a signal),
  * stderr holds a sanitizer report (AddressSanitizer, LeakSanitizer, "runtime error:"),
  * an exit 2 does not print exactly one line on stderr,
  * stdout of an exit-0 predict/simulate is not one JSON object, or holds NaN/Infinity/null,
  * the run exceeds the time limit.

Sizes are drawn either small (the run is fast) or beyond the documented ranges (the run must be
refused at once): a size inside its range but large would be legitimate work, not a bug, so the
campaign does not draw it. Problems with many clients (up to 200) are drawn, and every predict
and simulate runs with --max-seconds 1: closed forms that would take longer on an optimised build
(Scaffold's exact moments, L2GD's x(λ) and trajectory) must be refused at once; under ASan and
UBSan (≈ 12× slower) the accepted ones stay well inside the time limit. Failing inputs are written to --keep (problem file + command line) so
they can be replayed. The campaign is reproducible from --seed.

    verify/fuzz/campaign.py --binary build-asan/fedverify --count 100000 --seed 1 --jobs 2

Exit status: 0 no failing input, 1 failing inputs (listed), 2 bad invocation.
"""
import argparse
import concurrent.futures
import copy
import json
import math
import os
import pathlib
import random
import subprocess
import sys
import tempfile

QUADRATIC = {"kind": "quadratic", "clients": [
    {"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5],
     "noise_cov": [[0.5, 0.1], [0.1, 0.4]]},
    {"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5],
     "noise_cov": [[0.3, 0.0], [0.0, 0.6]]},
    {"hessian": [[1.5, 0.0], [0.0, 0.5]], "optimum": [0.2, 1.5],
     "noise_cov": [[0.2, -0.05], [-0.05, 0.2]]}]}
LOGISTIC = {"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [
    {"features": [[1.0, 0.2], [0.5, -1.0], [1.5, 0.3], [-0.2, 0.8]], "labels": [1, -1, 1, -1]},
    {"features": [[-1.0, 0.4], [0.3, 1.2], [-0.7, -0.5]], "labels": [-1, 1, 1]},
    {"features": [[2.0, -0.3], [0.1, 0.1], [1.1, 1.4], [-1.3, 0.2], [0.4, -0.9]],
     "labels": [1, 1, -1, -1, 1]}]}

EDGE_NUMBERS = [0.0, -0.0, 1e-320, -1e-320, 5e-324, 1e-300, 1e300, -1e300, 1.7976931348623157e308,
                -1.7976931348623157e308, 1e16, 2.0 ** 31, 2.0 ** 31 - 1, 2.0 ** 63, -1.0, 1.0,
                0.5, 3.0, 1e-8, 2147483647, -2147483648, 4294967296, 9007199254740993]
RAW_TOKENS = ["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "1e-400", "0x10", "01",
              "18446744073709551616", "-", "1.", ".5", "1e", "\"1\"", "true", "null", "[]", "{}"]
SMALL_INT = [1, 2, 3, 4, 5, 8, 10, 16]
HUGE_INT = [0, -1, -5, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 63 - 1, 2 ** 64, 10 ** 12, 10 ** 30]
ALGOS = ["sgd", "fedavg", "scaffold", "fedrr", "l2gd", "l2sgd", "l2sgd+", "FedAvg", "", "fedprox",
         "fedavg\n", "a" * 300]


def mutate_value(rng, v, depth=0):
    """One structural mutation of a JSON value (returns a new value)."""
    choice = rng.random()
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if choice < 0.6:
            return rng.choice(EDGE_NUMBERS)
        if choice < 0.8:
            return v * rng.choice([-1, 10, 1e10, 1e-10, 0])
        return rng.choice(["1", None, True, [], {}, [v, v]])
    if isinstance(v, list):
        if not v or choice < 0.2:
            return rng.choice([[], [[]], [1.0], None, {}, "x", v + v])
        if choice < 0.35:
            return v[:-1]
        if choice < 0.5:
            return v + [copy.deepcopy(rng.choice(v))]
        if choice < 0.55:  # the client list (depth 1) grows to at most 150 clients
            return v * rng.choice([50] if depth == 1 else [50, 500])
        i = rng.randrange(len(v))
        out = list(v)
        out[i] = mutate_value(rng, v[i], depth + 1)
        return out
    if isinstance(v, dict):
        keys = list(v)
        out = dict(v)
        if choice < 0.1 and keys:
            del out[rng.choice(keys)]
        elif choice < 0.2:
            out[rng.choice(["extra", "hesian", "Kind", "generator", "l2", "batch_size", "\n"])] = 1
        elif keys:
            k = rng.choice(keys)
            out[k] = mutate_value(rng, v[k], depth + 1)
        return out
    if isinstance(v, str):
        return rng.choice(["quadratic", "logistic", "quadratic-game", "", "QUADRATIC", 5, None,
                           "x\u0000y", "line\nbreak"])
    return rng.choice([1.0, "s", [], {}, None])


def problem_text(rng):
    """A mutated problem file as text (some as raw token edits, some as deep nesting)."""
    base = copy.deepcopy(rng.choice([QUADRATIC, LOGISTIC]))
    r = rng.random()
    if r >= 0.6:  # a valid file: the flags are then what is being tested
        return json.dumps(base)
    r /= 0.6
    if r < 0.05:  # deep nesting where a number belongs
        depth = rng.choice([100, 1000, 20000, 100000])
        return json.dumps(base).replace("2.0", "[" * depth + "2.0" + "]" * depth, 1)
    if r < 0.10:  # raw token that Python's json would not write
        text = json.dumps(base)
        return text.replace("0.5", rng.choice(RAW_TOKENS), 1)
    if r < 0.13:  # duplicate key
        return json.dumps(base).replace('"kind"', '"kind": "quadratic", "kind"', 1)
    if r < 0.16:  # truncated
        text = json.dumps(base)
        return text[:rng.randrange(len(text))]
    if r < 0.20:  # many clients or a large dimension
        if base["kind"] == "quadratic":
            n = rng.choice([20, 200])
            base["clients"] = [copy.deepcopy(base["clients"][0]) for _ in range(n)]
        else:
            base["batch_size"] = rng.choice(HUGE_INT)
        return json.dumps(base)
    for _ in range(rng.choice([1, 1, 2, 3])):
        base = mutate_value(rng, base)
    return json.dumps(base)


def flag_value(rng, kind):
    r = rng.random()
    if kind == "size":
        return str(rng.choice(SMALL_INT) if r < 0.85 else rng.choice(HUGE_INT))
    if kind == "real":
        if r < 0.85:
            return repr(rng.choice([0.01, 0.05, 0.1, 0.2]))
        return rng.choice(["0", "-0.1", "1e100", "1e-320", "nan", "inf", "1e308", "abc", "0.5x"])
    if kind == "seed":
        if r < 0.8:
            return str(rng.randrange(1000))
        return rng.choice(["1", "0", "-5", "18446744073709551615", "18446744073709551616",
                           "99999999999999999999999", "1.5", ""])
    if kind == "compressor":
        if r < 0.5:
            return "none"
        return rng.choice(["none", "random-k:1", "random-k:0", "qsgd:2", "qsgd:2147483647",
                           "qsgd:-1", "natural", "random-k:99999999999", "bogus", "qsgd:"])
    raise ValueError(kind)


def command(rng, problem_path):
    sub = "bogus" if rng.random() < 0.02 else rng.choice(["predict", "simulate", "simulate"])
    algo = rng.choice(ALGOS[:7] * 20 + ALGOS[7:])
    personalised = algo.startswith("l2")
    args = [sub, "--problem", problem_path, "--algo", algo, "--gamma", flag_value(rng, "real"),
            "--max-seconds", "1"]
    optional = [("--local-steps", "size"), ("--chains", "size"), ("--rounds", "size"),
                ("--burn-in", "size"), ("--seed", "seed"), ("--threads", "size"),
                ("--batch-rounds", "size"), ("--lambda", "real"), ("--p", "real"),
                ("--uplink", "compressor"), ("--downlink", "compressor"),
                ("--participating", "size"), ("--noise", None)]
    if sub == "simulate" and rng.random() < 0.7:  # a well-formed run length, often
        rounds = rng.choice([8, 20, 50])
        args += ["--chains", str(rng.choice([1, 8, 64])), "--rounds", str(rounds),
                 "--seed", str(rng.randrange(99))]
        if not personalised:
            args += ["--burn-in", str(rng.randrange(rounds // 2))]
        optional = [o for o in optional if o[0] not in ("--chains", "--rounds", "--burn-in",
                                                         "--seed")]
    foreign = ({"--local-steps", "--burn-in", "--batch-rounds", "--noise"} if personalised else
               {"--lambda", "--p", "--uplink", "--downlink", "--participating"})
    if algo != "fedrr" and rng.random() < 0.9:
        foreign.add("--noise")
    for flag, kind in optional:
        if flag in foreign and rng.random() < 0.95:
            continue  # an option of another family is refused at once: test it rarely
        if personalised and flag == "--lambda" and rng.random() < 0.9:
            args += [flag, flag_value(rng, kind)]
            continue
        if rng.random() < (0.7 if flag in ("--local-steps", "--chains", "--rounds", "--burn-in",
                                           "--seed") else 0.15):
            if kind is None:
                args += [flag, rng.choice(["independent", "shared", "other"])]
            else:
                args += [flag, flag_value(rng, kind)]
    if rng.random() < 0.03:
        args.append(rng.choice(["--unknown", "--gamma", "extra"]))
    return args


def judge(args, proc, timed_out):
    if timed_out:
        return "timeout"
    err = proc.stderr.decode(errors="replace")
    out = proc.stdout.decode(errors="replace")
    if "Sanitizer" in err or "runtime error:" in err:
        return "sanitizer: " + next(l for l in err.splitlines()
                                    if "Sanitizer" in l or "runtime error:" in l)[:200]
    rc = proc.returncode
    if rc not in (0, 1, 2):
        return f"exit {rc}: {err.strip()[:200]}"
    if rc == 2 and len(err.rstrip("\n").split("\n")) != 1:
        return f"exit 2 with {len(err.splitlines())} stderr lines"
    if rc == 0 and args[0] in ("predict", "simulate"):
        for token in ("NaN", "Infinity", "null"):
            if token in out:
                return f"exit 0 with {token} in stdout"
        try:
            json.loads(out)
        except ValueError:
            return "exit 0 without one JSON object on stdout"
    return None


def run_one(binary, seed, index, timeout, workdir):
    rng = random.Random(f"{seed}:{index}")
    problem = pathlib.Path(workdir) / f"p{index % 64}-{os.getpid()}.json"
    text = problem_text(rng)
    problem.write_text(text)
    args = command(rng, str(problem))
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1", OMP_NUM_THREADS="1")
    try:
        proc = subprocess.run([binary] + args, capture_output=True, timeout=timeout, env=env)
        verdict = judge(args, proc, False)
    except subprocess.TimeoutExpired:
        proc, verdict = None, judge(args, None, True)
    return index, verdict, text, args, (proc.returncode if proc else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", default="", help="folder for failing inputs")
    args = ap.parse_args()
    if args.count < 1 or args.jobs < 1 or not os.access(args.binary, os.X_OK):
        print("campaign.py: need an executable --binary, --count >= 1, --jobs >= 1",
              file=sys.stderr)
        return 2
    failures, exits = [], {}
    with tempfile.TemporaryDirectory() as work, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_one, args.binary, args.seed, i, args.timeout, work)
                   for i in range(args.count)]
        for done, f in enumerate(concurrent.futures.as_completed(futures), 1):
            index, verdict, text, argv, rc = f.result()
            exits[rc] = exits.get(rc, 0) + 1
            if verdict:
                failures.append((index, verdict, text, argv))
            if done % 1000 == 0:
                print(f"campaign: {done}/{args.count} inputs, {len(failures)} failing",
                      file=sys.stderr, flush=True)
    summary = ", ".join(f"exit {k}: {v}" for k, v in sorted(exits.items(), key=str))
    print(f"campaign: {args.count} inputs (seed {args.seed}), {len(failures)} failing; {summary}")
    if args.keep and failures:
        keep = pathlib.Path(args.keep)
        keep.mkdir(parents=True, exist_ok=True)
        for index, verdict, text, argv in failures:
            (keep / f"{index}.json").write_text(text)
            (keep / f"{index}.args").write_text(json.dumps({"argv": argv, "verdict": verdict}))
    for index, verdict, text, argv in sorted(failures)[:50]:
        shown = " ".join(a if len(a) < 60 else a[:57] + "..." for a in argv)
        print(f"  #{index}: {verdict}\n      fedverify {shown}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
