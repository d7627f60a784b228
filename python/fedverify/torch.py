"""fedverify.torch: run a PyTorch federated-learning trainer, unmodified, against ``fedverify
conformance`` (optional dependency: PyTorch, Debian's python3-torch).

The recipe. A framework's trainer is checked by swapping three things and nothing else:

1. **the parameters**: the model is :class:`OracleModel`, a single float64 vector ``weight`` of
   dimension d (the problem's), initialised from the run's x₀ (:func:`load_vector`);
2. **the gradient, through the loss**: the data are :func:`client_loader`'s placeholder batches
   (H = local_steps of them per client and round) and the criterion is :class:`OracleLoss`:
   ``loss = criterion(model(inputs), targets)`` asks fedverify for one stochastic gradient g of
   the batch's client at the current weight, and ``loss.backward()`` leaves exactly g (bit for
   bit) in ``model.weight.grad``, to which the trainer's own code adds its own terms (FedProx's
   proximal term, a weight decay), and which its own optimiser consumes;
3. **the round report**: after each round the trainer's global model is reported,
   ``oracle.report(model_vector(global_model)[None, :])``.

Everything else (client sampling, local loops, optimisers, aggregation, the server rule) is the
framework's own code, which is what fedverify checks. The arithmetic is float64 end to end: the
point sent is the weight's own bits, and the gradient is placed in the graph as float64, so no
float32 round trip enters the trajectory (a model cast to float32 by the trainer still works, at
the precision of ``--trajectory float32``). Note that ``torch.optim.SGD``'s step
``param.add_(grad, alpha=-lr)`` is a fused multiply-add on CPUs with FMA: y − γg rounded once,
within fedverify's trajectory tolerance of NumPy's y − γ·g (rounded twice).

The per-model protocol (``fedverify conformance --per-model [--workers P]``). fedverify starts P
worker processes of the ``--exec`` command. Each reads a sequence of run messages, each for ONE
chain (one model): the fields of the batched run message (fedverify_protocol.py) with
``"chains": 1``, ``"x0": [[d numbers]]`` and ``"chain": k``, the global chain index. The worker
seeds its own randomness (client sampling) from (seed, chain), e.g.
``numpy.random.default_rng([run["seed"], run["chain"]])``, so that chains are independent. Within
a run, requests ``{"type": "grad", "client": i, "x": [[...]]}`` and reports
``{"type": "round", "x": [[...]]}`` are the batched protocol's with K = 1. After round T the next
line is another run message, or end of file: the worker then exits with status 0::

    oracle = Oracle()                           # fedverify_protocol.py
    for run in oracle.runs():                   # run messages until EOF
        model = fedverify.torch.OracleModel(run["x0"][0])
        loaders = [fedverify.torch.client_loader(oracle, i, run["local_steps"])
                   for i in range(run["clients"])]
        ... the framework's own training, criterion = fedverify.torch.OracleLoss() ...
        oracle.report(fedverify.torch.model_vector(global_model)[None, :])   # every round

Every loss evaluation with gradients enabled makes exactly one request, in the order the trainer
evaluates them. Trajectory mode (``--trajectory``) replays every request, so a trainer must not
evaluate the loss more often than its algorithm takes gradients; an evaluation under
``torch.no_grad()`` (a framework's validation pass) makes no request and returns a loss of 0.

This module depends only on torch, numpy and the oracle object (``grad(client, x)`` with x a
K × d float64 array, returning K × d; ``report(x)``); it does not use fedverify's compiled core
(importing the package ``fedverify`` loads it, so the ``--exec`` child needs the built package on
its PYTHONPATH, as verify/cli/conformance_torch.sh sets it).
"""

import numpy as np

try:
    import torch
except ImportError as error:  # pragma: no cover - exercised by the test with torch hidden
    raise ImportError(
        "fedverify.torch needs PyTorch, which is not importable: install python3-torch "
        "(Debian/Ubuntu: apt-get install python3-torch), or PyTorch for this Python") from error

__all__ = ["OracleModel", "OracleLoss", "client_loader", "model_vector", "load_vector"]

# The attribute of a batch's targets tensor naming the oracle that answers its loss.
_ORACLE_ATTRIBUTE = "_fedverify_oracle"


