#!/usr/bin/python3
"""A PyTorch FedAvg/FedProx trainer written as an FL framework writes it, checked by
``fedverify conformance --per-model`` through fedverify.torch (docs: python/fedverify/torch.py).

The core (Client, Server, federated_training) is ordinary framework code and knows nothing of
fedverify: a model factory, a criterion, one data loader per client, torch.optim.SGD.

  Client   local training (McMahan et al. 2017, FedAvg): from the global state_dict, for each
           batch of its loader (H batches = H local steps) ``loss = criterion(model(x), y)``,
           plus FedProx's proximal term (μ/2)‖w − w_global‖² (Li et al. 2020) when μ > 0,
           ``loss.backward()``, ``optimizer.step()`` with torch.optim.SGD(lr=γ).
  Server   samples S of the N clients per round without replacement with its own
           numpy.random.default_rng(seed) (all N, in order, when S = N), averages the clients'
           state_dicts with equal weights 1/S, and applies the server rule: FedOpt's server SGD
           (Reddi et al. 2021; FedAvgM, Hsu et al. 2019) on the pseudo-gradient Δ = x − mean(y_i),
           torch.optim.SGD(lr=η_g, momentum=β, nesterov=…): m ← βm + Δ (m = Δ at the first
           round), x ← x − η_g m, or x ← x − η_g(Δ + βm) with Nesterov. With η_g = 1, β = 0 the
           new global model is the average itself (FedAvg).

Only main() at the bottom wires the bridge (fedverify_protocol.Oracle and fedverify.torch): per
run message, one model (one chain) seeded with [seed, chain], each round's global model reported.

  --bug weight_decay   the local optimiser is torch.optim.SGD(weight_decay=1e-4) (g + 1e-4·y at
                       every local step): found by --trajectory at round 1, local step 1.
"""
import argparse
import pathlib
import sys

import numpy as np
import torch

BUGS = ["none", "weight_decay"]


class Client:
    """One client of the federation: local SGD from the global model on its own loader."""

    def __init__(self, cid, model_fn, criterion, lr, mu=0.0, weight_decay=0.0):
        self.cid = cid
        self.model_fn = model_fn
        self.criterion = criterion
        self.lr = lr
        self.mu = mu
        self.weight_decay = weight_decay

    def local_train(self, global_state, loader, epochs=1):
        """Trains a copy of the global model for `epochs` passes over `loader` and returns its
        state_dict (detached copies)."""
        model = self.model_fn()
        model.load_state_dict(global_state)
        model.train()
        # FedProx's anchor: the global weights, constants of the proximal term.
        anchor = [p.detach().clone() for p in model.parameters()]
        optimizer = torch.optim.SGD(model.parameters(), lr=self.lr,
                                    weight_decay=self.weight_decay)
        for _ in range(epochs):
            for inputs, targets in loader:
                optimizer.zero_grad()
                loss = self.criterion(model(inputs), targets)
                if self.mu > 0.0:
                    # (μ/2)‖w − w_global‖² as a sum of squares: its gradient μ(w − w_global).
                    proximal = sum(((p - a) ** 2).sum() for p, a in zip(model.parameters(), anchor))
                    loss = loss + (self.mu / 2.0) * proximal
                loss.backward()
                optimizer.step()
        return {name: value.detach().clone() for name, value in model.state_dict().items()}


