"""The Python API gives the command line's numbers, bit for bit, for the same arguments and seed
(issue 16: "the Python and CLI results for one seed are identical"). Every field the command
line prints is compared exactly (==, no tolerance): both call the same C++ functions."""

import tempfile
import unittest

import numpy as np

import fedverify
from support import CLI, PROBLEM, cli, problem_file


def assert_same(test, from_cli, from_python, path=""):
    """Every field of the CLI's JSON equals the Python value exactly; arrays are NumPy arrays."""
    test.assertIsInstance(from_python, dict, path)
    for key, value in from_cli.items():
        where = f"{path}.{key}" if path else key
        test.assertIn(key, from_python, where)
        got = from_python[key]
        if isinstance(value, dict):
            assert_same(test, value, got, where)
        elif isinstance(value, list) and value and not isinstance(value[0], (str, dict)):
            test.assertIsInstance(got, np.ndarray, where)
            expected = np.array(value, dtype=float)
            test.assertEqual(got.shape, expected.shape, where)
            test.assertTrue(np.array_equal(got, expected), f"{where}: {got} != {expected}")
        else:
            test.assertEqual(got, value, where)
            test.assertIs(type(got), type(value), where)


@unittest.skipUnless(CLI, "FEDVERIFY_CLI (the fedverify executable) not set")
class CliEquality(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = problem_file(self.dir.name)
        self.problem = fedverify.load_problem(self.path)

    def tearDown(self):
        self.dir.cleanup()

    def test_predict_fedavg_and_scaffold(self):
        for algo in ("fedavg", "scaffold", "fedrr"):
            with self.subTest(algo=algo):
                expected = cli("predict", "--problem", self.path, "--algo", algo, "--gamma",
                               "0.05", "--local-steps", "3")
                got = fedverify.predict(self.problem, algo=algo, gamma=0.05, local_steps=3)
                self.assertEqual(set(got), set(expected))
                assert_same(self, expected, got)

    def test_predict_fedopt_with_sampling(self):
        expected = cli("predict", "--problem", self.path, "--algo", "fedopt", "--gamma", "0.02",
                       "--local-steps", "2", "--server", "sgd:lr=0.5", "--participating", "2")
        got = fedverify.predict(self.problem, algo="fedopt", gamma=0.02, local_steps=2,
                                server={"name": "sgd", "lr": 0.5}, participating=2)
        self.assertEqual(set(got), set(expected))
        assert_same(self, expected, got)

    def test_presets_are_the_command_lines(self):
        # A preset's keywords (docs/PYTHON.md, presets) give the command line's numbers, and the
        # run equals fedopt's with the same optimisers (the dict says which preset it was).
        expected = cli("predict", "--problem", self.path, "--algo", "fedprox", "--mu", "0.3",
                       "--gamma", "0.05", "--local-steps", "3")
        got = fedverify.predict(self.problem, "fedprox", gamma=0.05, local_steps=3, mu=0.3)
        self.assertEqual(set(got), set(expected))
        assert_same(self, expected, got)
        self.assertEqual(got["preset"], "fedprox")
        base = fedverify.predict(self.problem, "fedopt", gamma=0.05, local_steps=3,
                                 client="fedprox:mu=0.3")
        del got["preset"]
        assert_same(self, {k: v for k, v in expected.items() if k != "preset"}, base)
        run = ["--chains", "32", "--rounds", "300", "--burn-in", "50", "--seed", "9"]
        expected = cli("simulate", "--problem", self.path, "--algo", "fedavgm", "--momentum",
                       "0.5", "--gamma", "0.05", "--local-steps", "2", *run)
        got = fedverify.simulate(self.problem, "fedavgm", gamma=0.05, local_steps=2, chains=32,
                                 rounds=300, burn_in=50, seed=9, momentum=0.5)
        assert_same(self, expected, got)

    def test_preset_errors_name_the_keyword(self):
        with self.assertRaisesRegex(fedverify.InputError, "^mu: required by algo fedprox"):
            fedverify.predict(self.problem, "fedprox", gamma=0.05)
        with self.assertRaisesRegex(fedverify.InputError, "^mu: only for algo fedprox"):
            fedverify.predict(self.problem, "fedavg", gamma=0.05, mu=0.1)
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'muu'"):
            fedverify.predict(self.problem, "fedprox", gamma=0.05, muu=0.1)

    def test_algorithm_parameters_are_the_command_lines(self):
        # An algorithm's own parameter (fednova's client_steps) as a keyword: a sequence for a
        # per-client one, the same numbers as --client-steps 1,2,4, echoed under "parameters".
        steps = [1, 2, 4, 3, 2][: len(PROBLEM["clients"])]
        text = ",".join(str(h) for h in steps)
        expected = cli("predict", "--problem", self.path, "--algo", "fednova", "--client-steps",
                       text, "--gamma", "0.05")
        got = fedverify.predict(self.problem, "fednova", gamma=0.05, client_steps=steps)
        self.assertEqual(set(got), set(expected))
        assert_same(self, expected, got)
        run = ["--chains", "32", "--rounds", "300", "--burn-in", "50", "--seed", "9"]
        expected = cli("simulate", "--problem", self.path, "--algo", "fednova", "--client-steps",
                       text, "--gamma", "0.05", *run)
        got = fedverify.simulate(self.problem, "fednova", gamma=0.05, chains=32, rounds=300,
                                 burn_in=50, seed=9, client_steps=np.array(steps))
        assert_same(self, expected, got)
        with self.assertRaisesRegex(fedverify.InputError, "^client_steps: required by algo fednova"):
            fedverify.predict(self.problem, "fednova", gamma=0.05)
        with self.assertRaisesRegex(fedverify.InputError, "^client_steps: only for algo fednova"):
            fedverify.predict(self.problem, "fedavg", gamma=0.05, client_steps=2)
        with self.assertRaisesRegex(TypeError, r"client_steps\[1\]: expected a number"):
            fedverify.predict(self.problem, "fednova", gamma=0.05, client_steps=[1, "2"])

    def test_exact_moments_are_predicts(self):
        p = fedverify.predict(self.problem, algo="fedavg", gamma=0.05, local_steps=3)
        mean, cov = fedverify.exact_moments(self.problem, algo="fedavg", gamma=0.05,
                                            local_steps=3)
        self.assertTrue(np.array_equal(mean, p["mean_exact"]))
        self.assertTrue(np.array_equal(cov, p["cov_exact"]))

    def test_simulate_same_seed_same_numbers(self):
        args = ["--gamma", "0.05", "--local-steps", "3", "--chains", "64", "--rounds", "400",
                "--burn-in", "100", "--seed", "12345"]
        expected = cli("simulate", "--problem", self.path, "--algo", "fedavg", *args,
                       "--threads", "2")
        # Another thread count: same seed ⇒ bit-identical results whatever the threads.
        got = fedverify.simulate(self.problem, algo="fedavg", gamma=0.05, local_steps=3,
                                 chains=64, rounds=400, burn_in=100, seed=12345, threads=1)
        self.assertEqual(set(got), set(expected))
        assert_same(self, expected, got)
        # A different seed gives different numbers (the comparison above can fail).
        other = fedverify.simulate(self.problem, algo="fedavg", gamma=0.05, local_steps=3,
                                   chains=64, rounds=400, burn_in=100, seed=12346)
        self.assertFalse(np.array_equal(other["mean"], got["mean"]))

    def test_simulate_scaffold_and_trace(self):
        expected = cli("simulate", "--problem", self.path, "--algo", "scaffold", "--gamma",
                       "0.05", "--local-steps", "2", "--chains", "16", "--rounds", "300",
                       "--burn-in", "50", "--seed", "7")
        got = fedverify.simulate(self.path, algo="scaffold", gamma=0.05, local_steps=2,
                                 chains=16, rounds=300, burn_in=50, seed=7, trace=True)
        trace = got.pop("trace")
        assert_same(self, expected, got)
        self.assertEqual(trace.shape, (250, 2, 16))
        # The trace is what the statistics are computed from: its mean over rounds and chains.
        self.assertTrue(np.allclose(trace.mean(axis=(0, 2)), got["mean"], rtol=0, atol=1e-12))


if __name__ == "__main__":
    unittest.main()
