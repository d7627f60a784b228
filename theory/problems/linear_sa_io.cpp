// Problem files of the kinds "linear-sa" and "least-squares" (docs/problem-formats-linear-sa.md):
// the hooks parse_linear_sa and linear_sa_to_json declared in problem_io.cpp, as
// logistic_problem.cpp does for "logistic".
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/linear_sa_problem.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::theory {

namespace {

double number(const nlohmann::json& j, const std::string& field) {
  if (!j.is_number()) throw InputError(field + ": expected a number");
  return j.get<double>();
}

int batch_size_of(const nlohmann::json& j, const std::string& at) {
  const auto& batch = json_member(j, "batch_size", at);
  if (!batch.is_number_integer()) throw InputError(at + "batch_size: expected an integer");
  const bool fits =
      batch.is_number_unsigned()
          ? batch.get<std::uint64_t>() <= static_cast<std::uint64_t>(limits::kMaxBatchSize)
          : batch.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                batch.get<std::int64_t>() <= limits::kMaxBatchSize;
  if (!fits) throw InputError(fmt::format("{}batch_size: {} is out of range", at, batch.dump()));
  limits::require_range(at + "batch_size", batch.get<std::int64_t>(), 1, limits::kMaxBatchSize,
                        "README.md, resource limits");
  return batch.get<int>();
}

const nlohmann::json& clients_of(const nlohmann::json& j, const std::string& at) {
  const auto& clients = json_member(j, "clients", at);
  if (!clients.is_array() || clients.empty()) {
    throw InputError(at + "clients: expected a non-empty array of client objects");
  }
  for (std::size_t c = 0; c < clients.size(); ++c) {
    if (!clients[c].is_object()) {
      throw InputError(fmt::format("{}clients[{}]: expected an object", at, c));
    }
  }
  return clients;
}

// The optional "sampling" field (THEORY (A4)): "with-replacement" (the default) or "reshuffled".
void read_sample_order(const nlohmann::json& j, const std::string& at, LinearSaProblem& problem) {
  if (!j.contains("sampling")) return;
  const auto& s = j["sampling"];
  if (s == "with-replacement") return;
  if (s != "reshuffled") {
    throw InputError(fmt::format(
        "{}sampling: expected \"with-replacement\" or \"reshuffled\", got {}", at, s.dump()));
  }
  try {
    problem.set_sample_order(SampleOrder::reshuffled);
  } catch (const InputError& e) {
    throw InputError(at + e.what());
  }
}

std::unique_ptr<Problem> parse_dense(const nlohmann::json& j, const std::string& at) {
  require_known_fields(j, {"kind", "batch_size", "sampling", "clients", "generator"}, at);
  const int batch = batch_size_of(j, at);
  const auto& clients = clients_of(j, at);
  std::vector<LinearSaClient> parsed;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    const std::string cat = fmt::format("{}clients[{}].", at, c);
    require_known_fields(clients[c], {"samples", "weight"}, cat);
    const auto& samples = json_member(clients[c], "samples", cat);
    if (!samples.is_array() || samples.empty()) {
      throw InputError(cat + "samples: expected a non-empty array of sample objects");
    }
    LinearSaClient lc;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      const std::string sat = fmt::format("{}samples[{}].", cat, k);
      if (!samples[k].is_object()) {
        throw InputError(sat.substr(0, sat.size() - 1) + ": expected an object");
      }
      require_known_fields(samples[k], {"weight", "A", "b"}, sat);
      LinearSaSample s;
      s.weight = samples[k].contains("weight") ? number(samples[k]["weight"], sat + "weight") : 1.0;
      s.a = matrix_from_json(json_member(samples[k], "A", sat), sat + "A");
      s.b = vector_from_json(json_member(samples[k], "b", sat), sat + "b");
      lc.samples.push_back(std::move(s));
    }
    parsed.push_back(std::move(lc));
  }
  std::unique_ptr<LinearSaProblem> problem;
  try {
    problem = std::make_unique<LinearSaProblem>(std::move(parsed), batch);
  } catch (const InputError& e) {
    throw InputError(at + e.what());
  }
  read_sample_order(j, at, *problem);
  return problem;
}

std::unique_ptr<Problem> parse_least_squares(const nlohmann::json& j, const std::string& at) {
  require_known_fields(
      j, {"kind", "l2", "batch_size", "sampling", "clients", "client_weights", "generator"}, at);
  const double l2 = j.contains("l2") ? number(j["l2"], at + "l2") : 0.0;
  const int batch = batch_size_of(j, at);
  const auto& clients = clients_of(j, at);
  std::vector<LeastSquaresClient> parsed;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    const std::string cat = fmt::format("{}clients[{}].", at, c);
    require_known_fields(clients[c], {"features", "targets", "weight"}, cat);
    LeastSquaresClient lc;
    lc.features = matrix_from_json(json_member(clients[c], "features", cat), cat + "features");
    lc.targets = vector_from_json(json_member(clients[c], "targets", cat), cat + "targets");
    parsed.push_back(std::move(lc));
  }
  std::unique_ptr<LinearSaProblem> problem;
  try {
    problem = std::make_unique<LinearSaProblem>(std::move(parsed), l2, batch);
  } catch (const InputError& e) {
    throw InputError(at + e.what());
  }
  read_sample_order(j, at, *problem);
  return problem;
}

}  // namespace

// Hooks declared in problem_io.cpp.
std::unique_ptr<Problem> parse_linear_sa(const nlohmann::json& j, const std::string& kind,
                                         const std::string& at) {
  return kind == "least-squares" ? parse_least_squares(j, at) : parse_dense(j, at);
}

nlohmann::json linear_sa_to_json(const Problem& problem) {
  const auto& p = dynamic_cast<const LinearSaProblem&>(problem);
  nlohmann::json clients = nlohmann::json::array();
  for (int c = 0; c < p.num_clients(); ++c) {
    if (p.least_squares()) {
      clients.push_back({{"features", to_json(p.ls_client(c).features)},
                         {"targets", to_json(p.ls_client(c).targets)}});
      continue;
    }
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : p.client(c).samples) {
      samples.push_back({{"weight", s.weight}, {"A", to_json(s.a)}, {"b", to_json(s.b)}});
    }
    clients.push_back({{"samples", samples}});
  }
  nlohmann::json out = p.least_squares()
                           ? nlohmann::json{{"kind", "least-squares"},
                                            {"l2", p.l2()},
                                            {"batch_size", p.batch_size()}}
                           : nlohmann::json{{"kind", "linear-sa"}, {"batch_size", p.batch_size()}};
  if (p.reshuffled()) out["sampling"] = "reshuffled";
  out["clients"] = clients;
  return out;
}

}  // namespace fedverify::theory
