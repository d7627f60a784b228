// `fedverify report`: runs the claim catalogue and writes REPORT.md, results.json and figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/claims/default_seed.hpp"

namespace fedverify::claims {
struct Claim;
struct NamedProblem;
}  // namespace fedverify::claims

namespace fedverify::reports {

class Ranks;

inline constexpr const char* kAllClaims = "*";  // the default --only

struct ReportOptions {
  std::string out_dir = "reports/out";
  bool quick = false;
  std::string baseline;  // results.json of an earlier run to compare against
  // Compare with a baseline of another provenance (seed, quick, version, claim set): the report
  // then says so; without it such a baseline is refused (InputError naming --baseline).
  bool baseline_mismatch_ok = false;
  // Glob over claim ids; the default kAllClaims runs every claim but the opt-in ones
  // (ClaimRegistration::opt_in: the optimiser study), which run only when named.
  std::string only = kAllClaims;
  std::uint64_t seed = claims::kDefaultSeed;
  int threads = 0;  // 0: all; T > 0 bounds every parallel region of the run (omp_set_num_threads)
  // The processes that share the claims (ranks.hpp; null: this process alone). Each runs its
  // share; rank 0 assembles the results and alone writes the output, bit-identical for any
  // number of ranks. With threads = 0, the ranks of one machine share its threads.
  const Ranks* ranks = nullptr;
  // The command that runs the report, naming its summary line on stderr ("fedverify check: 1 of
  // 1 claims hold, …").
  std::string command = "report";
  // With threads = 0 on one process, whole claims run side by side on worker threads
  // (claim_pool.hpp). Off for claims that must run on the calling thread: the Python package's
  // (their predictions are Python callables, which need the interpreter's lock).
  bool claims_side_by_side = true;
};

// The fedverify version recorded in results.json (CMake's project version).
const char* fedverify_version();

// The catalogue's claims that `only` selects, in report order: those whose id matches the glob,
// except opt-in claims (a long study) when `only` is kAllClaims. Empty when none matches.
std::vector<const claims::Claim*> select_claims(const std::string& only);

// Runs the selected claims and publishes REPORT.md, results.json and the figures into out_dir
// atomically (staged_directory.hpp): a reader sees the old complete set or the new one.
// Returns the exit code: 0 all claims hold (and no regression against the baseline),
// 1 a claim failed or the baseline comparison found a regression. Throws InputError (exit 2)
// for a bad baseline and for every I/O failure (naming --out or --baseline). With several
// ranks, every rank returns rank 0's exit code, and only rank 0 throws for bad input (the
// others return 2 without a message).
int run_report(const ReportOptions& options);

// What a report runs and lists besides its options: the claims (in report order), the problems
// of its "Problems" section with a paragraph after them, and whether it ends with the
// catalogue's detection-power appendix (which describes the catalogue, not other claims).
struct ReportContents {
  std::vector<const claims::Claim*> claims;
  std::vector<const claims::NamedProblem*> problems;
  std::string problems_note;
  bool detection_power = false;
};

// The same report of other claims than the catalogue's (the Python package's fedverify.report:
// claims defined by the user), in the same format; options.only is not applied (the caller
// chose the claims). Throws InputError "claims: no claim to report" when there is none.
int run_report(const ReportOptions& options, const ReportContents& contents);

}  // namespace fedverify::reports