class OracleModel(torch.nn.Module):
    """The model whose parameters are fedverify's iterate: one float64 parameter ``weight`` of
    shape (d,), initialised from the vector ``x0`` (any sequence of d numbers).

    ``forward(inputs)`` returns the weight broadcast to ``(batch, d)`` rows (a view, so autograd
    links the loss to ``weight``); the inputs are placeholders and only set the batch size.
    """

    def __init__(self, x0):
        super().__init__()
        vector = np.array(x0, dtype=np.float64).reshape(-1)
        self.weight = torch.nn.Parameter(torch.from_numpy(vector))

    def forward(self, inputs):
        batch = inputs.shape[0] if inputs.dim() > 0 else 1
        return self.weight.unsqueeze(0).expand(batch, -1)


class OracleLoss(torch.nn.Module):
    """The criterion whose gradient is fedverify's stochastic gradient.

    ``loss = OracleLoss()(model(inputs), targets)`` reads the current weight from the model's
    output (its first row), the client from ``targets`` (the value :func:`client_loader` put in
    it), makes ONE request ``oracle.grad(client, w[None, :])`` and returns the scalar ⟨w, g⟩ with g
    held constant: a linear surrogate whose gradient with respect to ``model.weight`` is exactly g
    (the value of the loss means nothing; only its gradient does).

    ``oracle``: the oracle to ask; by default the one the batch came from (client_loader tags its
    targets with it), so a trainer that builds its criterion itself, ``criterion_class()``, needs
    no argument.
    """

    def __init__(self, oracle=None):
        super().__init__()
        self.oracle = oracle

    def forward(self, outputs, targets):
        row = outputs.reshape(-1, outputs.shape[-1])[0]
        if not (torch.is_grad_enabled() and row.requires_grad):
            # An evaluation pass: no gradient is taken, so no request is made.
            return torch.zeros((), dtype=outputs.dtype, device=outputs.device)
        oracle = self.oracle if self.oracle is not None else getattr(targets, _ORACLE_ATTRIBUTE,
                                                                      None)
        if oracle is None:
            raise ValueError("OracleLoss: no oracle (pass OracleLoss(oracle), or use batches "
                             "from fedverify.torch.client_loader)")
        client = int(targets.reshape(-1)[0])
        # The weight's own bits (float64 → float64 is the identity; a float32 model widens exactly).
        w = row.detach().to(device="cpu", dtype=torch.float64).numpy()
        g = np.asarray(oracle.grad(client, w[None, :]), dtype=np.float64)[0]
        g = torch.from_numpy(np.ascontiguousarray(g)).to(device=outputs.device, dtype=row.dtype)
        return (row * g).sum()  # d/dw Σ w_j g_j = g: the backward of mul and sum are exact here


class _ClientLoader:
    """``batches`` placeholder batches (inputs, targets) of one client, re-iterable like a
    DataLoader (every iteration, i.e. every round or epoch, yields them again)."""

    def __init__(self, oracle, client, batches):
        if int(batches) < 1:
            raise ValueError(f"client_loader: batches must be ≥ 1, got {batches}")
        self.oracle, self.client, self.batches = oracle, int(client), int(batches)

    def __len__(self):
        return self.batches

    def __iter__(self):
        for _ in range(self.batches):
            inputs = torch.zeros((1, 1), dtype=torch.float64)
            targets = torch.full((1,), self.client, dtype=torch.long)
            setattr(targets, _ORACLE_ATTRIBUTE, self.oracle)
            yield inputs, targets


def client_loader(oracle, client, batches):
    """The data of ``client`` for one local training pass: an iterable of ``batches`` (= the
    run's local_steps H) pairs ``(inputs, targets)`` of placeholder tensors, as a DataLoader
    yields them. ``targets`` holds the client index and is tagged with ``oracle``, so
    :class:`OracleLoss` knows whom to ask; ``len(loader) == batches``."""
    return _ClientLoader(oracle, client, batches)


def model_vector(model):
    """The model's parameters as one float64 NumPy vector (a copy), in ``model.parameters()``
    order: the d-vector fedverify's report expects (``oracle.report(v[None, :])``)."""
    with torch.no_grad():
        parts = [p.detach().to(device="cpu", dtype=torch.float64).reshape(-1)
                 for p in model.parameters()]
        return torch.cat(parts).numpy().copy()


def load_vector(model, x):
    """Copies the d-vector ``x`` into the model's parameters (in ``model.parameters()`` order)."""
    vector = torch.from_numpy(np.array(x, dtype=np.float64).reshape(-1))
    total = sum(p.numel() for p in model.parameters())
    if vector.numel() != total:
        raise ValueError(f"load_vector: the model has {total} parameters, x has {vector.numel()}")
    with torch.no_grad():
        offset = 0
        for p in model.parameters():
            p.copy_(vector[offset:offset + p.numel()].reshape(p.shape))
            offset += p.numel()
    return model
