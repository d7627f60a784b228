"""Shared set-up of the Python tests: the command line built beside the module, and a problem."""

import json
import os
import subprocess

CLI = os.environ.get("FEDVERIFY_CLI", "")

# A small heterogeneous quadratic problem (three clients, d = 2), written as a problem file.
PROBLEM = {
    "kind": "quadratic",
    "clients": [
        {"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5],
         "noise_cov": [[0.5, 0.1], [0.1, 0.4]]},
        {"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5],
         "noise_cov": [[0.3, 0.0], [0.0, 0.6]]},
        {"hessian": [[1.5, 0.0], [0.0, 0.5]], "optimum": [0.5, 1.5],
         "noise_cov": [[0.2, 0.05], [0.05, 0.2]]},
    ],
}


def problem_file(directory: str) -> str:
    path = os.path.join(directory, "p.json")
    with open(path, "w") as f:
        json.dump(PROBLEM, f)
    return path


def cli(*args: str) -> dict:
    """Runs the command line and returns its JSON output."""
    out = subprocess.run([CLI, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)
