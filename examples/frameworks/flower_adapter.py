#!/usr/bin/python3
"""Flower's own FedAvg, FedProx and FedAvgM server code, checked by ``fedverify conformance
--per-model``, with a PyTorch NumPyClient written as Flower's PyTorch quickstart writes one.

Framework: Flower (adap/flower, PyPI ``flwr``), read at commit
fdef7afb1dca3030553be302366cfd285ed6632c (2026-03-29, framework/pyproject.toml version 1.28.0
in development). The files driven below last changed on 2025-11-15 (b7bda289, formatting), so
the release flwr 1.27.0 (2026-03-10) has them as read. Nothing of Flower is copied here: the
adapter imports it.

What runs, unmodified:

  flwr.server.strategy.FedAvg.aggregate_fit     the weighted average of the clients' parameters
      (inplace=True, its default: flwr.server.strategy.aggregate.aggregate_inplace, weights
      num_examples / total)
  flwr.server.strategy.FedProx                  FedAvg's aggregate_fit; its proximal_mu goes to
      the clients in the fit config under "proximal_mu", as FedProx.configure_fit sends it
  flwr.server.strategy.FedAvgM.aggregate_fit    the average (aggregate.aggregate), then server SGD
      on the pseudo-gradient x − average with server_learning_rate η_g and server_momentum β
      (momentum_vector = Δ at round 1, β·m + Δ after; x ← x − η_g m), its own copy of the global
      model kept in initial_parameters
  flwr.client.NumPyClient.to_client().fit       Flower's client wrapper (_fit): FitIns →
      parameters_to_ndarrays → NumPyClient.fit → ndarrays_to_parameters → FitRes
  flwr.common.ndarrays_to_parameters / parameters_to_ndarrays   the wire format (np.save bytes)

Flower ships no client training loop (the user writes NumPyClient.fit); ``TorchClient`` below is
such a user's client: load the global parameters into the torch model, H steps of
torch.optim.SGD(lr=γ) on the loader, FedProx's (μ/2)‖w − w_global‖² added to the loss when the
config carries proximal_mu. What Flower's server does between rounds (configure_fit: client
sampling through a ClientManager, gRPC or the simulation engine) is not driven: the adapter calls
the clients of the round in order (all N, or S of N drawn with numpy.random.default_rng([seed,
chain]) under --participating) and hands their FitRes to aggregate_fit.

What is replaced (fedverify.torch, python/fedverify/torch.py): the model (OracleModel, one float64
parameter of the problem's dimension), the data (client_loader: H placeholder batches per client
and round, so num_examples = H for every client: equal weights) and the loss (OracleLoss).

What fedverify checks: Flower's aggregation (the weighted average, to round-off), FedAvgM's
server step and momentum buffer across rounds (η_g and β from the run's server_lr and
server_momentum: ``--algo fedavgm --momentum B --server-lr E`` or ``--algo fedopt --server
sgd:lr=E,momentum=B``), and FedProx's μ through the client (the run's mu), together with the
client's local SGD. Refused with a message (the check then ends with exit 2): Scaffold (not in
Flower's strategies), Nesterov (FedAvgM has none: "No nesterov for now"), adaptive servers
(Flower's FedAdam/FedYogi/FedAdagrad are not driven here) and client momentum.

Run (trajectory mode, 2 s):

  build/fedverify conformance --problem verify/conformance/problem.json --algo fedavgm \\
      --momentum 0.9 --server-lr 0.7 --gamma 0.05 --local-steps 10 --seed 11 --per-model \\
      --trajectory float64 \\
      --exec "env PYTHONPATH=build/python python3 examples/frameworks/flower_adapter.py"

Exit status 3, with one line on stderr, when Flower cannot be imported.
"""
import collections

from adapter_support import cannot_import, serve  # noqa: E402  (beside this file)

FRAMEWORK_VERSION = "1.27.0"
DRIVES = ("flwr.server.strategy.FedAvg/FedProx/FedAvgM.aggregate_fit, "
          "flwr.client.NumPyClient.to_client().fit, flwr.common.ndarrays_to_parameters")


try:
    import numpy as np
    import torch
    from flwr.client import NumPyClient
    from flwr.common import FitIns, ndarrays_to_parameters, parameters_to_ndarrays
    from flwr.server.strategy import FedAvg, FedAvgM, FedProx
except ImportError as import_error:  # ModuleNotFoundError included
    cannot_import("Flower", "flwr", FRAMEWORK_VERSION, DRIVES, import_error)


# ---- A user's Flower client, as the PyTorch quickstart writes it (knows nothing of fedverify). ----

