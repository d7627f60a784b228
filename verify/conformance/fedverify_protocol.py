"""The implementation side of `fedverify conformance`'s JSON-lines protocol (docs/DESIGN-EXTENSIONS.md,
"Conformance"), for Python implementations; copy it beside your own code.

fedverify starts the implementation as a child process and writes one line to its stdin:
  {"type": "run", "algorithm": "fedavg" | "scaffold" | "fedprox", "dim": d, "clients": N,
   "gamma": γ, "local_steps": H, "participating": S, "mu": μ (fedprox), "chains": K,
   "rounds": T, "seed": s, "x0": [[...d...] × K]}
The implementation then runs T rounds of K independent chains (control variates start at 0) and
asks fedverify for every stochastic gradient:
  → {"type": "grad", "client": i (or K clients, one per chain), "x": [[...] × K]}
  ← {"grad": [[...] × K]}
and reports each round's global iterates:
  → {"type": "round", "x": [[...] × K]}
then exits (status 0) after round T. Non-finite numbers (json's NaN, Infinity) are divergence:
fedverify ends the run there, closes the pipes and terminates the process. Each message must be
answered within --timeout seconds (default 60), and stdout carries the protocol only (print
diagnostics to stderr).
"""
import json
import sys

import numpy as np


class Oracle:
    """fedverify's side of the pipe: gradients on request, iterates reported."""

    def __init__(self, inp=sys.stdin, out=sys.stdout):
        self._in, self._out = inp, out

    def run_message(self):
        line = self._in.readline()
        if not line:
            raise SystemExit("fedverify_protocol: no run message on stdin")
        run = json.loads(line)
        if run.get("type") != "run":
            raise SystemExit(f"fedverify_protocol: expected a run message, got {line[:80]}")
        return run

    def _send(self, message):
        self._out.write(json.dumps(message) + "\n")
        self._out.flush()

    def grad(self, client, x):
        """Stochastic gradients at the K points x (K × d) of `client` (an int, or K ints)."""
        if not isinstance(client, int):
            client = [int(c) for c in client]
        self._send({"type": "grad", "client": client, "x": x.tolist()})
        line = self._in.readline()
        if not line:  # fedverify ended the run (the iterates diverged): stop quietly
            raise SystemExit(0)
        return np.asarray(json.loads(line)["grad"], dtype=float)

    def report(self, x):
        self._send({"type": "round", "x": x.tolist()})
