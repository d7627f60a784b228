// Independent tasks of a claim: on this process's threads (for_each_task), and spread over the
// processes of a report across MPI ranks (spread_tasks, task_spread.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstddef>
#include <functional>
#include <numeric>
#include <vector>

#include "verify/claims/claim.hpp"
#include "verify/claims/task_spread.hpp"

namespace fedverify::claims::kit {

// Runs f(0), …, f(n − 1) on the context's threads (all hardware threads unless --threads).
// Every task is a pure function of its index writing its own slot, so threads change nothing
// but the wall time. Parallel over tasks rather than inside them: Eigen's own OpenMP products in
// the small eigen-solvers of a map were measured 5× slower than one thread on a loaded 2-core
// machine (47 ms against 9 ms per Scaffold radius, d = 10, N = 10), and Eigen runs single-
// threaded inside a parallel region. The first exception a task throws is rethrown here.
void for_each_task(const Context& ctx, std::size_t n, const std::function<void(std::size_t)>& f);

namespace detail {
// The spread_tasks calls of this process whose tasks are running (nested ones included).
inline std::atomic<int> tasks_running{0};
struct RunningTasks {
  RunningTasks() { ++tasks_running; }
  RunningTasks(const RunningTasks&) = delete;
  RunningTasks& operator=(const RunningTasks&) = delete;
  RunningTasks(RunningTasks&&) = delete;
  RunningTasks& operator=(RunningTasks&&) = delete;
  ~RunningTasks() { --tasks_running; }
};
}  // namespace detail

// The values task(0), …, task(n − 1) of a sweep claim, in index order. Alone (ctx.spread null)
// every task runs here, on the context's threads; in a report across ranks (ctx.spread) this
// process computes its share and receives the others' (every rank calls spread_tasks with the
// same n in the same order: a claim's control flow is a function of its context and of the task
// values, which are the same on every rank).
//
// A spread_tasks called from inside a task (a stationary run inside a map's line) runs all its
// tasks here: only the outermost level is spread, since a task runs on one process only, and a
// collective call there would wait for ranks that never make it.
//
// A task's value crosses processes as JSON (nlohmann's to_json/from_json for T, found by ADL or
// an adl_serializer; Eigen's in kit/task_values.hpp), whose doubles are sent bit for bit. It makes
// the trip in a single process too, so a field that T's conversion forgets is lost in every run,
// and the fast suite, which runs single processes, sees it.
template <class T, class Task>
std::vector<T> spread_tasks(const Context& ctx, std::size_t n, const Task& task) {
  const TaskSpread::Compute compute = [&](const std::vector<std::size_t>& mine) {
    const detail::RunningTasks running;
    std::vector<nlohmann::json> values(mine.size());
    for_each_task(ctx, mine.size(), [&](std::size_t k) { values[k] = T(task(mine[k])); });
    return values;
  };
  std::vector<nlohmann::json> values;
  if (ctx.spread != nullptr && detail::tasks_running.load() == 0) {
    values = ctx.spread->all_values(n, compute);
  } else {
    std::vector<std::size_t> all(n);
    std::iota(all.begin(), all.end(), std::size_t{0});
    values = compute(all);
  }
  std::vector<T> out;
  out.reserve(n);
  for (const auto& v : values) out.push_back(v.template get<T>());
  return out;
}

}  // namespace fedverify::claims::kit
