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
diagnostics to stderr) — unless fedverify runs with --protocol-fds, which moves the protocol to
file descriptors 3 and 4 (FEDVERIFY_PROTOCOL_FDS=3,4; this class picks them up) and sends stdout
to stderr.

Per-model mode (`fedverify conformance --per-model`): each run message describes ONE chain (one
model, as a framework trains it): "chains": 1, "x0": [[...d...]], and "chain": k, the chain's
index in the check — seed your own randomness (client sampling) from (seed, chain), e.g.
numpy.random.default_rng([seed, chain]). After round T the next line is another run message, or
the end of the input: then exit (status 0). `Oracle.runs()` yields the run messages until then;
fedverify runs several such processes side by side (--workers).
"""
import json
import os
import sys

import numpy as np


def _ended():
    """fedverify ended the run (the iterates diverged, or it refused a message and said why on its
    stderr): stop at once and quietly, without flushing into the closed pipe."""
    os._exit(0)


class Oracle:
    """fedverify's side of the pipe: gradients on request, iterates reported."""

    def __init__(self, inp=None, out=None):
        # `fedverify conformance --protocol-fds` runs the protocol on the file descriptors named
        # in FEDVERIFY_PROTOCOL_FDS ("3,4": read, write), leaving stdout free for prints.
        fds = os.environ.get("FEDVERIFY_PROTOCOL_FDS")
        if inp is None and out is None and fds:
            read_fd, write_fd = (int(f) for f in fds.split(","))
            inp, out = os.fdopen(read_fd, "r"), os.fdopen(write_fd, "w")
        self._in = sys.stdin if inp is None else inp
        self._out = sys.stdout if out is None else out

    def run_message(self):
        line = self._in.readline()
        if not line:
            raise SystemExit("fedverify_protocol: no run message on stdin")
        run = json.loads(line)
        if run.get("type") != "run":
            raise SystemExit(f"fedverify_protocol: expected a run message, got {line[:80]}")
        return run

    def runs(self):
        """The run messages of per-model mode, one per chain, until fedverify closes the input."""
        while True:
            line = self._in.readline()
            if not line:
                return
            run = json.loads(line)
            if run.get("type") != "run":
                raise SystemExit(f"fedverify_protocol: expected a run message, got {line[:80]}")
            yield run

    def _send(self, message):
        try:
            self._out.write(json.dumps(message) + "\n")
            self._out.flush()
        except BrokenPipeError:
            _ended()

    def grad(self, client, x):
        """Stochastic gradients at the K points x (K × d) of `client` (an int, or K ints)."""
        if not isinstance(client, int):
            client = [int(c) for c in client]
        self._send({"type": "grad", "client": client, "x": x.tolist()})
        line = self._in.readline()
        if not line:
            _ended()
        return np.asarray(json.loads(line)["grad"], dtype=float)

    def report(self, x):
        self._send({"type": "round", "x": x.tolist()})
