#include "reports/report/rank_spread.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "reports/report/claim_codec.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::reports {

using nlohmann::json;

std::vector<json> RankSpread::all_values(std::size_t n, const Compute& compute) const {
  const auto size = static_cast<std::size_t>(ranks_.size());
  const auto rank = static_cast<std::size_t>(ranks_.rank());
  std::vector<std::size_t> mine;
  for (std::size_t i = rank; i < n; i += size) mine.push_back(i);
  json sent = {{"values", json::array()}, {"error", nullptr}};
  try {
    sent["values"] = compute(mine);
  } catch (...) {
    sent["error"] = error_to_json(std::current_exception());
  }
  // Rank 0 puts every rank's values in index order (or keeps the lowest rank's error) and sends
  // the result to all.
  json all = {{"values", json::array()}, {"error", nullptr}};
  if (ranks_.root()) {
    const std::vector<std::string> received = ranks_.gather(to_bytes(sent));
    std::vector<json> values(n);
    for (std::size_t r = 0; r < received.size() && all["error"].is_null(); ++r) {
      json theirs = from_bytes(received[r]);
      if (!theirs["error"].is_null()) {
        all["error"] = theirs["error"];
        all["error"]["rank"] = r;
        break;
      }
      auto& v = theirs["values"];
      for (std::size_t k = 0; k < v.size(); ++k) values.at(r + k * size) = std::move(v[k]);
    }
    if (all["error"].is_null()) all["values"] = std::move(values);
  } else {
    ranks_.gather(to_bytes(sent));
  }
  all = from_bytes(ranks_.broadcast(ranks_.root() ? to_bytes(all) : std::string()));
  if (!all["error"].is_null()) {
    std::rethrow_exception(error_from_json(all["error"], all["error"]["rank"].get<int>()));
  }
  return all["values"].get<std::vector<json>>();
}

int exit_code_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const InputError&) {
    return 2;
  } catch (...) {
    return 3;
  }
}

json error_to_json(const std::exception_ptr& error) {
  std::string message;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "an exception of unknown type";
  }
  return {{"exit", exit_code_of(error)}, {"message", message}};
}

std::exception_ptr error_from_json(const json& error, int rank) {
  const std::string message = error.at("message").get<std::string>();
  if (error.at("exit").get<int>() == 2) return std::make_exception_ptr(InputError(message));
  if (rank == 0) return std::make_exception_ptr(std::runtime_error(message));
  return std::make_exception_ptr(std::runtime_error(fmt::format("rank {}: {}", rank, message)));
}

}  // namespace fedverify::reports
