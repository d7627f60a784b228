#include "theory/problems/fedopt_setting.hpp"

#include <fmt/format.h>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

ServerSgd server_sgd(const StepSetting& s) {
  return {s.server.value("lr"), s.server.value("momentum"), s.server.value("nesterov") != 0.0};
}

double client_prox(const StepSetting& s) {
  return s.client.is("fedprox") ? s.client.value("mu") : 0.0;
}

int participating_clients(const StepSetting& s, int clients) {
  if (s.participating == 0) return clients;
  if (s.participating < 1 || s.participating > clients) {
    throw InputError(fmt::format("--participating: S must be in [1, N = {}] (0: all), got {}",
                                 clients, s.participating));
  }
  return s.participating;
}

void validate_fedopt(const StepSetting& s) {
  validate_step(s);
  if (s.server.role != OptimiserRole::server || !s.server.is("sgd")) {
    throw InputError(
        fmt::format("--server: fedopt implements sgd only, got \"{}\"", s.server.name));
  }
  if (s.client.role != OptimiserRole::client || !(s.client.is("sgd") || s.client.is("fedprox"))) {
    throw InputError(
        fmt::format("--client: fedopt implements sgd and fedprox, got \"{}\"", s.client.name));
  }
  if (s.participating < 0) {
    throw InputError(
        fmt::format("--participating: S must be >= 1 (0: all clients), got {}", s.participating));
  }
}

}  // namespace fedverify::theory
