#include "reports/report/ranks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string_view>

#include "theory/base/input_error.hpp"

#ifdef FEDVERIFY_MPI
#include <mpi.h>

#include <chrono>
#include <climits>
#include <thread>
#endif

namespace fedverify::reports {
namespace {

class SingleProcess final : public Ranks {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_size() const override { return 1; }
  std::vector<std::string> gather(const std::string& bytes) const override { return {bytes}; }
  std::string broadcast(const std::string& bytes) const override { return bytes; }
};

// The number of processes an MPI launcher started with this one: Open MPI's mpirun sets
// OMPI_COMM_WORLD_SIZE, MPICH's mpiexec and Slurm's srun (PMI-1/2) set PMI_SIZE; a PMIx
// launcher sets PMIX_RANK but no size (-1: started by a launcher, size unknown). 0: no launcher.
int launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    const std::string_view text(value);
    int n = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
    return error == std::errc() && end == text.data() + text.size() && n > 0 ? n : -1;
  }
  return std::getenv("PMIX_RANK") != nullptr ? -1 : 0;
}

#ifdef FEDVERIFY_MPI

// An MPI call that failed (MPI_ERRORS_RETURN is set on the world): an internal error (exit 3).
void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  std::string text(MPI_MAX_ERROR_STRING, '\0');
  int length = 0;
  MPI_Error_string(code, text.data(), &length);
  text.resize(static_cast<std::size_t>(std::max(length, 0)));
  throw std::runtime_error(fmt::format("mpi: {} failed: {}", call, text));
}

int checked_int(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) {
    throw std::runtime_error("mpi: a message of the report's results exceeds 2 GiB");
  }
  return static_cast<int>(n);
}

class MpiWorld final : public Ranks {
 public:
  // Initialises MPI; `expected` is the launcher's process count (-1: unknown).
  explicit MpiWorld(int expected) {
    int provided = 0;
    // FUNNELED: only the main thread calls MPI (the claims' OpenMP threads never do).
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      throw InputError("mpi: MPI_Init failed (started by mpirun, but MPI could not start)");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (expected > 0 && expected != size_) {
      MPI_Finalize();
      throw InputError(fmt::format(
          "mpi: the launcher started {} processes but MPI's world has {} (was fedverify built "
          "with another MPI than the launcher's?)",
          expected, size_));
    }
    MPI_Comm node = MPI_COMM_NULL;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    check(MPI_Comm_size(node, &local_size_), "MPI_Comm_size");
    MPI_Comm_free(&node);
  }
  ~MpiWorld() override { MPI_Finalize(); }
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;
  MpiWorld(MpiWorld&&) = delete;
  MpiWorld& operator=(MpiWorld&&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_size() const override { return local_size_; }

  std::vector<std::string> gather(const std::string& bytes) const override {
    wait_for_all();
    const int n = checked_int(bytes.size());
    std::vector<int> sizes(root() ? static_cast<std::size_t>(size_) : 0);
    check(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
    std::vector<int> offsets(sizes.size());
    std::size_t total = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      offsets[r] = checked_int(total);
      total += static_cast<std::size_t>(sizes[r]);
    }
    std::string all(checked_int(total), '\0');
    check(MPI_Gatherv(bytes.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR,
                      0, MPI_COMM_WORLD),
          "MPI_Gatherv");
    std::vector<std::string> out;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      out.push_back(
          all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(sizes[r])));
    }
    return out;
  }

  std::string broadcast(const std::string& bytes) const override {
    wait_for_all();
    int n = root() ? checked_int(bytes.size()) : 0;
    check(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
    std::string out = root() ? bytes : std::string(static_cast<std::size_t>(n), '\0');
    check(MPI_Bcast(out.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
    return out;
  }

 private:
  // Waits until every rank has arrived, polling every millisecond: MPI's blocking collectives
  // spin, and a rank that finished its claims would take a core from one still running them.
  static void wait_for_all() {
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
    int done = 0;
    while (true) {
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done != 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  int rank_ = 0;
  int size_ = 1;
  int local_size_ = 1;
};

#endif

}  // namespace

const Ranks& single_process() {
  static const SingleProcess one;
  return one;
}

bool built_with_mpi() {
#ifdef FEDVERIFY_MPI
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Ranks> launched_ranks() {
  const int launched = launcher_size();
  if (launched == 0) return std::make_unique<SingleProcess>();
#ifdef FEDVERIFY_MPI
  return std::make_unique<MpiWorld>(launched);
#else
  if (launched > 1) {
    throw InputError(fmt::format(
        "mpirun: {} processes started, but this fedverify is built without MPI, so each would "
        "run the whole report into the same --out (run one process, or rebuild with "
        "-DFEDVERIFY_MPI=ON after apt-get install openmpi-bin libopenmpi-dev)",
        launched));
  }
  return std::make_unique<SingleProcess>();
#endif
}

std::vector<int> assign_units(const std::vector<double>& predicted_cost, int ranks) {
  if (ranks < 1) throw std::invalid_argument("assign_units: ranks must be ≥ 1");
  for (const double c : predicted_cost) {
    if (!std::isfinite(c) || c < 0) {
      throw std::invalid_argument("assign_units: a cost is negative or not finite");
    }
  }
  std::vector<std::size_t> order(predicted_cost.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Longest first; equal costs keep their index order (stable sort).
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return predicted_cost[a] > predicted_cost[b];
  });
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  std::vector<int> owner(predicted_cost.size(), 0);
  for (const std::size_t unit : order) {
    // The first rank of least load.
    const auto least = std::min_element(load.begin(), load.end());
    owner[unit] = static_cast<int>(least - load.begin());
    *least += predicted_cost[unit];
  }
  return owner;
}

std::vector<int> assign_units(const std::vector<double>& predicted_cost,
                              const std::vector<std::string>& together, int ranks) {
  if (together.size() != predicted_cost.size()) {
    throw std::invalid_argument("assign_units: one key per unit");
  }
  std::vector<std::size_t> group_of(predicted_cost.size());
  std::vector<double> group_cost;
  std::map<std::string, std::size_t> named;
  for (std::size_t i = 0; i < predicted_cost.size(); ++i) {
    const auto found = together[i].empty() ? named.end() : named.find(together[i]);
    if (found != named.end()) {
      group_of[i] = found->second;
      group_cost[found->second] += predicted_cost[i];
      continue;
    }
    group_of[i] = group_cost.size();
    if (!together[i].empty()) named.emplace(together[i], group_cost.size());
    group_cost.push_back(predicted_cost[i]);
  }
  const std::vector<int> group_owner = assign_units(group_cost, ranks);
  std::vector<int> owner(predicted_cost.size());
  for (std::size_t i = 0; i < owner.size(); ++i) owner[i] = group_owner[group_of[i]];
  return owner;
}

}  // namespace fedverify::reports
