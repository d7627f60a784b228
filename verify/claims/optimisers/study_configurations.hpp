// The configurations of the optimiser study (THEORY O6; study_common.hpp has the protocol):
// Table 2.2's 48 server/client pairs, the §2.5.1 variants with the client's ε tuned, the step and
// ε grids each configuration is tuned on, and the pairs a finding compares.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "theory/problems/optimiser.hpp"

namespace fedverify::claims::optimisers::study {

// One row of Table 2.2: server and client as the thesis names them (lower case): server sgd, exp
// (FedExP) or an optimiser; client sgd, prox (FedProx), scaffold or an optimiser.
struct TableConfig {
  int index = 0;
  std::string server;
  std::string client;
  bool tune_epsilon = false;  // the client's ε is tuned with its step (the thesis's §2.5.1)
  std::string label() const;  // "#4 adam/adam", "#49 sgd/adam, ε tuned"
};
const std::vector<TableConfig>& table_2_2();
// §2.5.1's variants: "we tuned the parameter ε in all adaptive methods for the update of
// client-side models": configurations 26–33 (SGD server, a client optimiser with an ε key) again as
// 49–56 with ε tuned on epsilon_grid() together with the client step. Not part of Table 2.2 (the
// table, the findings and their pairs never include them); claim optimisers.study-client-epsilon
// runs them.
const std::vector<TableConfig>& epsilon_variants();
const TableConfig& config(int index);  // 1…48 (Table 2.2), 49…56 (epsilon_variants)
// The ε values tried for a tune_epsilon configuration (every optimiser default lies on it).
std::vector<double> epsilon_grid();

// Which step a configuration tunes (see the file comment).
bool tunes_server(const TableConfig& c);
// The step grid of an optimiser in a role (4 values).
std::vector<double> step_grid(const std::string& optimiser, bool server);
// The Table 2.2 configuration a §2.5.1 variant re-runs with ε tuned (same server and client).
const TableConfig& epsilon_counterpart(const TableConfig& variant);

// The optimiser spec of a table name in a role: an optimiser of Table 2.1, "prox" (FedProx with
// μ_p = kProxMu), "exp" (FedExP) or "scaffold" (its client runs plain SGD steps).
theory::OptimiserSpec optimiser_spec(const std::string& name, theory::OptimiserRole role);
inline constexpr double kProxMu = 0.1;  // FedProx's μ_p (fixed, not tuned)

// The configurations a finding compares: every client/server family of Table 2.2 with both
// optimisers, i.e. the pairs (a, b) of configurations that differ only in a ↔ b.
std::vector<std::pair<int, int>> paired_configs(const std::string& better,
                                                const std::string& worse);

}  // namespace fedverify::claims::optimisers::study
