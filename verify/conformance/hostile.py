#!/usr/bin/python3
"""Hostile implementations for `fedverify conformance` (verify/cli/conformance_hostile.sh): each
breaks the JSON-lines protocol in one way a real program can, and fedverify must end the check
with exit 2 naming --exec within its --timeout, in bounded memory — or, for non-finite numbers,
with the verdict "diverged" (exit 1).

  hang            reads the run message, then never answers
  deaf            never reads its input and never writes (sleeps)
  flood           writes a 100 MB line with no newline
  immune          ignores SIGTERM, reads the run message and hangs (needs SIGKILL)
  lingers         runs FedAvg correctly, then does not exit when its input is closed
  nan_grad        runs FedAvg, then from round 3 asks for gradients at NaN (Python's json
                  writes the bare token NaN, which JSON lacks)
  inf_round       runs FedAvg, then reports round 3 with Infinity
"""
import argparse
import json
import pathlib
import signal
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from fedverify_protocol import Oracle  # noqa: E402

MODES = ["hang", "deaf", "flood", "immune", "lingers", "nan_grad", "inf_round"]


def fedavg(oracle, run, mode):
    """Full-participation FedAvg, with the mode's fault planted from round 3."""
    x = np.asarray(run["x0"], dtype=float)
    n, h, gamma = run["clients"], run["local_steps"], run["gamma"]
    for t in range(1, run["rounds"] + 1):
        total = np.zeros_like(x)
        for i in range(n):
            y = x.copy()
            for _ in range(h):
                if mode == "nan_grad" and t >= 3:
                    y[:] = np.nan
                y = y - gamma * oracle.grad(i, y)
            total += y
        x = total / n
        if mode == "inf_round" and t >= 3:
            x[0, 0] = np.inf
        oracle.report(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=MODES)
    mode = parser.parse_args().mode
    if mode == "deaf":
        time.sleep(3600)
        return
    if mode == "immune":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    oracle = Oracle()
    run = oracle.run_message()
    if mode in ("hang", "immune"):
        time.sleep(3600)
    elif mode == "flood":
        chunk = "x" * (1 << 20)
        for _ in range(100):
            sys.stdout.write(chunk)
        sys.stdout.flush()
        time.sleep(3600)
    else:
        fedavg(oracle, run, mode)
        if mode == "lingers":
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(3600)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, json.JSONDecodeError, SystemExit):
        pass  # fedverify ended the run: expected for every mode