class Server:
    """The server: client sampling, equal-weight averaging and the server optimiser."""

    def __init__(self, model, num_clients, clients_per_round, seed, lr=1.0, momentum=0.0,
                 nesterov=False):
        self.model = model
        self.num_clients = num_clients
        self.clients_per_round = clients_per_round
        self.rng = np.random.default_rng(seed)
        self.optimizer = None
        if not (lr == 1.0 and momentum == 0.0):
            # Built once, so the momentum buffer lives across rounds.
            self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum,
                                             nesterov=bool(nesterov) and momentum > 0.0)

    def sample_clients(self):
        """The clients of this round: S of N without replacement (all N when S = N)."""
        if self.clients_per_round >= self.num_clients:
            return list(range(self.num_clients))
        chosen = self.rng.choice(self.num_clients, size=self.clients_per_round, replace=False)
        return [int(i) for i in chosen]

    def aggregate(self, states):
        """New global model from the clients' state_dicts: the average Σ_i (1/S) y_i, then the
        server rule."""
        weight = 1.0 / len(states)
        average = {name: torch.zeros_like(value) for name, value in states[0].items()}
        for state in states:
            for name, value in state.items():
                average[name] += weight * value
        if self.optimizer is None:
            self.model.load_state_dict(average)
            return
        self.optimizer.zero_grad()
        for name, p in self.model.named_parameters():
            p.grad = p.detach() - average[name]  # the pseudo-gradient Δ = x − mean(y_i)
        self.optimizer.step()


def federated_training(model_fn, criterion, loaders, rounds, clients_per_round, lr,
                       local_epochs=1, mu=0.0, server_lr=1.0, server_momentum=0.0,
                       server_nesterov=False, seed=0, weight_decay=0.0, on_round=None):
    """FedAvg (mu = 0) or FedProx (mu > 0) for `rounds` rounds over the clients of `loaders`
    (client i trains on loaders[i]); calls on_round(global_model) after each round and returns
    the global model."""
    global_model = model_fn()
    server = Server(global_model, len(loaders), clients_per_round, seed, lr=server_lr,
                    momentum=server_momentum, nesterov=server_nesterov)
    clients = [Client(i, model_fn, criterion, lr, mu=mu, weight_decay=weight_decay)
               for i in range(len(loaders))]
    for _ in range(rounds):
        chosen = server.sample_clients()
        global_state = global_model.state_dict()
        states = [clients[i].local_train(global_state, loaders[i], epochs=local_epochs)
                  for i in chosen]
        server.aggregate(states)
        if on_round is not None:
            on_round(global_model)
    return global_model


# ---- The bridge: the only code that knows fedverify. ----

def train_run(oracle, run, bridge, bug="none"):
    """One per-model run message through the trainer: fedverify.torch (`bridge`) supplies the
    model, the loaders and the criterion; each round's global model is reported."""
    if run["algorithm"] not in ("fedavg", "fedprox"):
        raise SystemExit(f"torch_trainer: algorithm {run['algorithm']!r} is not implemented "
                         "(fedavg, fedprox)")
    x0 = np.asarray(run["x0"], dtype=np.float64)[0]
    federated_training(
        model_fn=lambda: bridge.OracleModel(x0),
        criterion=bridge.OracleLoss(),
        loaders=[bridge.client_loader(oracle, i, run["local_steps"])
                 for i in range(run["clients"])],
        rounds=run["rounds"],
        clients_per_round=run["participating"],
        lr=run["gamma"],
        mu=run.get("mu", 0.0) if run["algorithm"] == "fedprox" else 0.0,
        server_lr=run.get("server_lr", 1.0),
        server_momentum=run.get("server_momentum", 0.0),
        server_nesterov=bool(run.get("server_nesterov", False)),
        seed=[run["seed"], run.get("chain", 0)],
        # The run's declared decay (fedverify conformance --weight-decay) as torch's own option.
        weight_decay=run.get("weight_decay", 0.0) + (1e-4 if bug == "weight_decay" else 0.0),
        on_round=lambda model: oracle.report(bridge.model_vector(model)[None, :]))


def serve(oracle, bridge, bug="none"):
    """Every run message until end of input (the per-model protocol), then returns."""
    for run in oracle.runs():
        train_run(oracle, run, bridge, bug)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", choices=BUGS, default="none")
    args = parser.parse_args()
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    from fedverify_protocol import Oracle  # noqa: E402  (beside this file)
    import fedverify.torch  # noqa: E402  (the package on PYTHONPATH)
    serve(Oracle(), fedverify.torch, args.bug)


if __name__ == "__main__":
    main()
