"""fedverify.Problem exposes its data and its functions (docs/PYTHON.md, "Problems"): the file's
fields as NumPy arrays, and the value, gradient, Hessian and noise covariance of each client,
checked against formulas written here from the problem formats (docs/PROBLEM_FORMATS.md), not
against the C++ code that computes them."""

import os
import unittest

import numpy as np

import fedverify
from support import PROBLEM

SOURCE = os.environ.get("FEDVERIFY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def example(name):
    return fedverify.load_problem(os.path.join(SOURCE, "examples", "problems", name))


class QuadraticArrays(unittest.TestCase):
    def setUp(self):
        clients = PROBLEM["clients"]
        self.a = [np.array(c["hessian"]) for c in clients]
        self.b = [np.array(c["optimum"]) for c in clients]
        self.s = [np.array(c["noise_cov"]) for c in clients]
        self.p = fedverify.quadratic_problem(self.a, self.b, self.s)
        self.x = np.array([0.3, -0.7])

    def test_fields_are_the_given_arrays(self):
        self.assertEqual(len(self.p.clients), 3)
        for c, client in enumerate(self.p.clients):
            np.testing.assert_array_equal(client["hessian"], self.a[c])
            np.testing.assert_array_equal(client["optimum"], self.b[c])
            np.testing.assert_array_equal(client["noise_cov"], self.s[c])
        self.assertEqual(self.p.to_dict()["kind"], "quadratic")

    def test_functions_follow_the_format(self):
        # f_c(x) = ½(x − b_c)ᵀA_c(x − b_c): gradient A_c(x − b_c), Hessian A_c, noise S_c.
        # Round-off of 2×2 products: a few ulps of entries of size ≤ 10.
        for c in range(3):
            r = self.x - self.b[c]
            np.testing.assert_allclose(self.p.gradient(c, self.x), self.a[c] @ r, rtol=1e-14, atol=1e-14)
            np.testing.assert_array_equal(self.p.hessian(c, self.x), self.a[c])
            np.testing.assert_array_equal(self.p.noise_covariance(c, self.x), self.s[c])
        eig = [np.linalg.eigvalsh(a) for a in self.a]
        self.assertAlmostEqual(self.p.smoothness, max(e.max() for e in eig), places=12)


class LogisticFunctions(unittest.TestCase):
    def test_gradient_and_hessian_are_derivatives_of_the_value(self):
        # Central differences with step h: the remainder is h²/6·|f'''| ≤ 1e-5·… here, and the
        # round-off ε|f|/h ≈ 1e-11; 1e-6 separates both from a wrong factor or sign.
        p = example("logistic.json")
        x = np.array([0.4, -0.3])
        h = 1e-4
        for c in range(p.num_clients):
            g = p.gradient(c, x)
            hess = p.hessian(c, x)
            for i in range(p.dim):
                e = np.zeros(p.dim)
                e[i] = h
                fd = (p.value(c, x + e) - p.value(c, x - e)) / (2 * h)
                self.assertAlmostEqual(g[i], fd, delta=1e-6)
                fd_g = (p.gradient(c, x + e) - p.gradient(c, x - e)) / (2 * h)
                np.testing.assert_allclose(hess[:, i], fd_g, atol=1e-6)
            self.assertEqual(len(p.clients[c]["labels"]), len(p.clients[c]["features"]))


class LeastSquaresFunctions(unittest.TestCase):
    def test_mean_field_from_the_rows(self):
        # Ā_c = mean_j a_j a_jᵀ + λI, b̄_c = mean_j y_j a_j; the field is Ā_c x − b̄_c.
        p = example("least-squares-d2.json")
        l2 = p.to_dict()["l2"]
        x = np.array([0.2, 0.9])
        for c, client in enumerate(p.clients):
            f, y = client["features"], client["targets"]
            a_bar = f.T @ f / len(y) + l2 * np.eye(p.dim)
            b_bar = f.T @ y / len(y)
            np.testing.assert_allclose(p.gradient(c, x), a_bar @ x - b_bar, rtol=1e-13, atol=1e-14)
            np.testing.assert_allclose(p.hessian(c, x), a_bar, rtol=1e-13, atol=1e-14)
            # C_c(x) = Cov_j(a_j(a_jᵀx − y_j))/B over the rows (equal weights).
            residual = f * (f @ x - y)[:, None]
            centred = residual - residual.mean(axis=0)
            cov = centred.T @ centred / len(y) / p.to_dict()["batch_size"]
            np.testing.assert_allclose(p.noise_covariance(c, x), cov, rtol=1e-12, atol=1e-14)


class Errors(unittest.TestCase):
    def test_bad_client_and_point_name_the_argument(self):
        p = example("quadratic.json")
        with self.assertRaisesRegex(fedverify.InputError, r"^client: must lie in \[0, 2\], got 3"):
            p.gradient(3, np.zeros(2))
        with self.assertRaisesRegex(fedverify.InputError, r"^x: expected 2 entries"):
            p.hessian(0, np.zeros(3))
        with self.assertRaisesRegex(fedverify.InputError, r"^x: must be finite"):
            p.value(0, np.array([np.nan, 0.0]))


if __name__ == "__main__":
    unittest.main()
