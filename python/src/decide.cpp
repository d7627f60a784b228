// fedverify.decide: the decision rules of estimators/statistics/decide.hpp on the user's own
// numbers (docs/PYTHON.md). The Python module fedverify/decide.py forms the estimates from
// arrays of replications and documents each rule; here each rule is called as the claims call it.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <vector>

#include "estimators/statistics/decide.hpp"
#include "estimators/statistics/moments.hpp"
#include "estimators/statistics/regression.hpp"
#include "python/src/convert.hpp"
#include "python/src/module.hpp"

namespace fedverify::python {

namespace {

using estimators::Decision;
using estimators::ReplicatedMean;

std::vector<double> values_arg(const py::handle& value, const std::string& name) {
  const Vector v = vector_arg(value, name);
  return {v.data(), v.data() + v.size()};
}

estimators::SlopeEstimate fit(const py::handle& x, const py::handle& y, double alpha, bool log) {
  const std::vector<double> xs = values_arg(x, "x"), ys = values_arg(y, "y");
  return log ? estimators::fit_log_log_slope(xs, ys, alpha) : estimators::fit_slope(xs, ys, alpha);
}

}  // namespace

void bind_decide(py::module_& m) {
  py::module_ d = m.def_submodule("decide", "Decision rules (estimators/statistics/decide.hpp)");
  py::class_<Decision>(d, "Decision")
      .def_readonly("passed", &Decision::passed)
      .def_readonly("statistic", &Decision::statistic)
      .def_readonly("threshold", &Decision::threshold)
      .def_readonly("p_value", &Decision::p_value)
      .def_readonly("alpha", &Decision::alpha)
      .def_readonly("description", &Decision::description)
      .def_readonly("estimate", &Decision::estimate)
      .def_readonly("std_error", &Decision::std_error)
      .def_readonly("lower", &Decision::lower)
      .def_readonly("upper", &Decision::upper)
      .def_readonly("dof", &Decision::dof)
      .def_readonly("allowance", &Decision::allowance)
      .def("__repr__", [](const Decision& x) {
        return fmt::format("<Decision {}: statistic {:.6g}, threshold {:.6g}, p = {:.4g}; {}>",
                           x.passed ? "passed" : "failed", x.statistic, x.threshold, x.p_value,
                           x.description);
      });
  d.def("replicated_vector", [](const py::object& samples) {
    // Rows are replications (G × d), as NumPy users lay them out; the statistics take columns.
    const estimators::ReplicatedMeanVector r =
        estimators::replicated_mean(Matrix(matrix_arg(samples, "samples").transpose()));
    return py::make_tuple(to_numpy(r.mean), to_numpy(r.mean_cov));
  });
  d.def("replicated_scalar", [](const py::object& samples) {
    const ReplicatedMean r = estimators::replicated_mean(values_arg(samples, "samples"));
    return py::make_tuple(r.mean, r.se, r.dof);
  });
  d.def("hotelling", [](const py::object& mean, const py::object& mean_cov, std::int64_t batches,
                        const py::object& prediction, double alpha) {
    return estimators::hotelling_mean_test(vector_arg(mean, "mean"),
                                           matrix_arg(mean_cov, "mean_cov"), batches,
                                           vector_arg(prediction, "prediction"), alpha);
  });
  d.def("wald", [](const py::object& mean, const py::object& mean_cov, const py::object& prediction,
                   double alpha) {
    return estimators::wald_mean_test(vector_arg(mean, "mean"), matrix_arg(mean_cov, "mean_cov"),
                                      vector_arg(prediction, "prediction"), alpha);
  });
  d.def("bonferroni", [](const py::object& mean, const py::object& mcse,
                         const py::object& prediction, double alpha) {
    return estimators::bonferroni_z_test(vector_arg(mean, "mean"), vector_arg(mcse, "mcse"),
                                         vector_arg(prediction, "prediction"), alpha);
  });
  d.def("matrix_agreement", [](const py::object& measured, const py::object& predicted,
                               const py::object& mcse, const py::object& allowance, double alpha) {
    return estimators::matrix_agreement(
        matrix_arg(measured, "measured"), matrix_arg(predicted, "predicted"),
        matrix_arg(mcse, "mcse"),
        allowance.is_none() ? Matrix() : matrix_arg(allowance, "allowance"), alpha);
  });
  d.def("equivalence", [](double estimate, double se, double dof, double lower, double upper,
                          double alpha) {
    return estimators::equivalence_test(ReplicatedMean{estimate, se, dof}, lower, upper, alpha);
  });
  d.def("z_agreement", [](double estimate, double se, double dof, double predicted,
                          double allowance, double alpha) {
    return estimators::z_agreement(ReplicatedMean{estimate, se, dof}, predicted, allowance, alpha);
  });
  d.def("mean_at_most", [](double estimate, double se, double dof, double bound, double alpha) {
    return estimators::mean_at_most(ReplicatedMean{estimate, se, dof}, bound, alpha);
  });
  d.def("difference_exceeds", [](double low, double low_se, double low_dof, double high,
                                 double high_se, double high_dof, double alpha) {
    return estimators::difference_exceeds(ReplicatedMean{low, low_se, low_dof},
                                          ReplicatedMean{high, high_se, high_dof}, alpha);
  });
  d.def("slope", [](const py::object& x, const py::object& y, double s0, double alpha, bool log) {
    const estimators::SlopeEstimate f = fit(x, y, alpha, log);
    return py::make_tuple(estimators::slope_exceeds(f, s0, alpha), f.slope, f.std_error);
  });
  d.def("slope_interval",
        [](const py::object& x, const py::object& y, double s0, double alpha, bool log) {
          const estimators::SlopeEstimate f = fit(x, y, alpha, log);
          return py::make_tuple(estimators::slope_interval_contains(f, s0), f.slope, f.std_error);
        });
  d.def("minimum_detectable_error", [](const Decision& test, double power) {
    return estimators::minimum_detectable_error(test, power);
  });
}

}  // namespace fedverify::python
