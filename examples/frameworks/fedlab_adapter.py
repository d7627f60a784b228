#!/usr/bin/python3
"""FedLab's own FedAvg, FedProx and Scaffold, checked by ``fedverify conformance --per-model``.

Framework: FedLab (SMILELab-FL/FedLab; PyPI ``fedlab``), read at commit
92552a742debc9d7bcf06378720c92fe90e15aa3 (2025-10-20; ``fedlab.__version__`` "1.3.0", the
release on PyPI; the files driven below last changed in 2023). Nothing of FedLab is copied here:
the adapter imports it.

What runs, unmodified (FedLab's standalone simulation, as its tutorials run it):

  fedlab.core.standalone.StandalonePipeline.main()        the round loop: handler.sample_clients(),
                                                          handler.downlink_package,
                                                          trainer.local_process(...),
                                                          trainer.uplink_package, handler.load(...)
  fedavg   fedlab.contrib.algorithm.basic_client.SGDSerialClientTrainer   (setup_optim, train:
               torch.optim.SGD(lr=γ), H batches = H local steps)
           fedlab.contrib.algorithm.basic_server.SyncServerHandler        (RandomSampler client
               sampling, global_update = fedlab.utils.Aggregators.fedavg_aggregate)
  fedprox  fedlab.contrib.algorithm.fedprox.FedProxSerialClientTrainer    (loss + 0.5·μ·Σ‖w − w₀‖²)
           with SyncServerHandler
  scaffold fedlab.contrib.algorithm.scaffold.ScaffoldSerialClientTrainer and ScaffoldServerHandler
               (setup_optim(lr=1): the server step η_g = 1 of Karimireddy et al.)

What is replaced (fedverify.torch, python/fedverify/torch.py): the model (OracleModel, float64,
d = the problem's dimension), the data (the FedDataset handed to trainer.setup_dataset returns
fedverify.torch.client_loader: H placeholder batches of one client), and the loss
(trainer.criterion, which FedLab's setup_optim sets to CrossEntropyLoss, becomes OracleLoss).
The pipeline's ``evaluate()`` hook, which FedLab's own examples override, reports the global model
after every round. Randomness (RandomSampler uses NumPy's global generator) is seeded with
[seed, chain] per run message.

What fedverify checks: FedLab's local SGD (H steps of y ← y − γ g), FedProx's proximal gradient
μ(y − x_t) (μ from the run message), the server's equal-weight average (and its client sampling
with --participating S < N, statistical mode), and Scaffold's control variates. Known outcomes
(examples/frameworks/README.md): FedAvg and FedProx conform with --trajectory float32 (FedLab's
Aggregators.fedavg_aggregate builds its weights with torch.ones, in float32, so in float64 the
average is off by ~1e-8 relative; --torch-float64 sets torch's default dtype to float64 and the
float64 trajectory conforms); Scaffold does not (the corrected gradient is written to the
tensors of a fresh state_dict(), never to the parameters: FedAvg's law, from round 2).

Server rules other than the plain average (--algo fedopt --server sgd:..., adaptive servers,
client momentum) are refused: FedLab's contrib FedAvgM (fedavgm.py) does not import at this
commit (``from utils_algorithms import MinNormSolver``).

Run (trajectory mode, 2 s; --protocol-fds because FedLab's logger writes to stdout):

  build/fedverify conformance --problem verify/conformance/problem.json --algo fedavg \\
      --gamma 0.05 --local-steps 10 --seed 11 --per-model --protocol-fds --trajectory float32 \\
      --exec "env PYTHONPATH=build/python python3 examples/frameworks/fedlab_adapter.py"

Exit status 3, with one line on stderr, when FedLab cannot be imported.
"""
import argparse

from adapter_support import cannot_import, serve  # noqa: E402  (beside this file)

FRAMEWORK_VERSION = "1.3.0"
DRIVES = ("fedlab.core.standalone.StandalonePipeline, "
          "fedlab.contrib.algorithm.SGDSerialClientTrainer/FedProxSerialClientTrainer/"
          "ScaffoldSerialClientTrainer, SyncServerHandler/ScaffoldServerHandler")


try:
    import numpy as np
    import torch
    from fedlab.contrib.algorithm.basic_client import SGDSerialClientTrainer
    from fedlab.contrib.algorithm.basic_server import SyncServerHandler
    from fedlab.contrib.algorithm.fedprox import FedProxSerialClientTrainer
    from fedlab.contrib.algorithm.scaffold import (ScaffoldSerialClientTrainer,
                                                   ScaffoldServerHandler)
    from fedlab.contrib.dataset.basic_dataset import FedDataset
    from fedlab.core.standalone import StandalonePipeline
