"""fedverify.generate_garnet_td and generate_diabetes (docs/generators-linear-sa.md): the text is
the C++ generator's JSON (same seed ⇒ same bytes), bad options name the field, and the independent
NumPy reference verify/independent/linear_sa_fixed_point.py runs on both kinds: its two
computations of FedAvg's stationary mean (SCAFFLSA's closed form and the mean round's fixed point)
agree to round-off, and the Garnet clients' Ā_c are stable and not symmetric."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import fedverify

SOURCE = os.environ.get("FEDVERIFY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
REFERENCE = os.path.join(SOURCE, "verify", "independent", "linear_sa_fixed_point.py")


def reference(text, gamma, local_steps):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "p.json")
        with open(path, "w") as f:
            f.write(text)
        out = subprocess.run([sys.executable, REFERENCE, path, "--gamma", str(gamma),
                              "--local-steps", str(local_steps)],
                             check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


class GeneratorsTest(unittest.TestCase):
    def test_garnet(self):
        text = fedverify.generate_garnet_td(states=12, features=4, clients=3,
                                            kernel_heterogeneity=0.5, seed=4)
        self.assertEqual(text, fedverify.generate_garnet_td(states=12, features=4, clients=3,
                                                            kernel_heterogeneity=0.5, seed=4))
        j = json.loads(text)
        self.assertEqual(j["kind"], "linear-sa")
        self.assertEqual(j["generator"]["name"], "garnet-td")
        self.assertEqual(j["generator"]["seed"], 4)
        self.assertEqual(len(j["clients"]), 3)
        r = reference(text, gamma=0.1, local_steps=5)
        # Two solves of an 4×4 system with condition ≲ 1e3: ~1e-13; 1e-10 leaves a margin.
        self.assertLess(r["closed_form_vs_solve"], 1e-10)
        self.assertGreater(r["min_real_eigenvalue"], 0.0)
        self.assertEqual(r["clients_symmetric"], [False] * 3)
        self.assertGreater(r["fedavg_bias_norm"], 0.0)  # heterogeneous clients, H > 1
        # H = 1: FedAvg is SGD on the averaged field, its mean is x* (up to round-off).
        r1 = reference(text, gamma=0.1, local_steps=1)
        self.assertLess(r1["fedavg_bias_norm"], 1e-10)

    def test_diabetes(self):
        text = fedverify.generate_diabetes(clients=5, split="covariate-shift", l2=0.1)
        j = json.loads(text)
        self.assertEqual(j["kind"], "least-squares")
        self.assertEqual(sum(len(c["targets"]) for c in j["clients"]), 442)
        r = reference(text, gamma=0.02, local_steps=4)
        self.assertLess(r["closed_form_vs_solve"], 1e-10)
        self.assertEqual(r["clients_symmetric"], [True] * 5)
        self.assertEqual(r["dim"], 11)

    def test_errors_name_the_field(self):
        with self.assertRaisesRegex(fedverify.InputError, "branching"):
            fedverify.generate_garnet_td(branching=0)
        with self.assertRaisesRegex(fedverify.InputError, "feature_map"):
            fedverify.generate_garnet_td(feature_map="binary")
        with self.assertRaisesRegex(TypeError, "states:"):
            fedverify.generate_garnet_td(states=3.0)
        with self.assertRaisesRegex(fedverify.InputError, "split"):
            fedverify.generate_diabetes(split="label-skew")
        with self.assertRaisesRegex(fedverify.InputError, "alpha"):
            fedverify.generate_diabetes(alpha=0.0)
        with self.assertRaisesRegex(TypeError, "standardise_target"):
            fedverify.generate_diabetes(standardise_target=1)


if __name__ == "__main__":
    unittest.main()
