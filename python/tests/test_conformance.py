"""fedverify.conformance: a Python implementation checked in-process (issue 16 item 3). The
shipped reference implementations (verify/conformance/reference_fl.py) are called directly; the
verdict and every number equal ``fedverify conformance --exec`` running the same file as a child
process with the same seed (the oracle and its streams are shared, only the transport differs),
and the protocol errors of an implementation name ``implementation``."""

import json
import os
import pathlib
import subprocess
import sys
import unittest

import numpy as np

import fedverify
from support import CLI

SOURCE = pathlib.Path(os.environ.get("FEDVERIFY_SOURCE_DIR", "")) / "verify" / "conformance"
sys.path.insert(0, str(SOURCE))
import reference_fl  # noqa: E402  (verify/conformance/reference_fl.py)

# The contract test's settings (verify/cli/conformance_contract.sh): fixed seeds, so the outcome
# of a correct implementation (false alarm ≤ α = 0.01 per run) is deterministic.
OPTIONS = dict(gamma=0.05, local_steps=10, rounds=300, burn_in=50, seed=11)


def reference(bug):
    """reference_fl.py's algorithm with `bug`, as an in-process implementation."""

    return lambda oracle, run: reference_fl.run_algorithm(oracle, run, bug)


def cli_conformance(path, algo_args, bug):
    command = [CLI, "conformance", "--problem", path, *algo_args, "--exec",
               f"/usr/bin/python3 {SOURCE / 'reference_fl.py'} --bug {bug}"]
    for key, value in OPTIONS.items():
        command += [f"--{key.replace('_', '-')}", str(value)]
    out = subprocess.run(command, capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1):
        raise AssertionError(out.stderr)
    return json.loads(out.stdout)


