"""Client weights from Python (docs/PYTHON.md, "Client weights"; THEORY (A1)): the weights are
normalised, weigh the optimum, reach FedAvg's exact law, and are refused by algorithms that
aggregate with equal weights. The expected values are written here from the formulas, not taken
from the C++ code."""

import os
import unittest

import numpy as np

import fedverify
from support import PROBLEM

SOURCE = os.environ.get("FEDVERIFY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


class ClientWeights(unittest.TestCase):
    def setUp(self):
        clients = PROBLEM["clients"]
        self.a = [np.array(c["hessian"]) for c in clients]
        self.b = [np.array(c["optimum"]) for c in clients]
        self.s = [np.array(c["noise_cov"]) for c in clients]
        self.raw = [120.0, 30.0, 50.0]
        self.p = fedverify.quadratic_problem(self.a, self.b, self.s, weights=self.raw)

    def test_weights_are_normalised_and_written(self):
        np.testing.assert_allclose(self.p.weights, np.array(self.raw) / 200.0, rtol=1e-15)
        self.assertEqual([c["weight"] for c in self.p.to_dict()["clients"]], self.raw)
        equal = fedverify.quadratic_problem(self.a, self.b, self.s)
        np.testing.assert_allclose(equal.weights, [1 / 3] * 3, rtol=1e-15)

    def test_fedavg_law_is_the_weighted_one(self):
        # x* solves Σ_c p_c A_c (x − b_c) = 0; at H = 1 (SGD) the exact stationary mean is x*.
        w = np.array(self.raw) / 200.0
        lhs = sum(wc * a for wc, a in zip(w, self.a))
        rhs = sum(wc * a @ b for wc, a, b in zip(w, self.a, self.b))
        x_star = np.linalg.solve(lhs, rhs)
        out = fedverify.predict(self.p, "sgd", gamma=0.05)
        np.testing.assert_allclose(out["x_star"], x_star, rtol=1e-12)
        np.testing.assert_allclose(out["mean_exact"], x_star, rtol=1e-10)
        # (A1) at first order: Cov = γ𝒜(Σ p_c² S_c), 𝒜 solving 𝐇Σ + Σ𝐇 = C (eigenbasis here).
        c = sum(wc * wc * s for wc, s in zip(w, self.s))
        h, v = np.linalg.eigh(lhs)
        ct = v.T @ c @ v
        sigma = 0.05 * v @ (ct / (h[:, None] + h[None, :])) @ v.T
        np.testing.assert_allclose(out["cov_first_order"], sigma, rtol=1e-12)

    def test_data_size_and_errors(self):
        ls = fedverify.load_problem(os.path.join(SOURCE, "examples", "problems", "least-squares-d2.json"))
        weighted = fedverify.with_client_weights(ls, "data-size")
        rows = np.array([len(c["targets"]) for c in ls.clients], dtype=float)
        np.testing.assert_allclose(weighted.weights, rows / rows.sum(), rtol=1e-15)
        with self.assertRaisesRegex(fedverify.InputError, r"clients\[1\]\.weight"):
            fedverify.with_client_weights(self.p, [1.0, -2.0, 3.0])
        with self.assertRaisesRegex(fedverify.InputError, r"weights: expected 3 numbers"):
            fedverify.with_client_weights(self.p, [1.0, 2.0])
        with self.assertRaisesRegex(fedverify.InputError, r"client_weights"):
            fedverify.with_client_weights(self.p, "data-size")
        with self.assertRaisesRegex(fedverify.InputError, r"clients\[\]\.weight.*algo scaffold"):
            fedverify.predict(self.p, "scaffold", gamma=0.05, local_steps=2)


if __name__ == "__main__":
    unittest.main()
