// The processes a claim's independent tasks are spread over (docs/DESIGN-EXTENSIONS.md, "Reports
// across machines"). A sweep claim (ClaimRegistration::sweep: a map's grid lines, the
// replications of a stationary run, the data seeds of a consistency study) computes its tasks
// through kit::spread_tasks. In a single process they all run here, on the context's threads. In a
// report across MPI ranks every rank runs the claim together: each computes its share of the
// tasks, and every rank receives the value of every task, so each goes on to build the same rows.
//
// The interface lives here, in the claims layer, and its MPI implementation in reports/ (the layer
// above), which hands it to the claims through Context::spread.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <vector>

namespace fedverify::claims {

class TaskSpread {
 public:
  TaskSpread() = default;
  TaskSpread(const TaskSpread&) = delete;
  TaskSpread& operator=(const TaskSpread&) = delete;
  TaskSpread(TaskSpread&&) = delete;
  TaskSpread& operator=(TaskSpread&&) = delete;
  virtual ~TaskSpread() = default;

  // Computes the values of the tasks this process owns: `compute(mine)` returns the values of the
  // tasks `mine` (increasing indices < n), in that order.
  using Compute = std::function<std::vector<nlohmann::json>(const std::vector<std::size_t>& mine)>;

  // Collective: every process calls it with the same n, in the same sequence of calls. Chooses
  // this process's tasks, computes them, exchanges the values, and returns the value of every
  // task 0 … n − 1 in index order, the same on every process. When `compute` throws on any
  // process, every process throws: the error of the lowest such process (an InputError stays one).
  virtual std::vector<nlohmann::json> all_values(std::size_t n, const Compute& compute) const = 0;
};

}  // namespace fedverify::claims