except ImportError as import_error:  # ModuleNotFoundError included
    cannot_import("FedLab", "fedlab", FRAMEWORK_VERSION, DRIVES, import_error)


class OracleDataset(FedDataset):
    """FedLab's dataset interface (get_dataloader(id, batch_size)) over fedverify's oracle: client
    ``id``'s loader is H placeholder batches whose loss asks fedverify for the gradient."""

    def __init__(self, bridge, oracle, num_clients, local_steps):
        super().__init__()
        self.bridge, self.oracle = bridge, oracle
        self.num, self.local_steps = num_clients, local_steps

    def get_dataloader(self, id, batch_size, type="train"):  # noqa: A002 (FedLab's signature)
        return self.bridge.client_loader(self.oracle, id, self.local_steps)


class ReportingPipeline(StandalonePipeline):
    """FedLab's StandalonePipeline; its per-round ``evaluate()`` hook reports the global model."""

    def __init__(self, handler, trainer, report):
        super().__init__(handler, trainer)
        self.report = report

    def evaluate(self):
        self.report(self.handler.model)


def refuse(reason):
    raise SystemExit(f"fedlab_adapter: {reason}")


def train_run(oracle, run, bridge):
    """One per-model run message (one chain) through FedLab's standalone pipeline."""
    algorithm = run["algorithm"]
    if algorithm not in ("fedavg", "fedprox", "scaffold"):
        refuse(f"algorithm {algorithm!r}: FedLab drives fedavg, fedprox and scaffold here")
    optimiser = run.get("server_optimiser", {"name": "sgd"})
    if (run.get("server_lr", 1.0) != 1.0 or run.get("server_momentum", 0.0) != 0.0
            or run.get("server_nesterov", False) or optimiser.get("name", "sgd") != "sgd"
            or run.get("client_momentum", 0.0) != 0.0):
        refuse("server rules other than the average and client momentum are not driven: "
               "FedLab's contrib FedAvgM does not import at this commit (run --algo fedavg)")
    clients, participating = run["clients"], run["participating"]
    local_steps, gamma = run["local_steps"], run["gamma"]
    np.random.seed([run["seed"], run.get("chain", 0)])  # FedLab's RandomSampler: np.random.choice
    model = bridge.OracleModel(np.asarray(run["x0"], dtype=np.float64)[0])

    sample_ratio = participating / clients
    if algorithm == "scaffold":
        handler = ScaffoldServerHandler(model, global_round=run["rounds"], num_clients=clients,
                                        sample_ratio=sample_ratio)
        handler.setup_optim(1.0)  # the server step of Scaffold's x ← x + η_g·mean(Δy), η_g = 1
        trainer = ScaffoldSerialClientTrainer(model, clients)
        trainer.setup_optim(1, 1, gamma)  # one epoch over the H batches, batch size 1, lr γ
    else:
        handler = SyncServerHandler(model, global_round=run["rounds"], num_clients=clients,
                                    sample_ratio=sample_ratio)
        if algorithm == "fedprox":
            trainer = FedProxSerialClientTrainer(model, clients)
            trainer.setup_optim(1, 1, gamma, run["mu"])
        else:
            trainer = SGDSerialClientTrainer(model, clients)
            trainer.setup_optim(1, 1, gamma)
    if handler.num_clients_per_round != participating:
        refuse(f"FedLab samples {handler.num_clients_per_round} clients per round for "
               f"sample_ratio {participating}/{clients}, the run asks for {participating}")
    trainer.criterion = bridge.OracleLoss()  # in place of setup_optim's CrossEntropyLoss
    trainer.setup_dataset(OracleDataset(bridge, oracle, clients, local_steps))

    pipeline = ReportingPipeline(
        handler, trainer,
        report=lambda global_model: oracle.report(bridge.model_vector(global_model)[None, :]))
    pipeline.main()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch-float64", action="store_true",
                        help="torch.set_default_dtype(torch.float64) before FedLab runs, so that "
                             "its aggregation weights (torch.ones) are float64")
    args = parser.parse_args()
    if args.torch_float64:
        torch.set_default_dtype(torch.float64)
    serve(train_run)


if __name__ == "__main__":
    main()
