#include "reports/conformance/per_model.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace fedverify::reports {

int run_per_model(const theory::QuadraticProblem& q, int workers, const ConformanceRun& batched,
                  const Implementation& implementation,
                  const std::function<void(int, const Matrix&)>& record,
                  std::vector<TracedGradient>* trace, int traced_chains) {
  const int chains = batched.chains, d = q.dim();
  std::vector<Matrix> rounds(static_cast<std::size_t>(chains));  // d × T per chain
  std::vector<int> diverged(static_cast<std::size_t>(chains), 0);
  std::vector<std::vector<TracedGradient>> traces(static_cast<std::size_t>(chains));
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  const auto work = [&](ModelWorker* worker) {
    try {
      for (int k = next++; k < chains && !failed; k = next++) {
        ConformanceRun run = batched;
        run.chains = 1;
        run.first_chain = k;
        run.per_model = true;
        run.x0 = batched.x0.col(k);
        auto& mine = rounds[static_cast<std::size_t>(k)];
        mine = Matrix(d, batched.rounds);
        ConformanceOracle oracle(q, std::move(run), implementation.source,
                                 [&](int t, const Matrix& x) { mine.col(t - 1) = x.col(0); });
        if (trace != nullptr) oracle.trace_chains(traced_chains);
        if (worker != nullptr) {
          worker->run(oracle);
        } else {
          implementation.run(oracle);
        }
        oracle.require_complete("returned");
        diverged[static_cast<std::size_t>(k)] = oracle.diverged_round();
        if (trace != nullptr) traces[static_cast<std::size_t>(k)] = oracle.traced();
      }
      if (worker != nullptr) worker->finish();
    } catch (...) {
      failed = true;
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  if (!implementation.worker) {  // an in-process implementation: one chain after another
    work(nullptr);
  } else {
    const int hardware = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    const int count = std::clamp(workers > 0 ? workers : hardware, 1, chains);
    std::vector<std::unique_ptr<ModelWorker>> pool;
    pool.reserve(static_cast<std::size_t>(count));
    for (int w = 0; w < count; ++w) pool.push_back(implementation.worker());
    std::vector<std::thread> threads;
    for (int w = 1; w < count; ++w) threads.emplace_back(work, pool[w].get());
    work(pool[0].get());
    for (auto& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);
  int first_divergence = 0;
  for (const int r : diverged) {
    if (r > 0 && (first_divergence == 0 || r < first_divergence)) first_divergence = r;
  }
  if (trace != nullptr) {
    trace->clear();
    for (const auto& t : traces) trace->insert(trace->end(), t.begin(), t.end());
  }
  if (first_divergence > 0) return first_divergence;
  Matrix x(d, chains);
  for (int t = 1; t <= batched.rounds; ++t) {
    for (int k = 0; k < chains; ++k) x.col(k) = rounds[static_cast<std::size_t>(k)].col(t - 1);
    record(t, x);
  }
  return 0;
}

}  // namespace fedverify::reports
