// The decision of claim optimisers.study-no-single-best (THEORY O6; [Thesis] §2.6.1: "the
// effectiveness of an optimizer is dataset dependent, no single optimizer performs best across all
// tasks"), separate from the study so that tests can feed it planted tables.
//
// Over the K configurations of the study and its data sets d: configuration c is BEATEN when on
// some data set some other configuration c' has a significantly lower mean test loss — decide.hpp
// (n) on the K − 1 paired differences loss(c) − loss(c') of every data set, at family-wise α per c
// (Bonferroni over its |D|(K − 1) intervals): some interval above 0. The claim "no configuration
// is best on every data set" is the intersection over c of "c is beaten"; by the intersection–union
// principle it HOLDS at level α when every c is beaten (no multiplicity correction across c is
// needed for this direction). It FAILS when some c is significantly better than every other
// configuration on every data set: all of c's intervals below 0 at α/K (Bonferroni over the K
// candidates, because the dominant one is picked from the data). INCONCLUSIVE otherwise, and
// always with fewer than two data sets (the statement is about several tasks; the lists are still
// filled).
#pragma once

#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "verify/claims/optimisers/study_common.hpp"

namespace fedverify::claims::optimisers::study {

struct NoSingleBest {
  estimators::Ordering verdict = estimators::Ordering::inconclusive;
  std::vector<int> unbeaten;         // configurations no rival beats significantly anywhere
  std::vector<int> dominant;         // configurations significantly best everywhere (at α/K)
  std::vector<int> best_by_dataset;  // the lowest mean test loss of each data set
  double alpha = 0;
  // The weakest link of "holds": for each configuration the interval that beats it most clearly
  // (largest lower end), at the configuration where that is smallest; passed = (verdict == holds).
  estimators::Decision weakest;
};
NoSingleBest decide_no_single_best(const std::vector<DatasetResult>& datasets, double alpha);

}  // namespace fedverify::claims::optimisers::study
