#include "theory/problems/client_weights_io.hpp"

#include <fmt/format.h>

#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/logistic_problem.hpp"

namespace fedverify::theory {

namespace {

// n_c of a data-backed client, or 0 for kinds without rows of data.
double data_size(const Problem& problem, int c) {
  if (const auto* logistic = dynamic_cast<const LogisticProblem*>(&problem)) {
    return static_cast<double>(logistic->client(c).features.rows());
  }
  if (const auto* lsa = dynamic_cast<const LinearSaProblem*>(&problem)) {
    if (lsa->least_squares()) return lsa->num_samples(c);
  }
  return 0;
}

std::vector<double> by_data_size(const Problem& problem, const std::string& at) {
  std::vector<double> sizes;
  for (int c = 0; c < problem.num_clients(); ++c) {
    const double n = data_size(problem, c);
    if (!(n > 0)) {
      throw InputError(fmt::format(
          "{}client_weights: \"data-size\" needs a kind whose clients hold rows of data "
          "(logistic, least-squares), not {}",
          at, to_string(problem.kind())));
    }
    sizes.push_back(n);
  }
  return sizes;
}

}  // namespace

void read_client_weights(Problem& problem, const nlohmann::json& j, const std::string& at) {
  const nlohmann::json& clients = j.at("clients");  // parsed already: an array of objects
  // A client without "weight" weighs 1 (the documented default), so a file without any is
  // equally weighted.
  std::vector<double> raw;
  bool any = false;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    if (!clients[c].contains("weight")) {
      raw.push_back(1.0);
      continue;
    }
    const nlohmann::json& w = clients[c]["weight"];
    if (!w.is_number()) {
      throw InputError(fmt::format("{}clients[{}].weight: expected a number", at, c));
    }
    raw.push_back(w.get<double>());
    any = true;
  }
  if (!any) raw.clear();
  if (j.contains("client_weights")) {
    const nlohmann::json& mode = j["client_weights"];
    const std::string field = at + "client_weights";
    if (!mode.is_string() || (mode != "equal" && mode != "data-size")) {
      throw InputError(
          fmt::format("{}: expected \"equal\" or \"data-size\", got {}", field, mode.dump()));
    }
    if (!raw.empty()) {
      throw InputError(
          fmt::format("{}: given together with clients[].weight: use one or the other", field));
    }
    if (mode == "data-size") raw = by_data_size(problem, at);
  }
  if (raw.empty()) return;
  try {
    problem.set_client_weights(raw);
  } catch (const InputError& e) {
    throw InputError(at + e.what());
  }
}

void write_client_weights(const Problem& problem, nlohmann::json& j) {
  if (problem.equal_weights()) return;
  nlohmann::json& clients = j["clients"];
  for (int c = 0; c < problem.num_clients(); ++c) {
    clients[static_cast<std::size_t>(c)]["weight"] =
        problem.raw_weights()[static_cast<std::size_t>(c)];
  }
}

}  // namespace fedverify::theory
