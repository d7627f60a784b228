// Resource limits: the documented range of every size-like input (docs/CLI.md, "Resource limits"),
// checked before any work starts, with overflow-safe arithmetic. A value outside its range is
// bad input (InputError naming the flag or field, exit 2), never a crash, an overflow or a run
// that cannot finish.
//
// Numerical strategy: every size product (chains × dimension × 8 bytes, H × batch, …) is formed
// in int64 with saturation (saturating_mul), so an estimate can never wrap around to a small
// number; estimates are compared with the memory budget before anything is allocated.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace fedverify::theory::limits {

inline constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// Problem files. Problem files need a nesting depth of 4 (object, clients array, client object,
// matrix row); 64 leaves room for the "generator" record while keeping the reader's work and
// memory linear in the input.
inline constexpr int kMaxJsonDepth = 64;
// Size of a problem file: the largest admissible problems (d = 4096 with a few clients) fit.
inline constexpr std::int64_t kMaxProblemFileBytes = std::int64_t{256} << 20;
// Dimension d and client count N of a problem. The closed forms factorise d×d matrices per
// client; beyond these sizes a problem file is tens of megabytes per client.
inline constexpr std::int64_t kMaxDimension = 4096;
inline constexpr std::int64_t kMaxClients = 100000;
// Logistic problems: the curvature bound l2 + max_j ‖a_j‖²/4 of every f_c. The minimiser and
// the closed forms multiply two curvatures, so the bound's square must be a double.
inline constexpr double kMaxLogisticCurvature = 1e150;
// Logistic minibatch size B (samples per stochastic gradient).
inline constexpr std::int64_t kMaxBatchSize = 1 << 20;

// Command-line sizes.
// H: predict's closed forms are logarithmic in H (LocalSteps), so any int is allowed there.
inline constexpr std::int64_t kMaxLocalStepsPredict = kInt32Max;
// simulate draws the noise of a client's H steps at once (H·max(d, B) numbers per chain lane):
// H ≤ 10⁶ keeps that below a gigabyte per thread on every admissible problem with d, B ≤ 128.
inline constexpr std::int64_t kMaxLocalStepsSimulate = 1000000;
// H·max(d, B): the numbers one client draws per round and chain; int32 indices address them.
inline constexpr std::int64_t kMaxDrawsPerClientRound = 1 << 24;
// Rounds T (and L2GD iterations): counters are int and T + 1 entries are recorded.
inline constexpr std::int64_t kMaxRounds = 1000000000;
// Rounds of predict's exact trajectory (--rounds): T + 1 points of the curve are printed.
inline constexpr std::int64_t kMaxTrajectoryRounds = 1000000;
// Chains K: chain indices address the noise streams as uint32, and the engine pairs chains.
inline constexpr std::int64_t kMaxChains = kInt32Max / 2;
// OpenMP threads (0: all hardware threads); more than blocks of chains are never started.
inline constexpr std::int64_t kMaxThreads = 1024;
// Compressor levels s of qsgd:S (random dithering); random-k:K needs 1 ≤ K ≤ d.
inline constexpr std::int64_t kMaxCompressorLevels = 1 << 20;

// The default memory budget of simulate (--memory-budget BYTES): a fixed 8 GiB, so that the same
// command is accepted or refused on every machine.
inline constexpr std::int64_t kDefaultMemoryBudget = std::int64_t{8} << 30;

// Closed forms whose cost grows as a power of the problem's size (Scaffold's exact moments,
// L2GD's x(λ) and exact trajectory) estimate their time from a measured constant before
// starting and are refused (InputError) when it exceeds this limit: 10 s by default, set by
// --max-seconds (the process's one setting; set_closed_form_seconds is called by the CLI).
inline constexpr double kDefaultClosedFormSeconds = 10;
// A lower bound of the time of one flop of the closed forms' dense d×d products: the fastest rate
// measured (≈ 33 GFLOP/s, one AVX-512 core of an AMD EPYC Zen 5 in Eigen's blocked products at
// d ≥ 50; small matrices are slower per flop). Estimates built on it are lower bounds, so a
// refusal is never wrong (linear_sa_moments.cpp, trajectory.cpp).
inline constexpr double kFastestSecondsPerFlop = 3e-11;
double closed_form_seconds();
void set_closed_form_seconds(double seconds);
// Throws InputError("<field>: <what> would take about T s (<formula>), beyond the limit of L s
// (--max-seconds); <advice>") when `seconds` exceeds closed_form_seconds().
void require_closed_form_time(std::string_view field, std::string_view what, double seconds,
                              std::string_view formula, std::string_view advice);

// a·b, or INT64_MAX when it overflows (both ≥ 0).
std::int64_t saturating_mul(std::int64_t a, std::int64_t b);
// a + b, or INT64_MAX when it overflows (both ≥ 0).
std::int64_t saturating_add(std::int64_t a, std::int64_t b);

// Throws InputError("<field>: must lie in [lo, hi], got v") (the reason, when given, follows).
void require_range(std::string_view field, std::int64_t value, std::int64_t lo, std::int64_t hi,
                   std::string_view reason = {});

// Throws InputError("<field>: <what> would need about N bytes (… GiB), beyond the memory budget
// of B bytes; raise it with --memory-budget BYTES or reduce <field>") when bytes > budget.
void require_memory(std::string_view field, std::string_view what, std::int64_t bytes,
                    std::int64_t budget);

// Text for a message that quotes user input: control characters escaped (\n, \t, \uXXXX), so a
// message stays one line, and at most `max_chars` characters (then "… (N bytes)").
inline constexpr std::size_t kMaxQuotedChars = 80;
std::string quote_input(std::string_view text, std::size_t max_chars = kMaxQuotedChars);
// The same escaping without the length cap (a whole message).
std::string escape_control(std::string_view text);

}  // namespace fedverify::theory::limits
