"""Formulas in Python (docs/PYTHON.md, "Formulas"): fedverify.formula and Claim(predict="…") use
the claim files' evaluator, so a formula string gives the numbers of the equivalent Python
callable, and the 30 %-off variant is refuted by a Python Claim exactly as by its claim file."""

import json
import os
import tempfile
import unittest

import numpy as np

import fedverify

SOURCE = os.environ.get("FEDVERIFY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLES = os.path.join(SOURCE, "examples")


def first_order_cov(problem, **setting):
    """FedAvg's first-order covariance as a Python callable, from fedverify.predict."""
    return fedverify.predict(problem, **setting)["cov_first_order"]


class Formula(unittest.TestCase):
    def setUp(self):
        self.problem = fedverify.load_problem(os.path.join(EXAMPLES, "problems", "quadratic.json"))

    def test_the_string_gives_the_callables_numbers(self):
        for gamma, h in ((0.005, 1), (0.02, 4)):
            with self.subTest(gamma=gamma, local_steps=h):
                p = fedverify.predict(self.problem, gamma=gamma, local_steps=h)
                # A block is the predicted quantity itself, bit for bit.
                np.testing.assert_array_equal(
                    fedverify.formula(self.problem, "cov_first_order", gamma=gamma,
                                      local_steps=h), p["cov_first_order"])
                # THEORY (F2) and (F3) written as formulas: FedAvg's first-order moments.
                np.testing.assert_allclose(
                    fedverify.formula(self.problem, "(γ/N) * ACbar", gamma=gamma, local_steps=h),
                    p["cov_first_order"], rtol=1e-14, atol=0)
                np.testing.assert_allclose(
                    fedverify.formula(self.problem, "x_star + gamma*(H - 1)*b_h + gamma*b_s",
                                      gamma=gamma, local_steps=h),
                    p["mean_first_order"], rtol=1e-14, atol=0)
        mean, cov = fedverify.exact_moments(self.problem, gamma=0.01, local_steps=2)
        np.testing.assert_array_equal(
            fedverify.formula(self.problem, "cov_exact", gamma=0.01, local_steps=2), cov)
        sigma = fedverify.formula(self.problem, "trace(Cbar) - sigma2_star", gamma=0.01)
        self.assertIsInstance(sigma, float)
        self.assertAlmostEqual(sigma, 0.0, places=14)

    def test_a_claim_with_a_string_decides_as_with_the_callable(self):
        grid = {"gamma": [0.0025, 0.005, 0.01, 0.02], "local_steps": [1, 4]}
        rows = {}
        for name, predict in (("string", "(gamma/N) * ACbar"), ("callable", first_order_cov)):
            claim = fedverify.Claim(f"f.{name}", "s", problem=self.problem, grid=grid,
                                    predict=predict, measure="exact_cov", rule="remainder_order",
                                    order=1.5)
            rows[name] = claim.run()["rows"]
            self.assertTrue(all(r["passed"] for r in rows[name]), name)
        for a, b in zip(rows["string"], rows["callable"]):
            np.testing.assert_allclose(a["data"]["errors"], b["data"]["errors"], rtol=1e-12)
        self.assertEqual(
            fedverify.Claim("f.text", "s", problem=self.problem, grid=grid, predict="I * gamma",
                            measure="exact_cov", tolerance=1.0).formula, "I * gamma")

    def test_thirty_percent_off_is_refuted_as_by_the_claim_file(self):
        path = os.path.join(EXAMPLES, "claims", "fedavg_covariance_30pct_off.json")
        with open(path) as f:
            spec = json.load(f)
        with tempfile.TemporaryDirectory() as out:
            results = fedverify.check(path, out=out, threads=2)
            self.assertEqual(int(results), 1)  # refuted
            with open(os.path.join(out, "results.json")) as f:
                file_rows = json.load(f)["claims"][0]["rows"]
        grid = dict(spec["grid"], **spec["options"])
        claim = fedverify.Claim("p.off", "s", problem=self.problem, grid=grid,
                                predict=spec["predicted"]["formula"], measure="exact_cov",
                                rule="tolerance", tolerance=spec["decision"]["tolerance"])
        rows = claim.run()["rows"]
        self.assertFalse(claim.passed)
        self.assertEqual([r["passed"] for r in rows], [r["passed"] for r in file_rows])
        self.assertEqual([False] * 2, [r["passed"] for r in rows])
        for python_row, file_row in zip(rows, file_rows):
            self.assertAlmostEqual(python_row["data"]["relative_error"],
                                   file_row["data"]["relative_error"], places=12)
            self.assertGreater(python_row["data"]["relative_error"], 0.25)
        # The formula without the factor holds under the same rule.
        right = fedverify.Claim("p.right", "s", problem=self.problem, grid=grid,
                                predict="(gamma/N) * ACbar", measure="exact_cov",
                                tolerance=spec["decision"]["tolerance"])
        self.assertTrue(right.passed)

    def test_errors(self):
        with self.assertRaises(fedverify.InputError) as e:
            fedverify.Claim("e", "s", problem=self.problem, grid={"gamma": [0.01]},
                            predict="(gamma/N) * ACbarr", measure="exact_cov", tolerance=0.1)
        self.assertIn("predict: unknown name 'ACbarr' at 13 (did you mean ACbar?)",
                      str(e.exception))
        with self.assertRaises(fedverify.InputError) as e:
            fedverify.Claim("e", "s", problem=self.problem, grid={"gamma": [0.01]},
                            predict="ACbar", measure="exact_mean", tolerance=0.1)
        self.assertIn("predict: the formula's value is a 2×2 matrix; a mean needs a 2-vector",
                      str(e.exception))
        with self.assertRaises(fedverify.InputError) as e:
            fedverify.formula(self.problem, "x_star + ACbar", gamma=0.01)
        self.assertIn("text: cannot add a 2-vector and a 2×2 matrix at 8", str(e.exception))
        with self.assertRaises(fedverify.InputError) as e:
            fedverify.formula(self.problem, "ACbar / (H - 2)", gamma=0.01, local_steps=2)
        self.assertIn("not finite at gamma = 0.01, local_steps = 2", str(e.exception))
        with self.assertRaises(TypeError):
            fedverify.Claim("e", "s", problem=self.problem, grid={"gamma": [0.01]}, predict=3,
                            measure="exact_cov", tolerance=0.1)
        names = [b[0] for b in fedverify.formula_blocks()]
        for name in ("gamma", "H", "N", "S", "ACbar", "b_h", "cov_exact", "I"):
            self.assertIn(name, names)


if __name__ == "__main__":
    unittest.main()
