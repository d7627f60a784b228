// A study shared by several claims (or by a claim and its confirmation rerun), computed once per
// (seed, quick, attempt) and cached for the process: the optimiser study and the DeepGMM study.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "verify/claims/claim.hpp"

namespace fedverify::claims::kit {

// `make(ctx)` runs once per (ctx.options.seed, ctx.options.quick, ctx.attempt); every call site
// (its `make` type) has its own cache. Thread-safe.
template <class Make>
const auto& once_per_run(const Context& ctx, Make make) {
  using Result = decltype(make(ctx));
  static std::mutex mutex;
  static std::map<std::tuple<std::uint64_t, bool, int>, std::unique_ptr<Result>> cache;
  const std::lock_guard lock(mutex);
  auto& slot = cache[{ctx.options.seed, ctx.options.quick, ctx.attempt}];
  if (!slot) slot = std::make_unique<Result>(make(ctx));
  return *slot;
}

}  // namespace fedverify::claims::kit
