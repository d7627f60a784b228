"""fedverify.torch (python/fedverify/torch.py) and the framework-style trainer
verify/conformance/torch_trainer.py, against a fake oracle: deterministic gradients
g = A_i x + b_i + noise (seeded), every request recorded.

torch.optim.SGD's step param.add_(grad, alpha=-lr) is one fused multiply-add on CPUs with FMA
(y − γg rounded once, not NumPy's y − fl(γg) rounded twice), so the NumPy references below step
with `axpy`, which rounds as this machine's torch does (probed once, and checked against exact
rational arithmetic); every other operation is plain NumPy.
"""

import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import unittest
from fractions import Fraction
from unittest import mock

import numpy as np

ROOT = pathlib.Path(os.environ.get("FEDVERIFY_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[2])
BRIDGE_FILE = ROOT / "python" / "fedverify" / "torch.py"
TRAINER_FILE = ROOT / "verify" / "conformance" / "torch_trainer.py"
HAVE_TORCH = importlib.util.find_spec("torch") is not None


def load_file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if HAVE_TORCH:
    import torch
    try:  # the installed or built package; without its compiled core, the source file itself
        import fedverify.torch as bridge
    except ImportError:
        bridge = load_file("fedverify_torch_bridge", BRIDGE_FILE)
    trainer = load_file("torch_trainer", TRAINER_FILE)


def fused(a, alpha, b):
    """a + alpha·b rounded once (exact rational arithmetic), elementwise."""
    return np.array([float(Fraction(u) + Fraction(alpha) * Fraction(v)) for u, v in zip(a, b)])


def torch_rounding():
    """'fused' or 'unfused': how this machine's torch rounds add(a, b, alpha)."""
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal(67), rng.standard_normal(67)
    got = torch.add(torch.from_numpy(a), torch.from_numpy(b), alpha=-0.05).numpy()
    if np.array_equal(got, fused(a, -0.05, b)):
        return "fused"
    if np.array_equal(got, a + -0.05 * b):
        return "unfused"
    raise AssertionError("torch.add rounds neither as a fused nor as an unfused multiply-add")


def axpy(a, alpha, b):
    return fused(a, alpha, b) if ROUNDING == "fused" else a + alpha * b


ROUNDING = torch_rounding() if HAVE_TORCH else None


class FakeOracle:
    """Gradients g = A_i x + b_i + 0.3·noise, the noise drawn in request order; records requests
    (client, x, g) and reports. `runs`: the run messages runs() yields (per-model protocol)."""

    def __init__(self, d=3, n=4, seed=7, runs=()):
        rng = np.random.default_rng(1)
        self.a = [np.eye(d) + 0.2 * rng.standard_normal((d, d)) for _ in range(n)]
        self.b = [rng.standard_normal(d) for _ in range(n)]
        self.noise = np.random.default_rng(seed)
        self.requests, self.reports, self._runs = [], [], list(runs)

    def grad(self, client, x):
        assert isinstance(client, int) and x.dtype == np.float64 and x.shape[0] == 1
        g = x @ self.a[client].T + self.b[client] + 0.3 * self.noise.standard_normal(x.shape)
        self.requests.append((client, x.copy(), g.copy()))
        return g

    def report(self, x):
        self.reports.append(np.array(x, dtype=np.float64))

    def runs(self):
        yield from self._runs


def make_run(**fields):
    run = dict(type="run", algorithm="fedavg", dim=3, clients=4, gamma=0.05, local_steps=5,
               participating=4, chains=1, rounds=3, seed=11, chain=0,
               x0=[[0.1 + 1e-12, -0.7, 1.3]])
    run.update(fields)
    return run


def numpy_fedavg(oracle, run):
    """FedAvg/FedProx with the server rule, in NumPy (the trainer's order of requests)."""
    x = np.asarray(run["x0"], dtype=np.float64)[0]
    n, s, gamma = run["clients"], run["participating"], run["gamma"]
    mu = run.get("mu", 0.0) if run["algorithm"] == "fedprox" else 0.0
    lr, beta = run.get("server_lr", 1.0), run.get("server_momentum", 0.0)
    nesterov = run.get("server_nesterov", False) and beta > 0.0
    rng, m = np.random.default_rng([run["seed"], run["chain"]]), None
    for _ in range(run["rounds"]):
        chosen = range(n) if s == n else rng.choice(n, size=s, replace=False)
        average = np.zeros_like(x)
        for i in chosen:
            y = x.copy()
            for _ in range(run["local_steps"]):
                g = oracle.grad(int(i), y[None, :])[0]
                if mu > 0.0:
                    g = g + mu * (y - x)  # FedProx: ∇(μ/2)‖y − x‖²
                y = axpy(y, -gamma, g)
            average += (1.0 / s) * y
        if lr == 1.0 and beta == 0.0:
            x = average
        else:  # m ← βm + Δ (m = Δ first), x ← x − η_g m  or  x − η_g(Δ + βm)
            delta = x - average
            m = delta.copy() if m is None else beta * m + delta
            x = axpy(x, -lr, axpy(delta, beta, m) if nesterov else m)
        oracle.report(x[None, :])


class ImportWithoutTorch(unittest.TestCase):
    def test_import_error_says_to_install_python3_torch(self):
        with mock.patch.dict(sys.modules, {"torch": None}):
            with self.assertRaises(ImportError) as caught:
                load_file("fedverify_torch_without_torch", BRIDGE_FILE)
        self.assertIn("python3-torch", str(caught.exception))


@unittest.skipUnless(HAVE_TORCH, "torch is not importable (install python3-torch)")
class Bridge(unittest.TestCase):
    def one_step(self, oracle, y0, gamma):
        model = bridge.OracleModel(y0)
        criterion = bridge.OracleLoss()
        optimizer = torch.optim.SGD(model.parameters(), lr=gamma)
        for inputs, targets in bridge.client_loader(oracle, 2, 1):
            optimizer.zero_grad()
            criterion(model(inputs), targets).backward()
            grad = model.weight.grad.clone()
            optimizer.step()
        return model, grad

    def test_sgd_step_is_y_minus_gamma_g(self):
        oracle, y0, gamma = FakeOracle(), np.array([0.1 + 1e-12, -0.7, 1.3]), 0.05
        model, grad = self.one_step(oracle, y0, gamma)
        (client, x, g), = oracle.requests
        self.assertEqual(client, 2)
        self.assertTrue(np.array_equal(x[0], y0))                # the weight's own bits
        self.assertTrue(np.array_equal(grad.numpy(), g[0]))      # the gradient, bit for bit
        y = model.weight.detach().numpy()
        self.assertTrue(np.array_equal(y, axpy(y0, -gamma, g[0])))
        # and within one rounding of NumPy's y − γ·g: a fused or an unfused multiply-add
        for k in range(3):
            self.assertIn(y[k], (fused(y0, -gamma, g[0])[k], (y0 - gamma * g[0])[k]))

    def test_one_request_per_batch_and_none_when_evaluating(self):
        oracle = FakeOracle()
        client = trainer.Client(1, lambda: bridge.OracleModel(np.zeros(3)), bridge.OracleLoss(),
                                lr=0.05)
        state = bridge.OracleModel([0.3, 0.2, 0.1]).state_dict()
        loader = bridge.client_loader(oracle, 1, 6)
        self.assertEqual(len(loader), 6)
        out = client.local_train(state, loader)
        self.assertEqual(len(oracle.requests), 6)
        y = np.array([0.3, 0.2, 0.1])
        for (c, x, g) in oracle.requests:  # request j + 1 at y_j − γ g_j, client 1 throughout
            self.assertEqual(c, 1)
            self.assertTrue(np.array_equal(x[0], y))
            y = axpy(y, -0.05, g[0])
        self.assertTrue(np.array_equal(out["weight"].numpy(), y))
        model = bridge.OracleModel(y)
        with torch.no_grad():
            for inputs, targets in loader:
                bridge.OracleLoss()(model(inputs), targets)
        self.assertEqual(len(oracle.requests), 6)

    def test_float64_end_to_end(self):
        oracle = FakeOracle()
        y0 = np.array([0.1 + 1e-12, 1.0 / 3.0, -2.0 ** -30 + 1e-20])  # not float32 numbers
        model, grad = self.one_step(oracle, y0, 0.05)
        self.assertEqual(model.weight.dtype, torch.float64)
        self.assertEqual(grad.dtype, torch.float64)
        self.assertEqual(oracle.requests[0][1].dtype, np.float64)
        self.assertTrue(np.array_equal(oracle.requests[0][1][0], y0))
        v = bridge.model_vector(model)
        self.assertEqual(v.dtype, np.float64)
        self.assertTrue(np.array_equal(v, model.weight.detach().numpy()))
        bridge.load_vector(model, y0)
        self.assertTrue(np.array_equal(bridge.model_vector(model), y0))


@unittest.skipUnless(HAVE_TORCH, "torch is not importable (install python3-torch)")
class Trainer(unittest.TestCase):
    def same_as_numpy(self, **fields):
        run = make_run(**fields)
        got, expected = FakeOracle(), FakeOracle()
        trainer.train_run(got, run, bridge)
        numpy_fedavg(expected, run)
        self.assertEqual(len(got.requests), len(expected.requests))
        for (c1, x1, _), (c2, x2, _) in zip(got.requests, expected.requests):
            self.assertEqual(c1, c2)
            self.assertTrue(np.array_equal(x1, x2))
        self.assertEqual(len(got.reports), run["rounds"])
        for a, b in zip(got.reports, expected.reports):
            self.assertTrue(np.array_equal(a, b), (a, b))
        return got

    def test_fedavg_full_participation_bit_for_bit(self):
        got = self.same_as_numpy()
        self.assertEqual(len(got.requests), 3 * 4 * 5)  # T · N · H, in order
        self.assertEqual([c for c, _, _ in got.requests[:10]], [0] * 5 + [1] * 5)

    def test_server_momentum_bit_for_bit(self):
        self.same_as_numpy(server_lr=0.7, server_momentum=0.9)
        self.same_as_numpy(server_lr=0.7, server_momentum=0.9, server_nesterov=True)
        self.same_as_numpy(server_lr=1.3)

    def test_fedprox_and_sampling_bit_for_bit(self):
        self.same_as_numpy(algorithm="fedprox", mu=0.5)
        self.same_as_numpy(participating=2, chain=3, rounds=4)

    def test_weight_decay_bug_moves_the_first_step(self):
        run = make_run(rounds=1)
        good, bad = FakeOracle(), FakeOracle()
        trainer.train_run(good, run, bridge)
        trainer.train_run(bad, run, bridge, bug="weight_decay")
        self.assertTrue(np.array_equal(good.requests[0][1], bad.requests[0][1]))
        self.assertFalse(np.array_equal(good.requests[1][1], bad.requests[1][1]))

    def test_serve_runs_every_run_message(self):
        runs = [make_run(chain=0, participating=2), make_run(chain=1, participating=2)]
        oracle = FakeOracle(runs=runs)
        trainer.serve(oracle, bridge)
        self.assertEqual(len(oracle.reports), 6)
        expected = FakeOracle()
        for run in runs:
            numpy_fedavg(expected, run)
        for a, b in zip(oracle.reports, expected.reports):
            self.assertTrue(np.array_equal(a, b))


def protocol_ready():
    """The per-model protocol end to end needs Oracle.runs() and `import fedverify.torch` in a
    child process (the package built with torch.py)."""
    sys.path.insert(0, str(TRAINER_FILE.parent))
    import fedverify_protocol
    if not hasattr(fedverify_protocol.Oracle, "runs"):
        return False
    out = subprocess.run([sys.executable, "-c", "import fedverify.torch"], capture_output=True)
    return out.returncode == 0


@unittest.skipUnless(HAVE_TORCH and protocol_ready(),
                     "needs Oracle.runs() and fedverify.torch importable in a child process")
class PerModelProtocol(unittest.TestCase):
    def test_worker_over_pipes_equals_in_process(self):
        runs = [make_run(chain=0, participating=3), make_run(chain=5, algorithm="fedprox", mu=0.2)]
        oracle = FakeOracle()
        child = subprocess.Popen([sys.executable, str(TRAINER_FILE)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        for run in runs:
            child.stdin.write(json.dumps(run) + "\n")
            child.stdin.flush()
            for _ in range(run["rounds"]):
                while True:
                    message = json.loads(child.stdout.readline())
                    if message["type"] == "round":
                        oracle.report(np.asarray(message["x"]))
                        break
                    g = oracle.grad(message["client"], np.asarray(message["x"], dtype=float))
                    child.stdin.write(json.dumps({"grad": g.tolist()}) + "\n")
                    child.stdin.flush()
        child.stdin.close()
        self.assertEqual(child.stdout.read(), "")  # nothing after the last round
        child.stdout.close()
        self.assertEqual(child.wait(timeout=60), 0)
        expected = FakeOracle(runs=runs)
        trainer.serve(expected, bridge)
        self.assertEqual(len(oracle.reports), len(expected.reports))
        for a, b in zip(oracle.reports, expected.reports):
            self.assertTrue(np.array_equal(a, b))


if __name__ == "__main__":
    unittest.main()
