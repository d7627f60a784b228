"""Claims defined in Python: their verdicts (a correct prediction holds, a planted error fails)
and their report, written by the command line's writer in its format."""

import json
import os
import tempfile
import unittest


import fedverify
from support import PROBLEM

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")


def exact(measure):
    def predict(problem, **setting):
        mean, cov = fedverify.exact_moments(problem, **setting)
        return mean if measure.endswith("mean") else cov
    return predict


class Claims(unittest.TestCase):
    def setUp(self):
        self.problem = fedverify.parse_problem(json.dumps(PROBLEM))
        self.grid = {"local_steps": [1, 2], "gamma": [0.05]}

    def claim(self, claim_id, measure, predict, **kwargs):
        return fedverify.Claim(claim_id, "statement", problem=self.problem, grid=self.grid,
                               predict=predict, measure=measure, **kwargs)

    def test_exact_tolerance(self):
        good = self.claim("t.good", "exact_cov", exact("cov"), tolerance=1e-12)
        self.assertTrue(good.passed)
        # 1 % off: the relative error 0.01 exceeds a tolerance of 0.005.
        off = self.claim("t.off", "exact_cov", lambda p, **s: 1.01 * exact("cov")(p, **s),
                         tolerance=0.005)
        self.assertFalse(off.passed)

    def test_a_grid_over_a_presets_parameter(self):
        # A grid may hold a preset and its parameter (docs/PYTHON.md, presets): FedProx's mean,
        # predicted as fedopt with the proximal client, holds at every mu; FedAvg's mean (mu
        # ignored) fails, so the grid's mu reached the measurement.
        grid = {"algo": ["fedprox"], "mu": [0.1, 0.5], "gamma": [0.05], "local_steps": [3]}

        def fedopt_mean(problem, algo, mu, **setting):
            mean, _ = fedverify.exact_moments(problem, "fedopt", client=f"fedprox:mu={mu!r}",
                                              **setting)
            return mean

        def fedavg_mean(problem, algo, mu, **setting):
            return fedverify.exact_moments(problem, "fedavg", **setting)[0]

        for predict, holds in ((fedopt_mean, True), (fedavg_mean, False)):
            with self.subTest(holds=holds):
                c = fedverify.Claim("p.fedprox", "statement", problem=self.problem, grid=grid,
                                    predict=predict, measure="exact_mean", tolerance=1e-12)
                self.assertEqual(c.passed, holds)

    def test_allowance_for_a_known_remainder(self):
        # The first-order covariance at γHL up to 0.6 is ≈ 8 % off the exact one on the example
        # quadratic: with 1024 chains a point null rejects it, an allowance of 12 % of the largest
        # entry holds and, with margin 15 %, confirms agreement (the rows of the claim files'
        # engine: the same as examples/claims/fedavg_covariance_first_order_allowance.json).
        problem = fedverify.load_problem(os.path.join(EXAMPLES, "problems", "quadratic.json"))

        def first_order(p, **setting):
            return fedverify.predict(p, **setting)["cov_first_order"]

        def claim(**kwargs):
            return fedverify.Claim("a.first-order", "statement", problem=problem,
                                   grid={"gamma": [0.05, 0.1], "local_steps": [2]},
                                   predict=first_order, measure="simulated_cov", chains=1024,
                                   rounds=2200, burn_in=200, **kwargs)

        self.assertFalse(claim().passed)
        rows = claim(allowance=0.12, margin=0.15).run()["rows"]
        self.assertTrue(all(r["passed"] for r in rows))
        self.assertTrue(all(r["equivalence"]["confirmed"] for r in rows))
        self.assertTrue(all(r["equivalence"]["mde"] > 0.12 for r in rows))  # allowance included
        with self.assertRaises(fedverify.InputError) as caught:
            self.claim("a.bad", "exact_cov", exact("cov"), tolerance=1e-9, allowance=0.1)
        self.assertTrue(str(caught.exception).startswith("allowance:"))

    def test_simulated_mean_and_cov(self):
        # The exact moments must pass (false alarm ≤ α = 0.01 per row); 20 % off must fail:
        # with 256 chains × 1800 rounds the MCSE is well under 1 % of the mean.
        run = dict(chains=256, rounds=2000, burn_in=200)
        for measure in ("simulated_mean", "simulated_cov"):
            with self.subTest(measure=measure):
                right = self.claim("s.right", measure, exact(measure), **run)
                rows = right.run(seed=5)["rows"]
                self.assertTrue(all(r["passed"] for r in rows), rows)
                wrong = self.claim("s.wrong", measure,
                                   lambda p, **s: 1.2 * exact(measure)(p, **s), **run)
                self.assertFalse(any(r["passed"] for r in wrong.run(seed=5)["rows"]))
        # Row seeds differ between rows and attempts, and are reproducible.
        c = self.claim("s.seeds", "simulated_mean", exact("mean"), **run)
        a, b, again = c.run(seed=5), c.run(seed=5, attempt=1), c.run(seed=5)
        seeds = [r["data"]["seed"] for r in a["rows"] + b["rows"]]
        self.assertEqual(len(set(seeds)), 4)
        self.assertEqual([r["data"]["seed"] for r in again["rows"]], seeds[:2])

    def test_report_format(self):
        holds = self.claim("r.holds", "exact_mean", exact("mean"), tolerance=1e-12)
        fails = self.claim("r.fails", "simulated_mean", lambda p, **s: exact("mean")(p, **s) + 1,
                           chains=64, rounds=600, burn_in=100)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "report")
            self.assertEqual(fedverify.report([holds, fails], out=out, seed=3), 1)
            with open(os.path.join(out, "results.json")) as f:
                results = json.load(f)
            with open(os.path.join(out, "REPORT.md")) as f:
                md = f.read()
            # One figure per claim, drawn as the command line draws the catalogue's (gnuplot).
            svgs = sorted(f for f in os.listdir(out) if f.endswith(".svg"))
            for svg in svgs:
                with open(os.path.join(out, svg)) as f:
                    self.assertIn("</svg>", f.read())
        self.assertEqual(svgs, ["r_fails.svg", "r_holds.svg"])
        self.assertIn("](r_holds.svg)", md)
        self.assertEqual([c["verdict"] for c in results["claims"]], ["holds", "fails"])
        self.assertEqual([c["id"] for c in results["claims"]], ["r.holds", "r.fails"])
        self.assertEqual([c["passed"] for c in results["claims"]], [True, False])
        self.assertEqual(results["fedverify"]["seed"], 3)
        self.assertEqual(results["fedverify"]["version"], fedverify.__version__)
        row = results["claims"][1]["rows"][0]
        for field in ("setting", "predicted", "measured", "passed", "verdict_class", "gates",
                      "data", "margin", "equivalence_tests", "first_attempt"):
            self.assertIn(field, row)
        self.assertEqual(row["verdict_class"], "fails")  # failed, and failed its rerun too
        self.assertEqual(results["claims"][0]["rows"][0]["verdict_class"], "within tolerance")
        self.assertIn("# fedverify report", md)
        self.assertIn("2 claims checked: 1 holds, 0 inconclusive, 1 fails.", md)
        self.assertIn("### r.fails", md)
        self.assertNotIn("detection_power", results)


if __name__ == "__main__":
    unittest.main()
