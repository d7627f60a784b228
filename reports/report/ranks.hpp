// The processes that share one `fedverify report` (docs/DESIGN-EXTENSIONS.md, "Reports across
// machines"): MPI ranks when fedverify is built with MPI (CMake option FEDVERIFY_MPI) and was
// started by an MPI launcher (mpirun, srun), else this process alone.
//
// The report's units are its claims. Every rank runs the claims assigned to it (assign_units, a
// deterministic rule) with the same context and seeds as a single process would, and sends their
// results to rank 0, which assembles them in report order and alone writes the output. A claim's
// result is a pure function of (claim, seed, grid), so the output is bit-identical for any number
// of ranks and threads (ctest report.mpi_equality). MPI appears only in ranks.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace fedverify::reports {

class Ranks {
 public:
  Ranks() = default;
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;
  Ranks(Ranks&&) = delete;
  Ranks& operator=(Ranks&&) = delete;
  virtual ~Ranks() = default;

  virtual int rank() const = 0;  // 0 … size() − 1
  virtual int size() const = 0;
  // The ranks on this machine (this one included), which share its cores.
  virtual int local_size() const = 0;
  bool root() const { return rank() == 0; }

  // Collective (every rank calls it): on rank 0, every rank's bytes in rank order; on the
  // others, nothing. A rank that arrives early waits without spinning a core.
  virtual std::vector<std::string> gather(const std::string& bytes) const = 0;
  // Collective: rank 0's bytes on every rank (the others' argument is ignored).
  virtual std::string broadcast(const std::string& bytes) const = 0;
};

// This process alone (rank 0 of 1): gather and broadcast return their argument.
const Ranks& single_process();

// Whether this fedverify was built with MPI.
bool built_with_mpi();

// The ranks this process was started among. No MPI launcher in the environment: this process
// alone, MPI untouched. Started by a launcher: MPI's world (MPI is initialised here and
// finalised when the object is destroyed). Throws InputError (exit 2) naming the cause when the
// launcher started several processes but this build has no MPI (each would run the whole report
// into the same --out), or MPI cannot be initialised, or MPI's world is not the launcher's.
std::unique_ptr<Ranks> launched_ranks();

// Which rank runs each unit, from its predicted cost (finite, ≥ 0, any unit of time; equal costs
// give round-robin): the longest unit first, onto the rank with the least predicted load (ties: the
// lower unit index, the lower rank). Deterministic: the same costs give the same assignment.
std::vector<int> assign_units(const std::vector<double>& predicted_cost, int ranks);
// The same, keeping units together: the units whose `together` key is the same non-empty string
// are one unit of their summed cost (claims that share one computation); an empty key is a unit
// of its own. `together` has one key per unit.
std::vector<int> assign_units(const std::vector<double>& predicted_cost,
                              const std::vector<std::string>& together, int ranks);

}  // namespace fedverify::reports
