#include "reports/conformance/trajectory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::reports {
namespace {

double max_abs(const Vector& v) { return v.size() == 0 ? 0.0 : v.cwiseAbs().maxCoeff(); }

// The requests of one chain in one round, by client, in the order made.
using RoundRequests = std::map<int, std::vector<const TracedGradient*>>;

class Replay {
 public:
  Replay(const ReplaySetting& s, Precision precision, int dim)
      : s_(s),
        weights_(unequal_weights(s)),
        tolerance_(kTrajectoryRoundoffs * (s.clients + 2) * unit_roundoff(precision)) {
    c_ = Vector::Zero(dim);
    m_ = Vector::Zero(dim);
    c_i_.assign(static_cast<std::size_t>(s.clients), Vector::Zero(dim));
  }

  // Checks one round of one chain from x_t; the reported x_{t+1} is `reported`. Returns false at
  // the first difference, described in `difference`.
  bool round(int t, int chain, const Vector& x_t, const RoundRequests& requests,
             const Vector& reported, std::string& difference) {
    const auto where = [&](int client, const std::string& what) {
      return fmt::format("round {}, chain {}, client {}: {}", t, chain, client, what);
    };
    if (static_cast<int>(requests.size()) != s_.clients) {
      difference = fmt::format(
          "round {}, chain {}: {} clients asked for gradients; all N = {} must take part", t, chain,
          requests.size(), s_.clients);
      return false;
    }
    Vector sum = Vector::Zero(x_t.size());
    double endpoints = 0;  // max |y_{i,H}|: the scale of the average's round-off
    std::vector<Vector> c_i_new(c_i_.size());
    for (const auto& [client, seq] : requests) {
      if (static_cast<int>(seq.size()) != s_.local_steps) {
        difference = where(client, fmt::format("{} gradient requests; the algorithm makes H = {}",
                                               seq.size(), s_.local_steps));
        return false;
      }
      const Vector correction = c_ - c_i_[static_cast<std::size_t>(client)];
      if (!close(seq[0]->x, x_t, max_abs(x_t))) {
        difference = where(client, fmt::format("local step 1 starts at a point {:.3g} away from "
                                               "the round's global model x_t",
                                               max_abs(seq[0]->x - x_t)));
        return false;
      }
      Vector y_next;
      for (std::size_t j = 0; j < seq.size(); ++j) {
        const TracedGradient& r = *seq[j];
        y_next = r.x - s_.gamma * (r.g + s_.weight_decay * r.x + s_.mu * (r.x - x_t) + correction);
        if (j + 1 == seq.size()) break;
        // Every term of the step: the round-off of each is relative to its own size.
        const double scale =
            std::max({max_abs(r.x), s_.gamma * max_abs(r.g), s_.gamma * max_abs(correction),
                      s_.gamma * s_.weight_decay * max_abs(r.x),
                      s_.gamma * s_.mu * max_abs(r.x - x_t), max_abs(y_next)});
        if (!close(seq[j + 1]->x, y_next, scale)) {
          difference =
              where(client,
                    fmt::format(
                        "local step {} ends {:.3g} away from y_j − γ(g_j{}{}{}) (scale "
                        "{:.3g}, tolerance {:.3g})",
                        j + 1, max_abs(seq[j + 1]->x - y_next),
                        s_.weight_decay != 0 ? " + λy_j" : "", s_.mu != 0 ? " + μ(y_j − x_t)" : "",
                        s_.algorithm == "scaffold" ? " + c − c_i" : "", scale, tolerance_ * scale));
          return false;
        }
      }
      sum += weights_ != nullptr ? Vector((*weights_)[static_cast<std::size_t>(client)] * y_next)
                                 : y_next;
      endpoints = std::max(endpoints, max_abs(y_next));
      if (s_.algorithm == "scaffold") {
        const auto i = static_cast<std::size_t>(client);
        c_i_new[i] = c_i_[i] - c_ + (x_t - y_next) / (s_.local_steps * s_.gamma);
      }
    }
    // Σ_c p_c y_c with unequal client weights (THEORY (A1)), else the plain mean.
    const Vector average =
        weights_ != nullptr ? sum : Vector(sum / static_cast<double>(s_.clients));
    // The server's rule (localise.hpp, ReplaySetting::server); plain averaging without a detour.
    const theory::ServerSgd& server = s_.server;
    const bool plain = server.lr == 1.0 && server.momentum == 0.0;
    Vector expected = average;
    double server_scale = 0;
    if (!plain) {
      const Vector delta = x_t - average;
      m_ = server.momentum * m_ + delta;
      const Vector move = server.nesterov ? Vector(delta + server.momentum * m_) : m_;
      expected = x_t - server.lr * move;
      server_scale = server.lr * std::max(max_abs(delta), max_abs(move));
    }
    const double scale = std::max({endpoints, max_abs(average), max_abs(x_t), server_scale});
    if (!close(reported, expected, scale)) {
      difference = fmt::format(
          "round {}, chain {}: the reported x_(t+1) is {:.3g} away from {} (tolerance {:.3g})", t,
          chain, max_abs(reported - expected),
          plain ? std::string("the average of the clients' endpoints")
                : fmt::format("the server's step from the average of the clients' endpoints "
                              "(η_g = {:g}, β = {:g}{})",
                              server.lr, server.momentum, server.nesterov ? ", Nesterov" : ""),
          tolerance_ * scale);
      return false;
    }
    if (s_.algorithm == "scaffold") {
      Vector delta = Vector::Zero(c_.size());
      for (std::size_t i = 0; i < c_i_.size(); ++i) delta += c_i_new[i] - c_i_[i];
      c_ += delta / static_cast<double>(s_.clients);
      c_i_ = std::move(c_i_new);
    }
    return true;
  }

