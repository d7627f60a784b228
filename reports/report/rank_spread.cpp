#include "reports/report/rank_spread.hpp"

#include <string>

#include "reports/report/claim_codec.hpp"

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
    for (std::size_t r = 0; r < received.size(); ++r) {
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

}  // namespace fedverify::reports
