// Whole claims run side by side on one machine: `workers` threads take the claims of a report
// from one queue (the costliest first, by predicted seconds), each claim with one OpenMP thread,
// so that claims which are sequential inside (exact closed forms, small searches) keep both cores
// busy. Every claim's numbers are those of a sequential run (threads never change a number,
// docs/ARCHITECTURE.md); only the wall time changes. The report order of the outcomes is kept.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "verify/claims/claim.hpp"

namespace fedverify::reports {

// Runs claim which[k] of `selected` for every k, with ctx.options.threads = 1, into
// outcomes[which[k]]. `cost[k]` orders the queue (larger first; ties in report order).
// `done(finished, total, id)` is called after each claim, under a lock. The first error (lowest
// report position among the claims that failed) is returned; no claim starts after an error.
std::exception_ptr run_claims_side_by_side(
    const std::vector<const claims::Claim*>& selected, const std::vector<std::size_t>& which,
    const std::vector<double>& cost, const claims::Context& ctx, int workers,
    const std::function<void(long, long, const std::string&)>& done,
    std::vector<claims::ClaimResult>& outcomes);

}  // namespace fedverify::reports
