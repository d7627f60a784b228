// A sweep claim's tasks spread over the ranks of a report (verify/claims/task_spread.hpp;
// docs/DESIGN-EXTENSIONS.md, "Reports across machines"). Every rank runs the claim; at each
// spread, rank r computes the tasks i with i mod size = r (interleaved, so that the lines of a
// map whose cost grows along an axis are shared evenly), the values go to rank 0 as MessagePack
// (every double bit for bit) and come back to every rank in index order. A task's value is a pure
// function of its index and the claim's context, so the rows are the same for any number of
// ranks and threads.
//
// Errors cross ranks as {"exit": 2 (bad input) or 3, "message"} (claim_codec.hpp, error_to_json):
// a task that throws on any rank makes every rank throw the error of the lowest such rank, so no
// rank is left waiting in a collective call that the others have abandoned.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "reports/report/ranks.hpp"
#include "verify/claims/task_spread.hpp"

namespace fedverify::reports {

class RankSpread final : public claims::TaskSpread {
 public:
  explicit RankSpread(const Ranks& ranks) : ranks_(ranks) {}
  std::vector<nlohmann::json> all_values(std::size_t n, const Compute& compute) const override;

 private:
  const Ranks& ranks_;
};

}  // namespace fedverify::reports
