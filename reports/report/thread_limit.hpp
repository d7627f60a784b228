// --threads T of a run: omp_set_num_threads(T) for the lifetime of a ThreadLimit (T = 0: the
// team size unchanged), then the previous team size again. Every parallel region of the run is
// bounded by it, also those that take no team size of their own (the theory layer's structured
// solves, Eigen's products); a report run from the Python package leaves the caller's setting.
#pragma once

#include <omp.h>

namespace fedverify::reports {

class ThreadLimit {
 public:
  explicit ThreadLimit(int threads) : before_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadLimit() { omp_set_num_threads(before_); }
  ThreadLimit(const ThreadLimit&) = delete;
  ThreadLimit& operator=(const ThreadLimit&) = delete;

 private:
  int before_;
};

}  // namespace fedverify::reports