  double worst_ratio() const { return worst_ratio_; }

 private:
  // a and b agree within the tolerance relative to `scale` (the ratio is kept for the report).
  bool close(const Vector& a, const Vector& b, double scale) {
    const double limit = tolerance_ * std::max(scale, std::numeric_limits<double>::min());
    const double ratio = max_abs(a - b) / limit;
    worst_ratio_ = std::max(worst_ratio_, ratio);
    return ratio <= 1;
  }

  const ReplaySetting& s_;
  const std::vector<double>* weights_;  // p_c when unequal (THEORY (A1)), else nullptr
  double tolerance_;
  Vector c_;
  std::vector<Vector> c_i_;
  Vector m_;  // the server's momentum buffer m (ReplaySetting::server)
  double worst_ratio_ = 0;
};

}  // namespace

Precision parse_precision(const std::string& text, const std::string& field) {
  if (text == "float64") return Precision::float64;
  if (text == "float32") return Precision::float32;
  throw InputError(
      fmt::format("{}: expected float64 or float32 (the precision of the "
                  "implementation's arithmetic), got '{}'",
                  field, theory::limits::quote_input(text)));
}

std::string to_string(Precision precision) {
  return precision == Precision::float32 ? "float32" : "float64";
}

double unit_roundoff(Precision precision) {
  return precision == Precision::float32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
}

TrajectoryComparison compare_trajectory(const std::vector<TracedGradient>& calls, const Matrix& x0,
                                        const std::vector<Matrix>& rounds,
                                        const ReplaySetting& setting, Precision precision) {
  const int chains = static_cast<int>(x0.cols());
  const int total_rounds = static_cast<int>(rounds.size());
  // requests[chain][round − 1]: that round's requests by client, in the order made.
  std::vector<std::vector<RoundRequests>> requests(static_cast<std::size_t>(chains),
                                                   std::vector<RoundRequests>(rounds.size()));
  for (const TracedGradient& c : calls) {
    if (c.chain < 0 || c.chain >= chains || c.round < 1 || c.round > total_rounds) continue;
    requests[static_cast<std::size_t>(c.chain)][static_cast<std::size_t>(c.round - 1)][c.client]
        .push_back(&c);
  }
  TrajectoryComparison out;
  std::vector<Replay> replays(static_cast<std::size_t>(chains),
                              Replay(setting, precision, static_cast<int>(x0.rows())));
  for (int t = 1; t <= total_rounds; ++t) {  // round by round, so the first difference is found
    for (int k = 0; k < chains; ++k) {
      const Vector x_t = t == 1 ? Vector(x0.col(k)) : Vector(rounds[t - 2].col(k));
      if (!replays[k].round(t, k, x_t, requests[k][t - 1], rounds[t - 1].col(k), out.difference)) {
        out.agrees = false;
      }
      out.worst_ratio = std::max(out.worst_ratio, replays[k].worst_ratio());
      if (!out.agrees) return out;
    }
    out.rounds_replayed = t;
  }
  return out;
}

}  // namespace fedverify::reports
