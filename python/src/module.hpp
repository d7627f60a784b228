// The parts of the module fedverify._core, one per concern (python/src/*.cpp), each adding its
// functions to the module.
#pragma once

#include <pybind11/pybind11.h>

namespace fedverify::python {

void bind_problems(pybind11::module_& m);     // problems.cpp: Problem, load/quadratic/generate
void bind_runs(pybind11::module_& m);         // runs.cpp: predict, exact_moments, simulate
void bind_decide(pybind11::module_& m);       // decide.cpp: the submodule decide
void bind_report(pybind11::module_& m);       // report.cpp: report of Python claims
void bind_conformance(pybind11::module_& m);  // conformance.cpp: a Python implementation checked

}  // namespace fedverify::python
