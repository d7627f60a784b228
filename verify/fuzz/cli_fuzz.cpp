// libFuzzer target: the whole command line (reports/cli/command_line.hpp, run_command_line).
// The input bytes, split on NUL, are the arguments after "fedverify"; every run must return 0
// or 2 (1 is report's verdict and report is not run here; 3 is an internal error: abort, so
// libFuzzer keeps the input) and never crash, leak, overflow or hang. Built only with clang and
// -DFEDVERIFY_FUZZ=ON (verify/fuzz/run_fuzz.sh); seeds, including every reproducer of
// verify/cli/hostile_inputs.sh, in verify/fuzz/corpus/cli/.
//
// Bounds, so that each input runs in milliseconds:
//   * `report` is not run (it writes directories and takes seconds);
//   * --problem NAME names one of the problem files written at start-up (kProblems: valid ones
//     and the hostile ones of hostile_inputs.sh); any other value becomes a missing file, so no
//     input reads the machine's files (or /dev/zero);
//   * a size flag whose value lies inside its documented range but above a small bound
//     (kSmallSizes) skips the input: that is legitimate long work, not a bug. Values beyond the
//     documented range are kept: they must be refused at once;
//   * simulate gets --memory-budget 256 MiB unless the input gives a smaller one.
// stdout and stderr go to /dev/null (run_fuzz.sh also passes -close_fd_mask=3). When the
// environment names a file in FEDVERIFY_FUZZ_STATS, the counts of command lines run and skipped
// are written there at exit (libFuzzer's own count includes the skipped inputs).
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "reports/cli/command_line.hpp"
#include "theory/problems/limits.hpp"

namespace {

namespace limits = fedverify::theory::limits;

struct ProblemFile {
  const char* name;
  std::string text;
};

std::string deep(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') + "2.0" +
         std::string(static_cast<std::size_t>(depth), ']');
}

const std::string kQuadraticClients =
    R"([{"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]},)"
    R"( {"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]}])";
const std::string kOverlap =
    R"({"features": [[1.0, 0.2], [0.5, -1.0], [1.5, 0.3], [-0.2, 0.8]], "labels": [1, -1, 1, -1]})";

// The problem files the fuzzer may name (hostile_inputs.sh has the same ones).
std::vector<ProblemFile> problems() {
  return {
      {"q", R"({"kind": "quadratic", "clients": )" + kQuadraticClients + "}"},
      {"l",
       R"({"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [)" + kOverlap +
           R"(, {"features": [[-1.0, 0.4], [0.3, 1.2], [-0.7, -0.5]], "labels": [-1, 1, 1]}]})"},
      {"l_batch_huge", R"({"kind": "logistic", "l2": 0.1, "batch_size": 2147483647, "clients": [)" +
                           kOverlap + "]}"},
      {"deep20000",
       R"({"kind": "quadratic", "clients": [{"hessian": [[)" + deep(20000) +
           R"(, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]}]})"},
      {"q_huge_hessian",
       R"({"kind": "quadratic", "clients": [{"hessian": [[1e300, 0.0], [0.0, 1e300]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]}, {"hessian": [[1.0, 0.0], [0.0, 1.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]}]})"},
      {"q_overflow",
       R"({"kind": "quadratic", "clients": [{"hessian": [[1e300, 0.0], [0.0, 1e300]], "optimum": [1e300, -1e300], "noise_cov": [[1e300, 0.0], [0.0, 1e300]]}]})"},
      {"l_l2_zero",
       R"({"kind": "logistic", "l2": 0.0, "batch_size": 1, "clients": [)" + kOverlap +
           R"(, {"features": [[-1.0, 0.4], [0.3, 1.2], [-0.7, -0.5]], "labels": [-1, 1, 1]}]})"},
      {"l_singular",
       R"({"kind": "logistic", "l2": 0.0, "batch_size": 1, "clients": [{"features": [[1.0, 0.0], [-1.0, 0.0]], "labels": [1, 1]}, )" +
           kOverlap + "]}"},
      {"l_l2_huge",
       R"({"kind": "logistic", "l2": 1e308, "batch_size": 1, "clients": [{"features": [[1.0, 0.0], [-1.0, 0.0]], "labels": [1, 1]}, )" +
           kOverlap + "]}"},
      {"newline_key",
       "{\"kind\": \"quadratic\", \"clients\": [{\"hessian\": [[1.0]], \"optimum\": [0.0], "
       "\"noise_cov\": [[1.0]], \"bad\\nkey\": 1}]}"},
      {"newline_kind", "{\"kind\": \"quad\\nratic\\u0007\", \"clients\": []}"},
  };
}

