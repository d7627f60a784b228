"""fedverify.problem_from_csv (docs/PYTHON.md; docs/PROBLEM_FORMATS.md "From a CSV file"): the
text is the command line's, byte for byte (one C++ implementation); the problem's rows are the
CSV's rows standardised as documented, recomputed here with NumPy from the file; the file loads
and predict runs on it; bad arguments name the argument."""

import csv
import os
import subprocess
import tempfile
import unittest

import numpy as np

import fedverify
from support import CLI

SOURCE = os.environ.get("FEDVERIFY_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
CANCER = os.path.join(SOURCE, "examples", "problems", "breast-cancer.csv")
DIABETES = os.path.join(SOURCE, "examples", "problems", "diabetes.csv")


def read_table(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


class ProblemFromCsvTest(unittest.TestCase):
    def test_same_text_as_the_command_line(self):
        text = fedverify.problem_from_csv(CANCER, label="diagnosis", clients=3, split="dirichlet",
                                          alpha=0.5, seed=11)
        if CLI:
            out = subprocess.run([CLI, "problem", "from-csv", CANCER, "--label", "diagnosis",
                                  "--clients", "3", "--split", "dirichlet", "--alpha", "0.5",
                                  "--seed", "11"], check=True, capture_output=True, text=True)
            self.assertEqual(text, out.stdout)
        self.assertEqual(text, fedverify.problem_from_csv(
            CANCER, label="diagnosis", clients=3, split="dirichlet", alpha=0.5, seed=11))
        self.assertNotEqual(text, fedverify.problem_from_csv(
            CANCER, label="diagnosis", clients=3, split="dirichlet", alpha=0.5, seed=12))

    def test_rows_are_the_standardised_table(self):
        header, rows = read_table(CANCER)
        label = header.index("diagnosis")
        x = np.array([[float(v) for i, v in enumerate(r) if i != label] for r in rows])
        z = (x - x.mean(axis=0)) / x.std(axis=0)  # population standard deviation
        expected = sorted(tuple(np.round(np.append(zr, 1.0), 9)) + (1 if r[label] == "malignant" else -1,)
                          for zr, r in zip(z, rows))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.json")
            text = fedverify.problem_from_csv(CANCER, label="diagnosis", clients=4, seed=2,
                                              out=path)
            with open(path) as f:
                self.assertEqual(f.read(), text)
            problem = fedverify.load_problem(path)
        self.assertEqual((problem.kind, problem.num_clients, problem.dim), ("logistic", 4, 7))
        got = sorted(tuple(np.round(a, 9)) + (int(y),)
                     for c in problem.clients for a, y in zip(c["features"], c["labels"]))
        self.assertEqual(len(got), len(rows))
        np.testing.assert_allclose(np.array(got), np.array(expected), atol=2e-9)
        sizes = [len(c["labels"]) for c in problem.clients]
        self.assertLessEqual(max(sizes) - min(sizes), 1)
        out = fedverify.predict(problem, "fedavg", gamma=0.05, local_steps=2)
        self.assertEqual(out["x_star"].shape, (7,))

    def test_least_squares_by_column(self):
        header, rows = read_table(DIABETES)
        text = fedverify.problem_from_csv(DIABETES, kind="least-squares", label="progression",
                                          split="by-column", client_column="sex",
                                          standardise=False, intercept=False)
        problem = fedverify.parse_problem(text)
        sex = header.index("sex")
        values = sorted({r[sex] for r in rows}, key=float)
        self.assertEqual(problem.num_clients, len(values))
        for value, client in zip(values, problem.clients):
            mine = [r for r in rows if r[sex] == value]
            self.assertEqual(sorted(client["targets"]),
                             sorted(float(r[header.index("progression")]) for r in mine))
        self.assertEqual(problem.dim, len(header) - 2)

    def test_errors_name_the_argument(self):
        with self.assertRaisesRegex(fedverify.InputError, "client_column: required"):
            fedverify.problem_from_csv(CANCER, label="diagnosis", split="by-column")
        with self.assertRaisesRegex(fedverify.InputError, 'label: no column named "y"'):
            fedverify.problem_from_csv(CANCER, label="y", clients=2)
        with self.assertRaisesRegex(fedverify.InputError, "clients: client 143 would receive"):
            fedverify.problem_from_csv(CANCER, label="diagnosis", clients=1000)
        with self.assertRaisesRegex(TypeError, "features"):
            fedverify.problem_from_csv(CANCER, label="diagnosis", clients=2, features="radius")
        with self.assertRaisesRegex(TypeError, "standardise"):
            fedverify.problem_from_csv(CANCER, label="diagnosis", clients=2, standardise=1)


if __name__ == "__main__":
    unittest.main()
