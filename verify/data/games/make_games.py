#!/usr/bin/python3
"""Writes the game files of verify/data/games/ (committed; rerun to regenerate them exactly).

game_small.json   a heterogeneous quadratic game (THEORY M1), p = q = 2, N = 3, built by hand:
                  A_i, C_i = diag values, B_i small couplings, linear terms that differ between
                  clients (so FedGDA with R > 1 is biased, M2), isotropic noise 0.1 I.
linear_iv_small.json  a federated linear IV data set (THEORY M5): N = 3 clients, 200 samples each,
                  d_x = 1, d_z = 2, z ~ N(mu_i, I), x = pi_i.z + e + 0.1 v, y = 0.5 + 1.5 x + e,
                  numpy.random.default_rng(20261126); phi = psi = affine.
Independent of fedverify's own generators (theory/problems/game_generator.cpp,
linear_iv_generator.cpp), so the command-line tests do not read what the code under test wrote.
"""
import json
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def quadratic_game():
    clients = []
    for i, (a, c, b, lin) in enumerate([
        ([1.0, 0.5], [0.8, 1.2], 0.3, [1.0, -0.5, 0.2, 0.4]),
        ([0.6, 1.1], [1.0, 0.7], -0.2, [-0.8, 0.6, -0.3, 0.1]),
        ([0.9, 0.8], [0.5, 1.0], 0.1, [0.2, 0.3, 0.5, -0.6]),
    ]):
        clients.append({
            "A": np.diag(a).tolist(),
            "B": [[b, 0.1 * i], [0.0, b]],
            "C": np.diag(c).tolist(),
            "a": lin[:2],
            "c": lin[2:],
            "noise_cov": (0.1 * np.eye(4)).tolist(),
        })
    return {"kind": "quadratic-game", "clients": clients}


def linear_iv():
    rng = np.random.default_rng(20261126)
    clients = []
    for i in range(3):
        mu = 2.0 * rng.standard_normal(2)
        pi = np.array([1.0, 0.5]) + rng.standard_normal(2)
        z = mu + rng.standard_normal((200, 2))
        e = rng.standard_normal(200)
        x = z @ pi + e + 0.1 * rng.standard_normal(200)
        y = 0.5 + 1.5 * x + e
        clients.append({"x": x.round(12).tolist(), "z": z.round(12).tolist(), "y": y.round(12).tolist()})
    return {"kind": "linear-iv", "phi": "affine", "psi": "affine", "clients": clients}


if __name__ == "__main__":
    (HERE / "game_small.json").write_text(json.dumps(quadratic_game(), indent=1) + "\n")
    (HERE / "linear_iv_small.json").write_text(json.dumps(linear_iv()) + "\n")
