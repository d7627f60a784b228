#include "theory/problems/fedopt_setting.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

ServerSgd server_sgd(const RunSetting& s) {
  return {s.server.value("lr"), s.server.value("momentum"), s.server.value("nesterov") != 0.0};
}

double fedexp_server_step(double client_spread, double pseudo_gradient_norm2, int sampled,
                          double eps) {
  return std::max(1.0, client_spread / (2.0 * sampled * (pseudo_gradient_norm2 + eps)));
}

double client_prox(const RunSetting& s) {
  return s.client.is("fedprox") ? s.client.value("mu") : 0.0;
}

int participating_clients(const RunSetting& s, int clients) {
  if (s.participating == 0) return clients;
  if (s.participating < 1 || s.participating > clients) {
    throw InputError(fmt::format("--participating: S must be in [1, N = {}] (0: all), got {}",
                                 clients, s.participating));
  }
  return s.participating;
}

void validate_fedopt(const RunSetting& s) {
  validate_step(s);
  if (s.server.role != OptimiserRole::server) {
    throw InputError(fmt::format("--server: \"{}\" is not a server optimiser", s.server.name));
  }
  if (s.client.role != OptimiserRole::client) {
    throw InputError(fmt::format("--client: \"{}\" is not a client optimiser", s.client.name));
  }
  if (s.participating < 0) {
    throw InputError(
        fmt::format("--participating: S must be >= 1 (0: all clients), got {}", s.participating));
  }
}

bool has_closed_forms(const RunSetting& s) {
  const bool linear_client =
      s.client.is("fedprox") || (s.client.is("sgd") && s.client.value("momentum") == 0.0);
  return s.server.is("sgd") && linear_client;
}

void require_closed_forms(const RunSetting& s) {
  if (!s.server.is("sgd")) {
    throw InputError(
        fmt::format("--server: {} is not linear: no closed forms (server sgd only; use simulate)",
                    s.server.name));
  }
  if (!has_closed_forms(s)) {
    throw InputError(fmt::format(
        "--client: {} is not linear: no closed forms (client sgd without momentum or fedprox "
        "only; use simulate)",
        s.client.text()));
  }
}

}  // namespace fedverify::theory
