#include "reports/report/claim_pool.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <numeric>
#include <thread>

namespace fedverify::reports {

std::exception_ptr run_claims_side_by_side(
    const std::vector<const claims::Claim*>& selected, const std::vector<std::size_t>& which,
    const std::vector<double>& cost, const claims::Context& ctx, int workers,
    const std::function<void(long, long, const std::string&)>& done,
    std::vector<claims::ClaimResult>& outcomes) {
  std::vector<std::size_t> queue(which.size());
  std::iota(queue.begin(), queue.end(), 0);
  std::stable_sort(queue.begin(), queue.end(),
                   [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  claims::Context one = ctx;
  one.options.threads = 1;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  long finished = 0;
  std::size_t failed_at = which.size();  // the lowest report position that failed
  std::exception_ptr error;
  const auto work = [&] {
    omp_set_num_threads(1);  // this thread's OpenMP regions (and Eigen's) run alone
    while (!stop) {
      const std::size_t slot = next++;
      if (slot >= queue.size()) return;
      const std::size_t k = queue[slot];
      const claims::Claim& c = *selected[which[k]];
      try {
        claims::ClaimResult r = claims::run_claim(c, one);
        const std::lock_guard lock(mutex);
        outcomes[which[k]] = std::move(r);
        done(++finished, static_cast<long>(which.size()), c.id);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (k < failed_at) failed_at = k, error = std::current_exception();
        stop = true;
      }
    }
  };
  std::vector<std::thread> pool;
  const int n = std::max(1, std::min<int>(workers, static_cast<int>(which.size())));
  pool.reserve(n);
  for (int w = 0; w < n; ++w) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  return error;
}

}  // namespace fedverify::reports
