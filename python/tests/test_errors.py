"""Bad input raises fedverify.InputError (a ValueError) whose message names the argument as the
Python API spells it; a wrong type raises TypeError naming it."""

import tempfile
import unittest

import numpy as np

import fedverify
from support import PROBLEM


class Errors(unittest.TestCase):
    def setUp(self):
        self.problem = fedverify.parse_problem(__import__("json").dumps(PROBLEM))

    def assert_input_error(self, prefix, call, *args, **kwargs):
        with self.assertRaises(fedverify.InputError) as caught:
            call(*args, **kwargs)
        self.assertIsInstance(caught.exception, ValueError)
        message = str(caught.exception)
        self.assertTrue(message.startswith(prefix), f"{message!r} does not start with {prefix!r}")
        self.assertNotIn("--", message)

    def assert_type_error(self, prefix, call, *args, **kwargs):
        with self.assertRaises(TypeError) as caught:
            call(*args, **kwargs)
        self.assertTrue(str(caught.exception).startswith(prefix), str(caught.exception))

    def test_predict_arguments(self):
        p = self.problem
        self.assert_input_error("gamma:", fedverify.predict, p, gamma=-1.0)
        self.assert_input_error("gamma:", fedverify.predict, p, gamma=float("nan"))
        self.assert_input_error("local_steps:", fedverify.predict, p, gamma=0.1, local_steps=0)
        self.assert_input_error("algo:", fedverify.predict, p, algo="fedsgd", gamma=0.1)
        self.assert_input_error("algo:", fedverify.predict, p, algo="l2gd", gamma=0.1)
        self.assert_input_error("server:", fedverify.predict, p, algo="fedopt", gamma=0.1,
                                server="adamm")
        # Options the algorithm does not read are refused, not silently ignored (as the command
        # line refuses the flag).
        self.assert_input_error("participating:", fedverify.exact_moments, p, algo="scaffold",
                                gamma=0.1, participating=2)
        self.assert_input_error("server:", fedverify.predict, p, algo="fedavg", gamma=0.1,
                                server="adam:lr=0.1")
        self.assert_input_error("client:", fedverify.simulate, p, algo="sgd", gamma=0.1,
                                client="fedprox:mu=1", chains=8, rounds=100, burn_in=10, seed=1)
        self.assert_type_error("gamma:", fedverify.predict, p, gamma="0.1")
        self.assert_type_error("local_steps:", fedverify.predict, p, gamma=0.1, local_steps=2.5)
        self.assert_type_error("problem:", fedverify.predict, 3, gamma=0.1)

    def test_simulate_arguments(self):
        p = self.problem
        run = dict(gamma=0.05, chains=8, rounds=100, burn_in=10, seed=1)
        self.assert_input_error("chains:", fedverify.simulate, p, **{**run, "chains": 0})
        self.assert_input_error("burn_in:", fedverify.simulate, p, **{**run, "burn_in": -1})
        self.assert_input_error("rounds:", fedverify.simulate, p, **{**run, "rounds": 10})
        self.assert_input_error("seed:", fedverify.simulate, p, **{**run, "seed": -5})
        self.assert_input_error("seed:", fedverify.simulate, p, **{**run, "seed": 2**64})
        self.assert_input_error("batch_rounds:", fedverify.simulate, p,
                                **{**run, "batch_rounds": "often"})
        self.assert_input_error("noise:", fedverify.simulate, p, **{**run, "noise": "loud"})
        self.assert_type_error("chains:", fedverify.simulate, p, **{**run, "chains": "8"})
        with self.assertRaises(TypeError):  # a required argument missing
            fedverify.simulate(p, gamma=0.05, chains=8, rounds=100, burn_in=10)

    def test_problems(self):
        a = [np.eye(2), np.eye(2)]
        b = [np.zeros(2), np.ones(2)]
        s = [np.eye(2), np.eye(2)]
        self.assertEqual(fedverify.quadratic_problem(a, b, s).num_clients, 2)
        self.assert_input_error("hessians[1]", fedverify.quadratic_problem,
                                [np.eye(2), -np.eye(2)], b, s)
        self.assert_input_error("optima, noise_covs:", fedverify.quadratic_problem, a, b[:1], s)
        self.assert_type_error("optima[0]:", fedverify.quadratic_problem, a, [np.eye(2), b[1]], s)
        self.assert_type_error("hessians:", fedverify.quadratic_problem, 3, b, s)
        self.assert_input_error("d:", fedverify.generate_quadratic, d=0)
        self.assert_input_error("condition:", fedverify.generate_quadratic, condition=0.5)
        self.assert_type_error("clients:", fedverify.generate_quadratic, clients=2.0)
        with tempfile.TemporaryDirectory() as d:
            self.assert_input_error(d, fedverify.load_problem, d + "/missing.json")

    def test_decide_arguments(self):
        self.assert_input_error("alpha:", fedverify.decide.equivalence, estimate=0.0, se=1.0,
                                lower=-1.0, upper=1.0, alpha=1.5)
        self.assert_input_error("samples:", fedverify.decide.equivalence, lower=-1.0, upper=1.0,
                                alpha=0.05)
        self.assert_type_error("samples:", fedverify.decide.hotelling, "abc", [0.0],
                               alpha=0.05)

    def test_claim_arguments(self):
        p = self.problem
        good = dict(problem=p, grid={"gamma": [0.1]}, predict=lambda q, **s: np.zeros(2),
                    measure="exact_mean", tolerance=0.1)
        self.assert_input_error("measure:", fedverify.Claim, "x", "s", **{**good, "measure": "m"})
        self.assert_input_error("rule:", fedverify.Claim, "x", "s", **{**good, "rule": "hotelling"})
        self.assert_input_error("grid[0].gama:", fedverify.Claim, "x", "s",
                                **{**good, "grid": [{"gama": 0.1}]})
        self.assert_input_error("tolerance:", fedverify.Claim, "x", "s",
                                **{**good, "tolerance": None})
        self.assert_type_error("predict:", fedverify.Claim, "x", "s", **{**good, "predict": 1})
        self.assert_input_error("grid:", fedverify.Claim, "x", "s",
                                **{**good, "grid": {"gamma": [0.1, 0.05]}, "tolerance": None,
                                   "rule": "remainder_order", "order": 1.5})
        self.assert_input_error("allowance:", fedverify.Claim, "x", "s",
                                **{**good, "allowance": 0.1})
        claim = fedverify.Claim("x", "s", **good)
        with tempfile.TemporaryDirectory() as d:
            self.assert_input_error("claims[1].id:", fedverify.report, [claim, claim], out=d)


if __name__ == "__main__":
    unittest.main()
