// JSON conversions of the values that sweep tasks return (kit::spread_tasks): Eigen's dynamic
// vectors and matrices, a stationary run's moment estimate and a training run's result. Every
// double is kept as the double it is (a JSON value holds it unchanged; between processes it travels
// as MessagePack, reports/report/claim_codec.hpp). A field added to estimators::MomentEstimate or
// TrainResult is added here too (task_values_test.cpp round-trips every field of the moment
// estimate).
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "estimators/samplers/training/federated_trainer.hpp"
#include "estimators/statistics/moments.hpp"
#include "theory/base/linalg.hpp"

namespace nlohmann {

template <>
struct adl_serializer<Eigen::VectorXd> {
  static void to_json(json& j, const Eigen::VectorXd& v) {
    j = std::vector<double>(v.data(), v.data() + v.size());
  }
  static void from_json(const json& j, Eigen::VectorXd& v) {
    const auto values = j.get<std::vector<double>>();
    v = Eigen::Map<const Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
  }
};

// {"rows": r, "cols": c, "data": the entries column by column}.
template <>
struct adl_serializer<Eigen::MatrixXd> {
  static void to_json(json& j, const Eigen::MatrixXd& m) {
    j = {{"rows", m.rows()},
         {"cols", m.cols()},
         {"data", std::vector<double>(m.data(), m.data() + m.size())}};
  }
  static void from_json(const json& j, Eigen::MatrixXd& m) {
    const auto values = j.at("data").get<std::vector<double>>();
    const auto rows = j.at("rows").get<Eigen::Index>();
    const auto cols = j.at("cols").get<Eigen::Index>();
    if (rows < 0 || cols < 0 || static_cast<std::size_t>(rows * cols) != values.size()) {
      throw json::other_error::create(501, "matrix: rows × cols ≠ the number of entries", &j);
    }
    m = Eigen::Map<const Eigen::MatrixXd>(values.data(), rows, cols);
  }
};

template <>
struct adl_serializer<fedverify::estimators::MomentEstimate> {
  static void to_json(json& j, const fedverify::estimators::MomentEstimate& m) {
    j = {{"mean", m.mean},
         {"mean_cov", m.mean_cov},
         {"mean_mcse", m.mean_mcse},
         {"cov", m.cov},
         {"ess", m.ess},
         {"rhat", m.rhat},
         {"samples", m.samples},
         {"chains", m.chains},
         {"rounds", m.rounds},
         {"batches_per_chain", m.batches_per_chain},
         {"batch_rounds", m.batch_rounds},
         {"cov_mcse", m.cov_mcse}};
  }
  static void from_json(const json& j, fedverify::estimators::MomentEstimate& m) {
    j.at("mean").get_to(m.mean);
    j.at("mean_cov").get_to(m.mean_cov);
    j.at("mean_mcse").get_to(m.mean_mcse);
    j.at("cov").get_to(m.cov);
    j.at("ess").get_to(m.ess);
    j.at("rhat").get_to(m.rhat);
    j.at("samples").get_to(m.samples);
    j.at("chains").get_to(m.chains);
    j.at("rounds").get_to(m.rounds);
    j.at("batches_per_chain").get_to(m.batches_per_chain);
    j.at("batch_rounds").get_to(m.batch_rounds);
    j.at("cov_mcse").get_to(m.cov_mcse);
  }
};

template <>
struct adl_serializer<fedverify::estimators::TrainResult> {
  static void to_json(json& j, const fedverify::estimators::TrainResult& r) {
    j = {{"x", r.x}, {"diverged", r.diverged}, {"rounds", r.rounds}};
  }
  static void from_json(const json& j, fedverify::estimators::TrainResult& r) {
    j.at("x").get_to(r.x);
    j.at("diverged").get_to(r.diverged);
    j.at("rounds").get_to(r.rounds);
  }
};

}  // namespace nlohmann
