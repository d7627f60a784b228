#include "verify/claims/problems/research_logistic_problems.hpp"

#include <fmt/format.h>

#include <memory>
#include <string>

#include "theory/problems/logistic_data.hpp"
#include "theory/problems/multinomial_data.hpp"
#include "verify/claims/problems/default_logistic_problems.hpp"

namespace fedverify::claims {
namespace {

constexpr int kClients = 10;
constexpr double kDirichletAlpha = 0.5;
constexpr double kL2 = 0.05;
constexpr std::uint64_t kPartitionSeed = 7;

}  // namespace

const ResearchLogistic& research_logistic_problems() {
  static const ResearchLogistic problems = [] {
    ResearchLogistic v;
    theory::CsvOptions csv;
    csv.header = theory::CsvHeader::sklearn_counts;
    csv.standardize = true;
    csv.intercept = true;
    const std::string path = theory::sklearn_table_path("breast_cancer.csv");
    const theory::LabelledTable table = theory::load_csv_table(path, csv);
    v.breast_cancer = {
        "lr-breast-cancer",
        fmt::format("logistic regression on breast-cancer (569 × 30, standardised, intercept: d = "
                    "31), N = {} clients by Dirichlet({}) labels (seed {}), λ = {}, B = 1",
                    kClients, kDirichletAlpha, kPartitionSeed, kL2),
        std::make_shared<theory::LogisticProblem>(theory::partition_dirichlet(
            table.features, table.labels, kClients, kDirichletAlpha, kPartitionSeed, kL2, 1)),
        {{"name", "breast-cancer"},
         {"table", path},
         {"standardise", true},
         {"intercept", true},
         {"clients", kClients},
         {"split", "dirichlet"},
         {"alpha", kDirichletAlpha},
         {"seed", kPartitionSeed},
         {"l2", kL2},
         {"batch_size", 1},
         {"code", "verify/claims/problems/research_logistic_problems.cpp"}}};
    nlohmann::json doubled = v.breast_cancer.generator;
    doubled["every_client_twice"] = true;
    v.breast_cancer_doubled = {"lr-breast-cancer-x2",
                               "lr-breast-cancer with every client twice (N = 20)",
                               every_client_twice(as_logistic(v.breast_cancer)), doubled};
    return v;
  }();
  return problems;
}

}  // namespace fedverify::claims
