// The planted errors of the detection-power table (verify/power/power_table.cpp): every formula
// error, graded perturbation and sampler bug of verify/planted, as a change of claims::Context
// (its predictor or its rounds), with what it is and what it is compared with.
#pragma once

#include <string>
#include <vector>

#include "theory/problems/algorithm.hpp"
#include "verify/claims/claim.hpp"

namespace fedverify::power {

enum class PlantKind {
  formula,  // a gross formula error (factor 2, H for H − 1, lost 1/N, sign)
  graded,   // a formula off by 10 %, 25 %, 50 %, or with a term of the wrong order
  sampler,  // a bug that federated-learning frameworks shipped, planted in a round
  control,  // a correct variant that the claims' theory does not cover (a bug's control)
};
std::string to_string(PlantKind kind);

struct Plant {
  std::string name;
  PlantKind kind = PlantKind::formula;
  std::string description;
  std::string note;  // what is known about it beyond the table (measured elsewhere), or empty
  // The plant whose failure rates this one is compared with; empty: the correct build.
  std::string control;
  // A bug the catalogue must catch: some claim fails it on ≥ 90 % of the seeds while failing
  // the control on ≤ 10 % (power_table --check).
  bool asserted = false;
  claims::Context::Predictor predictor;  // empty: the real first-order formulas
  // The rounds it replaces, by algorithm (empty: none).
  std::vector<theory::Algorithm> algorithms;
  claims::Context::RoundFactory round_for;
};

// Every plant, in table order: formula errors, graded perturbations, sampler bugs (each
// sampler bug after its control, if any).
std::vector<Plant> plants();

}  // namespace fedverify::power
