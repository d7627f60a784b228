#!/usr/bin/python3
"""Limit report: how close each sampler kernel is to what this machine's components allow.

Measures, with build/engine_bench on the machine at hand (CPU time, the median of --reps runs
taken one after the other, so that a busy machine shows as spread, not as bias):
- component_normals_box_muller: ns per standard normal (Philox4x32 + Box–Muller, 8 chains);
- component_normals_philox_only: ns per Philox word (one word per normal or per index);
- component_fma_peak: GFLOP/s of one core (16 independent FMA chains on the widest vector
  register the build targets: zmm on AVX-512, ymm on AVX2 + FMA);
- component_cpu_clock: the core clock from a chain of dependent scalar FMAs (latency 4 cycles on
  AMD Zen 3, 4 and 5 and on Intel Ice Lake / Sapphire Rapids), to state the figures in cycles;
- the kernels (K = 4096 chains, one thread): quadratic_fedavg d = 10 and d = 100,
  logistic_fedavg d = 10 — ns per chain-step of CPU time;
and prints the limit of each kernel and the fraction of it reached (limit / measured):

  quadratic, dimension d:  d normals × t_normal + (2d² + d(d+1) + 3d) flops / peak
      (bench/README.md, run 11: A y dense, R z triangular, the step; one normal per coordinate)
  logistic, dimension d, batch 1:  1 Philox word × t_word + (5d + 34) flops / peak
      (the index draw; s = ãᵀy 2d, the update y ← (1 − γλ)y + c ã 3d, the weight γ/(1 + eˢ) about
      34: range reduction 4, the degree-13 polynomial 26, scaling, 1 + eˢ, the division; a lower
      bound — it leaves out the row fetch and the transpose of the sampled rows, run 6)

Every figure is printed with the CPU model it was measured on. The load average before and after
is printed too: on a shared machine CPU time is the usable measure, but a busy sibling core still
shares caches and the memory bus.

Run: /usr/bin/python3 bench/limits.py --engine-bench build/engine_bench [--reps 5]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess

COMPONENTS = (r"component_fma_peak$|component_normals_box_muller$|component_normals_philox_only$"
              r"|component_cpu_clock$")
KERNELS = ("quadratic_fedavg/K:4096/threads:1/d:10/|quadratic_fedavg/K:4096/threads:1/d:100/"
           "|logistic_fedavg/K:4096/threads:1/")


def cpu_model():
    """Model name, vendor family/model and the widest vector extension, from /proc/cpuinfo."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if ":" in line:
                    key, value = (s.strip() for s in line.split(":", 1))
                    fields.setdefault(key, value)
    except OSError:
        return platform.processor() or "unknown CPU"
    flags = fields.get("flags", "").split()
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE/AVX"
    return (f"{fields.get('model name', 'unknown')} (family {fields.get('cpu family', '?')}, "
            f"model {fields.get('model', '?')}, {isa}{' + FMA' if 'fma' in flags else ''}, "
            f"{os.cpu_count()} logical CPUs)")


def run_bench(binary, flt, min_time):
    out = subprocess.run([binary, f"--benchmark_min_time={min_time}", "--benchmark_format=json",
                          f"--benchmark_filter={flt}"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)["benchmarks"]


def kernel_ns(bm):
    """CPU ns per chain-step of a kernel benchmark (time unit ms, chain_steps per real second)."""
    steps_per_iteration = bm["chain_steps"] * bm["real_time"] * 1e-3
    return bm["cpu_time"] * 1e6 / steps_per_iteration


def measure(binary, reps, min_time):
    samples = {}
    for _ in range(reps):
        for bm in run_bench(binary, COMPONENTS, min_time):
            name = bm["name"]
            if name == "component_fma_peak":
                value = bm["GFLOPs"]
            elif name == "component_cpu_clock":
                value = bm["GHz_if_fma_latency_4"]
            else:  # an inverted rate: seconds per normal (per word) in the JSON
                value = bm["ns_per_chain_step"] * 1e9
            samples.setdefault(name, []).append(value)
        for bm in run_bench(binary, KERNELS, min_time):
            name = bm["name"].removesuffix("/real_time")
            samples.setdefault(name, []).append(kernel_ns(bm))
    return samples


def quadratic_flops(d):
    return 2 * d * d + d * (d + 1) + 3 * d


def logistic_flops(d):
    return 5 * d + 34


def load_average():
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine-bench", default="build/engine_bench")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.5)
    args = parser.parse_args()
    cpu = cpu_model()
    before = load_average()
    s = measure(args.engine_bench, args.reps, args.min_time)
    after = load_average()

    def med(name):
        return statistics.median(s[name])

    def spread(name):
        return f"{min(s[name]):.3g}–{max(s[name]):.3g}"

    t_normal = med("component_normals_box_muller")
    t_word = med("component_normals_philox_only")
    peak = med("component_fma_peak")  # GFLOP/s = flops per ns
    print(f"CPU: {cpu}")
    print(f"load average (1/5/15 min) before: {before}; after: {after}")
    print(f"median of {args.reps} runs, CPU time; min–max in parentheses\n")
    print("| component (this CPU) | median | min–max |")
    print("|---|---|---|")
    print(f"| Box–Muller normal, ns | {t_normal:.3g} | {spread('component_normals_box_muller')} |")
    print(f"| Philox word, ns | {t_word:.3g} | {spread('component_normals_philox_only')} |")
    print(f"| FMA peak of one core, GFLOP/s | {peak:.3g} | {spread('component_fma_peak')} |")
    print(f"| core clock, GHz (FMA latency 4) | {med('component_cpu_clock'):.3g} "
          f"| {spread('component_cpu_clock')} |")
    print()
    rows = [
        ("quadratic d = 10", "quadratic_fedavg/K:4096/threads:1/d:10", 10 * t_normal,
         quadratic_flops(10)),
        ("quadratic d = 100", "quadratic_fedavg/K:4096/threads:1/d:100", 100 * t_normal,
         quadratic_flops(100)),
        ("logistic d = 10 (lower bound)", "logistic_fedavg/K:4096/threads:1", t_word,
         logistic_flops(10)),
    ]
    print("| kernel, 1 thread, K = 4096 (this CPU) | measured ns/chain-step | random numbers ns "
          "| flops at peak ns | limit ns | fraction of the limit reached |")
    print("|---|---|---|---|---|---|")
    for label, name, random_ns, flops in rows:
        measured = med(name)
        arithmetic = flops / peak
        limit = random_ns + arithmetic
        print(f"| {label} | {measured:.3g} ({spread(name)}) | {random_ns:.3g} | {arithmetic:.3g} "
              f"| {limit:.3g} | {limit / measured:.0%} |")


if __name__ == "__main__":
    main()
