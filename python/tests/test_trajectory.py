"""The exact finite-time curve (THEORY (T1), ``predict(rounds=T, x0=…)`` and ``fedverify predict
--rounds T --x0 X``) against the simulated chains from the same start: the samplers' own start of
the auxiliary states (Scaffold's variates, FedOpt's momentum at 0) is what the curve assumes, so
this checks that assumption as well as the recursion.

Decision (per algorithm, round and quantity): z = |simulated − exact| / SE, SE the Monte Carlo
standard error over K independent chains, must stay below the two-sided normal quantile at
α = 1e-3 Bonferroni-split over all comparisons (a false alarm on a correct build about once in a
thousand runs)."""

import os
import subprocess
import json
import unittest

import numpy as np
from scipy.stats import norm

import fedverify
from support import CLI

SOURCE = os.environ.get("FEDVERIFY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
PROBLEM = os.path.join(SOURCE, "examples", "problems", "quadratic.json")

RUNS = [
    ("fedavg", {}),
    ("scaffold", {}),
    ("fedrr", {}),
    ("fedopt", {"server": "sgd:lr=1,momentum=0.5"}),
]
ROUNDS, CHAINS, ALPHA = 6, 20000, 1e-3


class ExactTrajectory(unittest.TestCase):
    def test_simulated_chains_follow_the_exact_curve(self):
        p = fedverify.load_problem(PROBLEM)
        comparisons = len(RUNS) * ROUNDS * (p.dim + 1)
        z_max = norm.ppf(1 - ALPHA / (2 * comparisons))
        x0 = np.array([1.5, -1.0])
        for algo, options in RUNS:
            exact = fedverify.predict(p, algo, gamma=0.1, local_steps=2, rounds=ROUNDS, x0=x0,
                                      **options)
            self.assertEqual(len(exact["mse_exact"]), ROUNDS + 1)
            self.assertAlmostEqual(exact["mse_exact"][0], float(np.sum((x0 - exact["x_star"]) ** 2)),
                                   places=12)
            # Both from x0 (simulate's chains start there with x0=; at 0 without it).
            sim = fedverify.simulate(p, algo, gamma=0.1, local_steps=2, chains=CHAINS,
                                     rounds=ROUNDS, burn_in=0, seed=11, trace=True, x0=x0,
                                     **options)
            trace = sim["trace"]  # trace[t] is x_{t+1}: rounds × d × K
            for t in range(ROUNDS):
                x = trace[t]
                mean, se = x.mean(axis=1), x.std(axis=1, ddof=1) / np.sqrt(CHAINS)
                z = np.abs(mean - exact["mean_exact_t"][t + 1]) / se
                self.assertLess(z.max(), z_max, f"{algo}, mean at round {t + 1}: z = {z}")
                sq = np.sum((x - exact["x_star"][:, None]) ** 2, axis=0)
                z_mse = abs(sq.mean() - exact["mse_exact"][t + 1]) / (
                    sq.std(ddof=1) / np.sqrt(CHAINS))
                self.assertLess(z_mse, z_max, f"{algo}, E|x - x*|^2 at round {t + 1}")

    def test_command_line_gives_the_same_numbers(self):
        p = fedverify.load_problem(PROBLEM)
        ours = fedverify.predict(p, "scaffold", gamma=0.1, local_steps=3, rounds=5, x0=[1, 1])
        out = subprocess.run([CLI, "predict", "--problem", PROBLEM, "--algo", "scaffold",
                              "--gamma", "0.1", "--local-steps", "3", "--rounds", "5",
                              "--x0", "[1, 1]"], check=True, capture_output=True, text=True)
        cli = json.loads(out.stdout)
        self.assertEqual(list(ours["mse_exact"]), cli["mse_exact"])
        self.assertEqual(ours["mean_exact_t"].tolist(), cli["mean_exact_t"])

    def test_errors_name_the_argument(self):
        p = fedverify.load_problem(PROBLEM)
        with self.assertRaisesRegex(fedverify.InputError, r"^x0: expected 2 numbers"):
            fedverify.predict(p, "fedavg", gamma=0.1, rounds=3, x0=[1, 2, 3])
        with self.assertRaisesRegex(fedverify.InputError, r"^rounds: must lie in"):
            fedverify.predict(p, "fedavg", gamma=0.1, rounds=-1)
        with self.assertRaisesRegex(fedverify.InputError, r"^x0: .*rounds"):
            fedverify.predict(p, "fedavg", gamma=0.1, x0=[1, 2])
        with self.assertRaisesRegex(fedverify.InputError, r"^participating: .*full participation"):
            fedverify.predict(p, "fedopt", gamma=0.1, participating=1, rounds=3)
        with self.assertRaisesRegex(fedverify.InputError, r"^x0: expected 2 numbers"):
            fedverify.simulate(p, "fedavg", gamma=0.1, chains=2, rounds=3, burn_in=0, seed=1,
                               x0=[1.0])


if __name__ == "__main__":
    unittest.main()
