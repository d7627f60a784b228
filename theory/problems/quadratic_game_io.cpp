#include "theory/problems/quadratic_game_io.hpp"

#include <fmt/format.h>

#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::theory {

QuadraticGame parse_quadratic_game(const nlohmann::json& j, const std::string& source) {
  const std::string at = source + ": ";
  if (!j.is_object()) throw InputError(at + "expected a JSON object");
  require_known_fields(j, {"kind", "clients", "generator"}, at);
  const auto& kind = json_member(j, "kind", at);
  if (!kind.is_string() || kind.get<std::string>() != "quadratic-game") {
    throw InputError(at + "kind: expected \"quadratic-game\"");
  }
  const auto& clients = json_member(j, "clients", at);
  if (!clients.is_array() || clients.empty()) {
    throw InputError(at + "clients: expected a non-empty array of client objects");
  }
  limits::require_range(at + "clients", static_cast<std::int64_t>(clients.size()), 1,
                        limits::kMaxClients, "number of clients; docs/CLI.md, resource limits");
  std::vector<QuadraticGameClient> parsed;
  for (std::size_t i = 0; i < clients.size(); ++i) {
    const std::string cat = fmt::format("{}clients[{}].", at, i);
    if (!clients[i].is_object()) {
      throw InputError(cat.substr(0, cat.size() - 1) + ": expected an object");
    }
    require_known_fields(clients[i], {"A", "B", "C", "a", "c", "noise_cov"}, cat);
    QuadraticGameClient c;
    c.a = matrix_from_json(json_member(clients[i], "A", cat), cat + "A");
    c.b = matrix_from_json(json_member(clients[i], "B", cat), cat + "B");
    c.c = matrix_from_json(json_member(clients[i], "C", cat), cat + "C");
    c.a_linear = vector_from_json(json_member(clients[i], "a", cat), cat + "a");
    c.c_linear = vector_from_json(json_member(clients[i], "c", cat), cat + "c");
    c.noise_cov = matrix_from_json(json_member(clients[i], "noise_cov", cat), cat + "noise_cov");
    parsed.push_back(std::move(c));
  }
  try {
    QuadraticGame game(std::move(parsed));
    limits::require_range(at + "dimension", game.dim(), 2, limits::kMaxDimension,
                          "p + q; docs/CLI.md, resource limits");
    return game;
  } catch (const InputError& e) {
    const std::string message = e.what();
    if (message.rfind(at, 0) == 0) throw;
    throw InputError(at + message);
  }
}

QuadraticGame load_quadratic_game(const std::string& path) {
  const std::string text = read_text_file(path, limits::kMaxProblemFileBytes, "game file");
  return parse_quadratic_game(parse_json_text(text, path), path);
}

nlohmann::json quadratic_game_to_json(const QuadraticGame& game) {
  nlohmann::json clients = nlohmann::json::array();
  for (int i = 0; i < game.num_clients(); ++i) {
    const QuadraticGameClient& c = game.client(i);
    clients.push_back({{"A", to_json(c.a)},
                       {"B", to_json(c.b)},
                       {"C", to_json(c.c)},
                       {"a", to_json(c.a_linear)},
                       {"c", to_json(c.c_linear)},
                       {"noise_cov", to_json(c.noise_cov)}});
  }
  return {{"kind", "quadratic-game"}, {"clients", std::move(clients)}};
}

}  // namespace fedverify::theory
