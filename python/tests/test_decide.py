"""fedverify.decide on constructed inputs, against statistics computed here independently
(NumPy and SciPy's distributions), including inputs where each rule must fail."""

import math
import unittest

import numpy as np
from scipy import stats

from fedverify import decide


class Decide(unittest.TestCase):
    def test_hotelling_one_dimension_is_the_t_test(self):
        # d = 1: F = t², F_{1−α}(1, G − 1) = t²_{1−α/2, G−1}.
        rng = np.random.default_rng(1)
        x = rng.normal(0.3, 1.0, size=20)
        t = (x.mean() - 0.0) / (x.std(ddof=1) / math.sqrt(len(x)))
        r = decide.hotelling(x[:, None], [0.0], alpha=0.05)
        self.assertAlmostEqual(r.statistic, t * t, delta=1e-12 * t * t)
        self.assertAlmostEqual(r.threshold, stats.t.ppf(0.975, 19) ** 2, delta=1e-9)
        self.assertEqual(r.passed, abs(t) <= stats.t.ppf(0.975, 19))
        self.assertAlmostEqual(r.p_value, 2 * stats.t.sf(abs(t), 19), delta=1e-9)

    def test_hotelling_vector(self):
        rng = np.random.default_rng(2)
        x = rng.normal(size=(50, 3))
        ok = decide.hotelling(x, x.mean(axis=0), alpha=0.01)  # prediction = the sample mean
        self.assertTrue(ok.passed)
        self.assertEqual(ok.statistic, 0.0)
        far = decide.hotelling(x, x.mean(axis=0) + 1.0, alpha=0.01)  # 1 = 7 standard errors
        self.assertFalse(far.passed)
        self.assertLess(far.p_value, 1e-6)
        # From mean, its covariance and the number of batches: the same test.
        mean, cov = x.mean(axis=0), np.cov(x.T) / 50
        same = decide.hotelling(prediction=mean + 1.0, mean=mean, mean_cov=cov, batches=50,
                                alpha=0.01)
        self.assertAlmostEqual(same.statistic, far.statistic, delta=1e-9 * far.statistic)

    def test_equivalence(self):
        # θ̂ = 0, se = 1, normal reference: confirmed iff both ends are beyond z_{1−α}.
        z = stats.norm.ppf(0.95)
        self.assertTrue(decide.equivalence(estimate=0.0, se=1.0, lower=-z - 0.01,
                                           upper=z + 0.01, alpha=0.05).passed)
        self.assertFalse(decide.equivalence(estimate=0.0, se=1.0, lower=-z + 0.01,
                                            upper=z + 0.01, alpha=0.05).passed)
        # From replications: Student's t with G − 1 degrees of freedom.
        x = np.array([0.9, 1.1, 1.0, 1.05, 0.95])
        r = decide.equivalence(x, 0.5, 1.5, alpha=0.05)
        se = x.std(ddof=1) / math.sqrt(5)
        self.assertAlmostEqual(r.statistic, 0.5 / se, delta=1e-9)
        # Student-t quantiles are solved numerically on both sides (to ~1e-9 relative).
        self.assertAlmostEqual(r.threshold, stats.t.ppf(0.95, 4), delta=1e-8)
        self.assertTrue(r.passed)

    def test_slope(self):
        x = np.array([0.01, 0.02, 0.04, 0.08, 0.16])
        y = 3.0 * x**2 * (1 + 0.01 * np.array([1, -1, 1, -1, 1]))
        b, a = np.polyfit(np.log(x), np.log(y), 1)
        r = decide.slope(x, y, 1.5, alpha=0.01)
        self.assertAlmostEqual(r.slope, b, delta=1e-10)
        self.assertTrue(r.passed)
        self.assertFalse(decide.slope(x, y, 2.1, alpha=0.01).passed)
        self.assertTrue(decide.slope_interval(x, y, 2.0, alpha=0.01).passed)
        self.assertFalse(decide.slope_interval(x, y, 1.0, alpha=0.01).passed)

    def test_z_rules(self):
        z = stats.norm.ppf(0.995)
        r = decide.z_agreement(estimate=1.0, se=0.1, predicted=1.5, alpha=0.01)
        self.assertAlmostEqual(r.statistic, 5.0, delta=1e-12)
        self.assertAlmostEqual(r.threshold, z, delta=1e-9)
        self.assertFalse(r.passed)
        self.assertTrue(decide.z_agreement(estimate=1.0, se=0.1, predicted=1.2,
                                           alpha=0.01).passed)
        self.assertTrue(decide.mean_at_most(estimate=1.0, se=0.1, bound=1.0, alpha=0.01).passed)
        self.assertFalse(decide.mean_at_most(estimate=1.5, se=0.1, bound=1.0, alpha=0.01).passed)
        low, high = np.array([1.0, 1.1, 0.9, 1.0]), np.array([2.0, 2.1, 1.9, 2.0])
        self.assertTrue(decide.difference_exceeds(low, high, alpha=0.01).passed)
        self.assertFalse(decide.difference_exceeds(high, low, alpha=0.01).passed)

    def test_matrix_agreement_and_bonferroni(self):
        m = np.array([[1.0, 0.1], [0.1, 2.0]])
        se = np.full((2, 2), 0.01)
        self.assertTrue(decide.matrix_agreement(m, m + 0.01, se, alpha=0.01).passed)
        self.assertFalse(decide.matrix_agreement(m, m + 0.1, se, alpha=0.01).passed)
        self.assertTrue(decide.matrix_agreement(m, m + 0.1, se, alpha=0.01,
                                                allowance=np.full((2, 2), 0.1)).passed)
        r = decide.bonferroni([1.0, 2.0], [0.1, 0.1], [1.0, 2.5], alpha=0.01)
        self.assertFalse(r.passed)
        self.assertAlmostEqual(r.statistic, 5.0, delta=1e-12)
        self.assertAlmostEqual(r.threshold, stats.norm.ppf(1 - 0.01 / 4), delta=1e-9)


if __name__ == "__main__":
    unittest.main()
