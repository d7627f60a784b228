#include "reports/conformance/localise.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace fedverify::reports {
namespace {

// a and b agree up to the replay's round-off, relative to `scale` (localise.hpp, tolerance).
bool agree(const Vector& a, const Vector& b, double scale) {
  return (a - b).cwiseAbs().maxCoeff() <=
         kReplayTolerance * std::max({scale, a.cwiseAbs().maxCoeff(), b.cwiseAbs().maxCoeff(),
                                      std::numeric_limits<double>::min()});
}

// The local step from the request (y, g) of a client whose round started at x0.
Vector local_step(const TracedGradient& r, const Vector& x0, const ReplaySetting& s) {
  return r.x - s.gamma * (r.g + s.weight_decay * r.x + s.mu * (r.x - x0));
}

// What a local step that differs from the rule looks like, in words (localise.hpp's patterns).
std::string classify_step(const std::vector<const TracedGradient*>& seq, std::size_t j,
                          const Vector& x0, const ReplaySetting& s) {
  const TracedGradient& now = *seq[j];
  const Vector& next = seq[j + 1]->x;
  const double scale = s.gamma * now.g.cwiseAbs().maxCoeff();
  if (j >= 1) {
    const Vector stale =
        now.x - s.gamma * (seq[j - 1]->g + s.weight_decay * now.x + s.mu * (now.x - x0));
    if (agree(next, stale, scale)) {
      return "it uses the gradient of the previous local step (a stale gradient), not the one "
             "just returned at y_j";
    }
  }
  if (agree(next, now.x + s.gamma * (now.g + s.weight_decay * now.x + s.mu * (now.x - x0)),
            scale)) {
    return "it moves along +gradient (the sign of the step)";
  }
  const Vector residual = next - local_step(now, x0, s);
  // A weight decay other than the declared λ: residual = −γκ y_j (THEORY C1).
  const double yy = now.x.squaredNorm();
  if (yy > 0 && s.gamma > 0) {
    const double kappa = -residual.dot(now.x) / (s.gamma * yy);
    if (kappa != 0 && agree(residual, -s.gamma * kappa * now.x, scale)) {
      if (std::abs(s.weight_decay + kappa) <= 1e-9 * s.weight_decay) {
        return fmt::format(
            "it applies no weight decay (y_j − γg_j), where the run declares λ = {:g}",
            s.weight_decay);
      }
      return fmt::format(
          "it decays the weights by λ = {:.3g} (y_j − γ(g_j + λy_j)), where the run declares "
          "λ = {:g}",
          s.weight_decay + kappa, s.weight_decay);
    }
  }
  // The same term added at every step (seen from the third request on).
  bool constant = seq.size() >= 3;
  for (std::size_t i = 0; constant && i + 1 < seq.size(); ++i) {
    constant = agree(seq[i + 1]->x - local_step(*seq[i], x0, s), residual, scale);
  }
  if (constant) {
    return s.algorithm == "scaffold"
               ? "every local step adds the same term: in the first round the correction c − c_i "
                 "must be 0 (Scaffold's control variates start at 0)"
               : "every local step adds the same constant term to the gradient step";
  }
  if (s.algorithm == "fedprox") {
    const Vector drift = now.x - x0;
    const double dn = drift.squaredNorm();
    if (dn > 0) {
      const Vector along = drift * (residual.dot(drift) / dn);
      if (agree(residual, along, scale)) {
        return "the difference lies along y − x_t: the proximal term is wrong (its gradient must "
               "be μ(y − x_t))";
      }
    }
  }
  return "it is not y_j − γ·(the gradient returned at y_j)" +
         std::string(s.algorithm == "fedprox" ? " − γμ(y_j − x_t)" : "");
}

}  // namespace

