#include "theory/problems/game_io.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"
#include "theory/problems/quadratic_game_io.hpp"

namespace fedverify::theory {
namespace {

// n × k from an array of rows, or n × 1 from a flat array of numbers.
Matrix samples_from_json(const nlohmann::json& j, const std::string& field) {
  if (j.is_array() && !j.empty() && j.front().is_number()) {
    return vector_from_json(j, field);  // one column
  }
  return matrix_from_json(j, field);
}

LinearIvGame parse_linear_iv(const nlohmann::json& j, const std::string& at) {
  require_known_fields(j, {"kind", "phi", "psi", "theta_tilde", "clients", "generator"}, at);
  const auto feature = [&](const char* name) {
    if (!j.contains(name)) return FeatureMap::affine;
    if (!j[name].is_string()) throw InputError(fmt::format("{}{}: expected a string", at, name));
    return parse_feature_map(j[name].get<std::string>(), at + name);
  };
  const FeatureMap phi = feature("phi"), psi = feature("psi");
  Vector theta_tilde;
  if (j.contains("theta_tilde"))
    theta_tilde = vector_from_json(j["theta_tilde"], at + "theta_tilde");
  const auto& clients = json_member(j, "clients", at);
  if (!clients.is_array() || clients.empty()) {
    throw InputError(at + "clients: expected a non-empty array of client objects");
  }
  limits::require_range(at + "clients", static_cast<std::int64_t>(clients.size()), 1,
                        limits::kMaxClients, "number of clients; docs/CLI.md, resource limits");
  std::vector<LinearIvClient> parsed;
  for (std::size_t i = 0; i < clients.size(); ++i) {
    const std::string cat = fmt::format("{}clients[{}].", at, i);
    if (!clients[i].is_object()) {
      throw InputError(cat.substr(0, cat.size() - 1) + ": expected an object");
    }
    require_known_fields(clients[i], {"x", "z", "y"}, cat);
    parsed.push_back({samples_from_json(json_member(clients[i], "x", cat), cat + "x"),
                      samples_from_json(json_member(clients[i], "z", cat), cat + "z"),
                      vector_from_json(json_member(clients[i], "y", cat), cat + "y")});
  }
  try {
    LinearIvGame iv(std::move(parsed), phi, psi, std::move(theta_tilde));
    limits::require_range(at + "dimension", iv.theta_dim() + iv.tau_dim(), 2, limits::kMaxDimension,
                          "p + q; docs/CLI.md, resource limits");
    return iv;
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.rfind(at, 0) == 0) throw;
    throw InputError(at + message);
  }
}

}  // namespace

bool is_game_kind(const std::string& kind) {
  return kind == "quadratic-game" || kind == "linear-iv";
}

GameProblem parse_game(const nlohmann::json& j, const std::string& source) {
  const std::string at = source + ": ";
  if (!j.is_object()) throw InputError(at + "expected a JSON object at top level");
  const auto& kind = json_member(j, "kind", at);
  const std::string k = kind.is_string() ? kind.get<std::string>() : std::string();
  if (k == "quadratic-game") return GameProblem(parse_quadratic_game(j, source));
  if (k == "linear-iv") return GameProblem(parse_linear_iv(j, at));
  if (k == "quadratic" || k == "logistic") {
    throw InputError(fmt::format(
        "{}kind: \"{}\" is a minimisation problem; the game algorithms (fedgda, fedsgda) read "
        "\"quadratic-game\" or \"linear-iv\" files",
        at, k));
  }
  throw InputError(fmt::format(
      "{}kind: expected \"quadratic-game\" or \"linear-iv\", got {}", at,
      kind.is_string() ? "\"" + limits::quote_input(k) + "\"" : std::string(kind.type_name())));
}

GameProblem load_game(const std::string& path) {
  const std::string text = read_text_file(path, limits::kMaxProblemFileBytes, "game file");
  return parse_game(parse_json_text(text, path), path);
}

nlohmann::json linear_iv_to_json(const LinearIvGame& iv) {
  nlohmann::json clients = nlohmann::json::array();
  for (int i = 0; i < iv.num_clients(); ++i) {
    const LinearIvClient& c = iv.client(i);
    clients.push_back({{"x", to_json(c.x)}, {"z", to_json(c.z)}, {"y", to_json(c.y)}});
  }
  return {{"kind", "linear-iv"},
          {"phi", to_string(iv.phi())},
          {"psi", to_string(iv.psi())},
          {"theta_tilde", to_json(iv.theta_tilde())},
          {"clients", std::move(clients)}};
}

nlohmann::json game_to_json(const GameProblem& problem) {
  if (const LinearIvGame* iv = problem.linear_iv()) return linear_iv_to_json(*iv);
  return quadratic_game_to_json(problem.game());
}

}  // namespace fedverify::theory
