#include "verify/claims/problems/research_logistic_problems.hpp"

#include <fmt/format.h>

#include <memory>
#include <utility>
#include <vector>

#include "theory/problems/logistic_data.hpp"
#include "theory/problems/multinomial_data.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"

namespace fedverify::claims {
namespace {

constexpr int kClients = 10;
constexpr double kDirichletAlpha = 0.5;
constexpr double kL2 = 0.05;
constexpr std::uint64_t kPartitionSeed = 7;
constexpr int kLargeBatch = 64;

}  // namespace

const ResearchLogistic& research_logistic_problems() {
  static const ResearchLogistic problems = [] {
    ResearchLogistic v;
    v.dirichlet_alpha = kDirichletAlpha;
    v.partition_seed = kPartitionSeed;
    theory::CsvOptions csv;
    csv.header = theory::CsvHeader::sklearn_counts;
    csv.standardize = true;
    csv.intercept = true;
    const theory::LabelledTable table =
        theory::load_csv_table(theory::sklearn_table_path("breast_cancer.csv"), csv);
    const theory::LogisticProblem split = theory::partition_dirichlet(
        table.features, table.labels, kClients, kDirichletAlpha, kPartitionSeed, kL2, 1);
    v.breast_cancer = {
        "lr-breast-cancer",
        fmt::format("logistic regression on breast-cancer (569 × 30, standardised, intercept: d = "
                    "31), N = {} clients by Dirichlet({}) labels (seed {}), λ = {}, B = 1",
                    kClients, kDirichletAlpha, kPartitionSeed, kL2),
        std::make_shared<theory::LogisticProblem>(split)};
    std::vector<theory::LogisticClient> twice;
    twice.reserve(2 * static_cast<std::size_t>(split.num_clients()));
    for (int r = 0; r < 2; ++r) {
      for (int c = 0; c < split.num_clients(); ++c) twice.push_back(split.client(c));
    }
    v.breast_cancer_doubled = {"lr-breast-cancer-x2",
                               "lr-breast-cancer with every client twice (N = 20)",
                               std::make_shared<theory::LogisticProblem>(
                                   std::move(twice), split.l2(), split.batch_size())};
    std::vector<theory::LogisticClient> same(kClients,
                                             theory::LogisticClient{table.features, table.labels});
    v.breast_cancer_homogeneous = {
        "lr-breast-cancer-homog",
        fmt::format(
            "breast-cancer (d = 31) whole on each of N = {} identical clients, λ = {}, B = 1",
            kClients, kL2),
        std::make_shared<theory::LogisticProblem>(std::move(same), kL2, 1)};
    v.large_batch_size = kLargeBatch;
    v.breast_cancer_large_batch = {
        "lr-breast-cancer-B64",
        fmt::format("lr-breast-cancer with minibatch size B = {}", kLargeBatch),
        with_batch(split, kLargeBatch)};
    return v;
  }();
  return problems;
}

}  // namespace fedverify::claims