std::map<std::string, std::string, std::less<>>& problem_paths() {
  static std::map<std::string, std::string, std::less<>> paths;
  return paths;
}

// Small bounds inside the documented ranges (docs/CLI.md, "Resource limits").
struct SizeBound {
  const char* flag;
  long long small;      // values above it (and inside the range) are skipped
  long long range_max;  // values above it are refused by fedverify at once (range or memory)
};
constexpr SizeBound kSmallSizes[] = {
    // Above 10⁷ chains the memory budget of 256 MiB refuses every run at once (≥ 72 bytes per
    // chain: estimators/simulation/simulate.hpp, simulation_memory_bytes).
    {"--chains", 64, 10000000},
    {"--rounds", 200, limits::kMaxRounds},
    {"--burn-in", 200, limits::kMaxRounds},
    {"--batch-rounds", 200, limits::kMaxRounds},
    {"--local-steps", 100, limits::kMaxLocalStepsSimulate},  // simulate only (predict: log H)
    {"--threads", 2, limits::kMaxThreads},
    {"--participating", 64, limits::kMaxClients},
};
constexpr long long kFuzzMemoryBudget = 256LL << 20;

// The value CLI11 could read from `text` (decimal, hex, or a float literal), if any.
bool numeric_value(const std::string& text, long double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const long long i = std::strtoll(text.c_str(), &end, 0);
  if (end != nullptr && *end == '\0') {
    out = static_cast<long double>(i);
    return true;
  }
  const long double f = std::strtold(text.c_str(), &end);
  if (end != nullptr && *end == '\0') {
    out = f;
    return true;
  }
  return false;
}

// False when the input asks for legitimate long work (see the header).
bool bounded(std::vector<std::string>& args) {
  bool simulate = false, budget = false;
  for (const std::string& a : args) {
    if (a == "report") return false;
    if (a == "simulate") simulate = true;
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i], value;
    const std::size_t eq = flag.find('=');
    if (flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    } else if (i + 1 < args.size()) {
      value = args[i + 1];
    }
    if (flag == "--problem") {
      const auto it = problem_paths().find(value);
      const std::string path = it != problem_paths().end() ? it->second : "/nonexistent/fuzz.json";
      if (eq != std::string::npos) {
        args[i] = "--problem=" + path;
      } else if (i + 1 < args.size()) {
        args[i + 1] = path;
      }
      continue;
    }
    long double v = 0;
    if (!numeric_value(value, v)) continue;
    if (flag == "--memory-budget") {
      budget = true;
      if (v > kFuzzMemoryBudget) return false;
    }
    for (const SizeBound& b : kSmallSizes) {
      if (flag != b.flag) continue;
      if (flag == "--local-steps" && !simulate) continue;
      if (v > b.small && v <= b.range_max) return false;
    }
  }
  if (simulate && !budget) {
    args.push_back("--memory-budget");
    args.push_back(std::to_string(kFuzzMemoryBudget));
  }
  return true;
}

struct RunCounts {
  long long run = 0;
  long long skipped = 0;
};

RunCounts& counts() {
  static RunCounts c;
  return c;
}

void write_counts() {
  const char* file = std::getenv("FEDVERIFY_FUZZ_STATS");
  if (file == nullptr) return;
  std::ofstream(file) << "cli_fuzz: " << counts().run << " command lines run, " << counts().skipped
                      << " skipped (bounded sizes, too many arguments)\n";
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  namespace fs = std::filesystem;
  char pattern[] = "/tmp/fedverify-cli-fuzz-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) std::abort();
  for (const ProblemFile& p : problems()) {
    const fs::path path = fs::path(pattern) / (std::string(p.name) + ".json");
    std::ofstream(path) << p.text;
    problem_paths()[p.name] = path.string();
  }
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::close(null);
  }
  std::atexit(write_counts);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kMaxArgs = 64;
  std::vector<std::string> args{"fedverify"};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (!current.empty()) args.push_back(current);
  if (args.size() > kMaxArgs || !bounded(args)) {
    ++counts().skipped;
    return 0;
  }
  ++counts().run;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  const int rc = fedverify::reports::run_command_line(static_cast<int>(args.size()), argv.data());
  if (rc != 0 && rc != 2) std::abort();  // 1: only report's verdict; 3: an internal error
  return 0;
}
