// Exceptions and OpenMP: an exception that leaves a parallel region makes the runtime call
// std::terminate (the process aborts, exit 134), e.g. a std::bad_alloc of a thread's workspace.
// Every parallel loop body runs inside ParallelErrors::run, which captures the exception; after
// the region, rethrow() rethrows the one of the lowest iteration index, so which error surfaces
// never depends on the schedule or the thread count.
#pragma once

#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>

namespace fedverify::estimators {

class ParallelErrors {
 public:
  // Runs f(); an exception it throws is kept (the lowest `index` wins) instead of propagating.
  template <class F>
  void run(std::int64_t index, F&& f) noexcept {
    try {
      f();
    } catch (...) {
      record(index, std::current_exception());
    }
  }

  // After the parallel region: rethrows the kept exception, if any.
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void record(std::int64_t index, std::exception_ptr error) noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!error_ || index < index_) {
      index_ = index;
      error_ = std::move(error);
    }
  }

  std::mutex mutex_;
  std::int64_t index_ = std::numeric_limits<std::int64_t>::max();
  std::exception_ptr error_;
};

}  // namespace fedverify::estimators