Localisation localise_first_round(const std::vector<TracedGradient>& calls, const Matrix& x0,
                                  const Matrix& x1, const ReplaySetting& s) {
  Localisation out;
  const int chains = static_cast<int>(x1.cols());
  // Requests by chain and client, in the order made.
  std::vector<std::map<int, std::vector<const TracedGradient*>>> by_chain(chains);
  for (const TracedGradient& c : calls) {
    if (c.chain >= 0 && c.chain < chains) by_chain[c.chain][c.client].push_back(&c);
  }
  const int expected_clients = s.participating > 0 ? s.participating : s.clients;
  const double step = s.server.lr * s.server.gain();  // x₁ = x₀ + step · (ȳ − x₀)
  const bool plain_server = step == 1.0;
  // (x₁, x₀, mean endpoint) of the replayed chains, for the factor of a wrong aggregation.
  struct Averaged {
    Vector x1, x0, mean;
    Vector equal_mean;  // the plain mean of the endpoints (= mean for equal weights)
  };
  const std::vector<double>* weights = unequal_weights(s);
  std::vector<Averaged> averaged;
  for (int k = 0; k < chains && out.local_steps_ok; ++k) {
    if (by_chain[k].empty()) continue;
    out.traced = true;
    const Vector start = x0.col(k);
    Vector sum = Vector::Zero(start.size());
    Vector weighted_sum = Vector::Zero(start.size());
    for (const auto& [client, seq] : by_chain[k]) {
      const double scale = s.gamma * seq[0]->g.cwiseAbs().maxCoeff();
      if (!agree(seq[0]->x, start, scale)) {
        out.local_steps_ok = false;
        out.local_steps = fmt::format(
            "client {}'s first gradient request (chain {}) is not at the global model x_t: local "
            "steps must start from x_t",
            client, k);
        break;
      }
      for (std::size_t j = 0; j + 1 < seq.size(); ++j) {
        if (!agree(seq[j + 1]->x, local_step(*seq[j], start, s),
                   s.gamma * seq[j]->g.cwiseAbs().maxCoeff())) {
          out.local_steps_ok = false;
          out.local_steps = fmt::format("local step {} of client {} (chain {}, first round): {}",
                                        j + 1, client, k, classify_step(seq, j, start, s));
          break;
        }
      }
      if (!out.local_steps_ok) break;
      if (static_cast<int>(seq.size()) != s.local_steps) {
        out.local_steps_ok = false;
        out.local_steps = fmt::format(
            "client {} (chain {}) asked for {} gradients in the first round: it must take H = {} "
            "local steps, one gradient each",
            client, k, seq.size(), s.local_steps);
        break;
      }
      const Vector endpoint = local_step(*seq.back(), start, s);
      sum += endpoint;
      if (weights != nullptr)
        weighted_sum += (*weights)[static_cast<std::size_t>(client)] * endpoint;
    }
    if (!out.local_steps_ok) break;
    const int took_part = static_cast<int>(by_chain[k].size());
    if (took_part != expected_clients) {
      if (out.aggregation_ok) {
        out.aggregation_ok = false;
        out.aggregation = fmt::format(
            "chain {}'s first round ran the local steps of {} client{}; {} must take part ({})", k,
            took_part, took_part == 1 ? "" : "s", expected_clients,
            s.participating > 0 && s.participating < s.clients ? "S sampled without replacement"
                                                               : "all N");
      }
      continue;
    }
    const Vector mean =
        weights != nullptr ? weighted_sum : Vector(sum / static_cast<double>(took_part));
    averaged.push_back({x1.col(k), start, mean, Vector(sum / static_cast<double>(took_part))});
    const Vector expected = plain_server ? mean : Vector(start + step * (mean - start));
    if (out.aggregation_ok &&
        !agree(x1.col(k), expected, step * (mean - start).cwiseAbs().maxCoeff())) {
      out.aggregation_ok = false;
      out.aggregation =
          plain_server
              ? fmt::format(
                    "the reported x_(t+1) of chain {} is not the {}average of its {} clients' "
                    "endpoints y_H (max difference {:.3g})",
                    k, weights != nullptr ? "p_c-weighted " : "", took_part,
                    (x1.col(k) - expected).cwiseAbs().maxCoeff())
              : fmt::format(
                    "the reported x_(t+1) of chain {} is not x_t + {:g} · (the average of its {} "
                    "clients' endpoints y_H − x_t), the server's first step (η_g = {:g}{}) (max "
                    "difference {:.3g})",
                    k, step, took_part, s.server.lr,
                    s.server.nesterov ? fmt::format(", Nesterov β = {:g}", s.server.momentum) : "",
                    (x1.col(k) - expected).cwiseAbs().maxCoeff());
    }
  }
  if (!out.local_steps_ok || out.aggregation_ok || averaged.empty()) return out;
  // A common factor w on every chain, either on the models, x₁ = w · mean endpoint (weights of
  // the clients' models summing to w; N in place of S gives w = S/N), or on the updates,
  // x₁ − x₀ = w · (mean endpoint − x₀) (a server step w in place of 1).
  const auto common_factor = [&](auto target, auto base) -> std::optional<double> {
    double num = 0, den = 0;
    for (const Averaged& a : averaged) {
      num += target(a).dot(base(a));
      den += base(a).squaredNorm();
    }
    if (!(den > 0)) return std::nullopt;
    const double w = num / den;
    for (const Averaged& a : averaged) {
      if (!agree(target(a), w * base(a), base(a).cwiseAbs().maxCoeff())) return std::nullopt;
    }
    return w;
  };
  const auto models = common_factor([](const Averaged& a) { return a.x1; },
                                    [](const Averaged& a) { return a.mean; });
  const auto updates = common_factor([](const Averaged& a) -> Vector { return a.x1 - a.x0; },
                                     [](const Averaged& a) -> Vector { return a.mean - a.x0; });
  // FedLab #305: the server averages with equal weights although the clients weigh p_c.
  const bool ignores_weights =
      weights != nullptr && plain_server &&
      std::all_of(averaged.begin(), averaged.end(), [&](const Averaged& a) {
        return agree(a.x1, a.equal_mean, a.equal_mean.cwiseAbs().maxCoeff());
      });
  if (ignores_weights) {
    out.aggregation +=
        ": x_(t+1) is the plain mean of the endpoints — the clients are averaged with equal "
        "weights, not with the problem's client weights p_c (THEORY (A1); FedLab #305)";
  } else if (models && plain_server) {
    const double s_over_n = static_cast<double>(s.participating) / s.clients;
    const bool n_for_s = s.participating > 0 && s.participating < s.clients &&
                         std::abs(*models - s_over_n) <= 1e-9 * s_over_n;
    out.aggregation += fmt::format(
        ": x_(t+1) = {:.6g} × (the average of the clients' models), so the aggregation weights "
        "sum to {:.6g}, not 1{}",
        *models, *models,
        n_for_s ? " — the sum over the S sampled clients is divided by N instead of S" : "");
  } else if (updates) {
    out.aggregation += fmt::format(
        ": x_(t+1) − x_t = {:.6g} × (the average of the clients' updates): the server step is "
        "{:.6g}, not {:g}{}",
        *updates, *updates, step,
        plain_server                       ? ""
        : std::abs(*updates - 1.0) <= 1e-9 ? " (the server step η_g is ignored: plain averaging)"
                                           : "");
  }
  return out;
}

const std::vector<double>* unequal_weights(const ReplaySetting& s) {
  const std::vector<double>& w = s.weights;
  const bool unequal = std::any_of(w.begin(), w.end(), [&](double v) { return v != w.front(); });
  return unequal ? &w : nullptr;
}

}  // namespace fedverify::reports