def train(net, trainloader, criterion, epochs, lr, proximal_mu=0.0):
    """Local training: `epochs` passes of torch.optim.SGD over the loader; FedProx's proximal term
    (μ/2)‖w − w_global‖² when proximal_mu > 0."""
    global_params = [p.detach().clone() for p in net.parameters()]
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    net.train()
    for _ in range(epochs):
        for inputs, targets in trainloader:
            optimizer.zero_grad()
            loss = criterion(net(inputs), targets)
            if proximal_mu > 0.0:
                proximal_term = sum(((w - w0) ** 2).sum()
                                    for w, w0 in zip(net.parameters(), global_params))
                loss = loss + (proximal_mu / 2.0) * proximal_term
            loss.backward()
            optimizer.step()


class TorchClient(NumPyClient):
    def __init__(self, net, trainloader, criterion):
        self.net, self.trainloader, self.criterion = net, trainloader, criterion

    def get_parameters(self, config):
        return [value.detach().cpu().numpy().copy() for value in self.net.state_dict().values()]

    def set_parameters(self, parameters):
        keys = self.net.state_dict().keys()
        state = collections.OrderedDict((k, torch.tensor(v)) for k, v in zip(keys, parameters))
        self.net.load_state_dict(state, strict=True)

    def fit(self, parameters, config):
        self.set_parameters(parameters)
        train(self.net, self.trainloader, self.criterion, int(config["local_epochs"]),
              float(config["lr"]), float(config.get("proximal_mu", 0.0)))
        return self.get_parameters(config={}), len(self.trainloader), {}


# ---- The bridge: the only code that knows fedverify. ----

def refuse(reason):
    raise SystemExit(f"flower_adapter: {reason}")


def make_strategy(run, initial_parameters):
    """Flower's strategy for the run message: FedAvgM when a server rule is asked for, else
    FedProx (fedprox) or FedAvg."""
    optimiser = run.get("server_optimiser", {"name": "sgd"})
    if optimiser.get("name", "sgd") != "sgd":
        refuse(f"server optimiser {optimiser.get('name')!r}: only FedAvgM's server SGD is driven")
    if run.get("server_nesterov", False):
        refuse("Nesterov: Flower's FedAvgM has no Nesterov option")
    if run.get("client_momentum", 0.0) != 0.0:
        refuse("client momentum is not driven (the client is plain SGD)")
    clients, participating = run["clients"], run["participating"]
    common = dict(fraction_fit=participating / clients, fraction_evaluate=0.0,
                  min_fit_clients=participating, min_evaluate_clients=0,
                  min_available_clients=clients, initial_parameters=initial_parameters,
                  fit_metrics_aggregation_fn=lambda metrics: {})
    server_lr = run.get("server_lr", 1.0)
    server_momentum = run.get("server_momentum", 0.0)
    if server_lr != 1.0 or server_momentum != 0.0:
        return FedAvgM(server_learning_rate=server_lr, server_momentum=server_momentum, **common)
    if run["algorithm"] == "fedprox":
        return FedProx(proximal_mu=run["mu"], **common)
    return FedAvg(**common)


def train_run(oracle, run, bridge):
    """One per-model run message (one chain): T rounds of Flower clients and Flower's
    aggregate_fit, each round's global model reported."""
    if run["algorithm"] not in ("fedavg", "fedprox"):
        refuse(f"algorithm {run['algorithm']!r}: Flower's strategies drive fedavg and fedprox "
               "(FedAvg, FedProx, FedAvgM)")
    clients, participating = run["clients"], run["participating"]
    x0 = np.asarray(run["x0"], dtype=np.float64)[0]
    net = bridge.OracleModel(x0)
    parameters = ndarrays_to_parameters(TorchClient(net, None, None).get_parameters({}))
    strategy = make_strategy(run, parameters)
    config = {"local_epochs": 1, "lr": run["gamma"]}
    if run["algorithm"] == "fedprox":
        config["proximal_mu"] = run["mu"]  # what FedProx.configure_fit adds to every FitIns
    loaders = [bridge.client_loader(oracle, i, run["local_steps"]) for i in range(clients)]
    criterion = bridge.OracleLoss()
    rng = np.random.default_rng([run["seed"], run.get("chain", 0)])
    for server_round in range(1, run["rounds"] + 1):
        chosen = (range(clients) if participating >= clients
                  else sorted(int(i) for i in rng.choice(clients, participating, replace=False)))
        results = []
        for cid in chosen:
            client = TorchClient(bridge.OracleModel(x0), loaders[cid], criterion).to_client()
            results.append((None, client.fit(FitIns(parameters, dict(config)))))
        parameters, _ = strategy.aggregate_fit(server_round, results, [])
        vector = np.concatenate([a.reshape(-1) for a in parameters_to_ndarrays(parameters)])
        oracle.report(vector.astype(np.float64)[None, :])


def main():
    serve(train_run)


if __name__ == "__main__":
    main()
