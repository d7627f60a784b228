#include "verify/claims/kit/tasks.hpp"

#include <omp.h>

#include <exception>

namespace fedverify::claims::kit {

void for_each_task(const Context& ctx, std::size_t n, const std::function<void(std::size_t)>& f) {
  const int threads = ctx.options.threads > 0 ? ctx.options.threads : omp_get_max_threads();
  std::exception_ptr error;
#pragma omp parallel for schedule(dynamic) num_threads(threads) if (threads > 1)
  for (std::size_t i = 0; i < n; ++i) {
    try {
      f(i);
    } catch (...) {
#pragma omp critical(fedverify_claim_task_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace fedverify::claims::kit