@unittest.skipUnless(CLI, "FEDVERIFY_CLI (the fedverify executable) not set")
class Conformance(unittest.TestCase):
    def setUp(self):
        self.path = str(SOURCE / "problem.json")
        self.problem = fedverify.load_problem(self.path)

    def same_as_cli(self, algo_args, python_args, bug):
        got = fedverify.conformance(self.problem, reference(bug), **python_args, **OPTIONS)
        expected = cli_conformance(self.path, algo_args, bug)
        self.assertEqual(got["conforms"], expected["conforms"])
        self.assertEqual(got["diagnosis"], expected["diagnosis"])
        self.assertEqual(len(got["checks"]), len(expected["checks"]))
        for a, b in zip(got["checks"], expected["checks"]):
            self.assertEqual(a, b)  # statistic, threshold, p_value: bit for bit
        return got

    def test_correct_fedavg_conforms_as_on_the_command_line(self):
        out = self.same_as_cli(["--algo", "fedavg"], dict(algo="fedavg"), "none")
        self.assertTrue(out["conforms"], out["diagnosis"])

    def test_scaffold_bug_under_sampling_is_caught_as_on_the_command_line(self):
        out = self.same_as_cli(["--algo", "scaffold", "--participating", "2"],
                               dict(algo="scaffold", participating=2), "cv_s_for_n")
        self.assertFalse(out["conforms"])
        self.assertIn("instead of N", out["diagnosis"])

    def test_trajectory_mode_as_on_the_command_line(self):
        # Every request and round replayed at 8 chains × 5 rounds: the correct implementations
        # agree to float64 round-off; a weight decay of 1e-4 (too small for the statistical
        # checks) is found in round 1, client 0, at its first local step.
        for algo, bug, conforms in [("fedavg", "none", True), ("scaffold", "none", True),
                                    ("fedavg", "weight_decay", False)]:
            got = fedverify.conformance(self.problem, reference(bug), algo, gamma=0.05,
                                        local_steps=10, seed=11, trajectory="float64")
            command = [CLI, "conformance", "--problem", self.path, "--algo", algo, "--gamma",
                       "0.05", "--local-steps", "10", "--seed", "11", "--trajectory", "float64",
                       "--exec", f"/usr/bin/python3 {SOURCE / 'reference_fl.py'} --bug {bug}"]
            out = subprocess.run(command, capture_output=True, text=True, check=False)
            self.assertEqual(out.returncode, 0 if conforms else 1, out.stderr)
            expected = json.loads(out.stdout)
            self.assertEqual(got["conforms"], conforms, got["diagnosis"])
            self.assertEqual(got, expected)  # the same JSON object, bit for bit
            self.assertEqual((got["mode"], got["chains"], got["rounds"]), ("trajectory", 8, 5))
            if not conforms:
                self.assertIn("round 1, chain 0, client 0: local step 1", got["checks"][0]["detail"])

    def test_server_rule_as_on_the_command_line(self):
        # FedAvgM (THEORY O2): η_g and β reach the implementation in the run message; a buffer
        # recreated every round is caught and named (trajectory: round 2, where it first acts).
        rule = "sgd:lr=0.7,momentum=0.5"
        for bug, conforms in [("none", True), ("momentum_reset", False)]:
            got = fedverify.conformance(self.problem, reference(bug), "fedopt", server=rule,
                                        gamma=0.05, local_steps=10, seed=11,
                                        trajectory="float64")
            command = [CLI, "conformance", "--problem", self.path, "--algo", "fedopt", "--server",
                       rule, "--gamma", "0.05", "--local-steps", "10", "--seed", "11",
                       "--trajectory", "float64", "--exec",
                       f"/usr/bin/python3 {SOURCE / 'reference_fl.py'} --bug {bug}"]
            out = subprocess.run(command, capture_output=True, text=True, check=False)
            self.assertEqual(out.returncode, 0 if conforms else 1, out.stderr)
            self.assertEqual(got, json.loads(out.stdout))
            self.assertEqual(got["conforms"], conforms, got["diagnosis"])
            if not conforms:
                self.assertIn("round 2, chain 0", got["checks"][0]["detail"])
        # FedExP is a round of its own, not a server rule; an adaptive rule has no replay.
        with self.assertRaises(fedverify.InputError) as caught:
            fedverify.conformance(self.problem, reference("none"), "fedopt", server="fedexp",
                                  **OPTIONS)
        self.assertTrue(str(caught.exception).startswith("server:"), str(caught.exception))
        with self.assertRaises(fedverify.InputError) as caught:
            fedverify.conformance(self.problem, reference("none"), "fedopt", server="adam",
                                  gamma=0.05, local_steps=10, seed=11, trajectory="float64")
        self.assertTrue(str(caught.exception).startswith("trajectory:"), str(caught.exception))

    def test_per_model_calls_are_the_batched_numbers(self):
        # per_model=True: the implementation is called once per chain (K = 1, "chain": k); chain
        # k's noise is chain k's, so reference_fl's numbers are the batched call's, bit for bit.
        small = dict(OPTIONS, rounds=60, burn_in=20, chains=16, one_round_chains=64)
        runs = []

        def per_chain(oracle, run):
            runs.append((run["chains"], run["chain"]))
            reference_fl.run_algorithm(oracle, run, "none")

        batched = fedverify.conformance(self.problem, reference("none"), **small)
        got = fedverify.conformance(self.problem, per_chain, per_model=True, **small)
        self.assertTrue(got["per_model"])
        self.assertEqual(got["checks"], batched["checks"])
        self.assertEqual(runs[:3], [(1, 0), (1, 1), (1, 2)])
        self.assertEqual(len(runs), 64 + 16)  # the one-round run's chains, the stationary run's

    def test_a_diverging_implementation_fails_without_an_exception(self):
        def explode(oracle, run):
            x = np.asarray(run["x0"])
            for _ in range(run["rounds"]):
                oracle.grad(0, x)
                x = x * 1e60 + 1.0
                oracle.report(x)

        out = fedverify.conformance(self.problem, explode, **OPTIONS)
        self.assertFalse(out["conforms"])
        self.assertIn("diverge", out["diagnosis"])

    def test_a_noiseless_implementation_fails_without_an_exception(self):
        def frozen(oracle, run):  # never moves: a degenerate spread, where Hotelling is undefined
            for _ in range(run["rounds"]):
                oracle.report(np.asarray(run["x0"]))

        out = fedverify.conformance(self.problem, frozen, **OPTIONS)
        self.assertFalse(out["conforms"])
        self.assertFalse(any(c["passed"] for c in out["checks"]), out["checks"])

    def test_protocol_errors_name_the_implementation(self):
        def early(oracle, run):
            oracle.report(np.asarray(run["x0"]))

        def bad_client(oracle, run):
            oracle.grad(7, np.asarray(run["x0"]))

        def bad_shape(oracle, run):
            oracle.grad(0, np.zeros((3, 5)))

        for implementation, text in ((early, "after 1 of"), (bad_client, "[0, 3)"),
                                     (bad_shape, "chains of 2")):
            with self.assertRaises(fedverify.InputError) as caught:
                fedverify.conformance(self.problem, implementation, **OPTIONS)
            self.assertTrue(str(caught.exception).startswith("implementation:"),
                            str(caught.exception))
            self.assertIn(text, str(caught.exception))

    def test_bad_arguments_name_the_argument(self):
        with self.assertRaises(TypeError) as caught:
            fedverify.conformance(self.problem, "python3 my_fedavg.py", **OPTIONS)
        self.assertIn("implementation", str(caught.exception))
        with self.assertRaises(fedverify.InputError) as caught:
            fedverify.conformance(self.problem, reference("none"), participating=2, **OPTIONS)
        self.assertTrue(str(caught.exception).startswith("participating:"), str(caught.exception))
        with self.assertRaises(fedverify.InputError) as caught:
            fedverify.conformance(self.problem, reference("none"), algo="fedrr", **OPTIONS)
        self.assertTrue(str(caught.exception).startswith("algo:"), str(caught.exception))
        with self.assertRaises(TypeError) as caught:
            fedverify.conformance(self.problem, lambda o, r: o.grad("a", r["x0"]), **OPTIONS)
        self.assertIn("client", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
