// The run subcommands after their options are parsed and checked (command_line.cpp declares the
// flags and dispatches; docs/CLI.md is the contract). Each prints one JSON object on stdout and
// returns the exit code: 0 done, 1 (conformance) a law differs; bad input throws InputError naming
// the option or the file (exit 2).
#pragma once

#include "reports/cli/run_options.hpp"
#include "theory/problems/algorithm_registry.hpp"

namespace fedverify::reports {

// `fedverify predict`: the closed forms of the algorithm's family (chain, personalised, game).
int predict_command(const RunInputs& o, const theory::AlgorithmDescriptor& algorithm);

// `fedverify simulate`: a stationary run of the algorithm's family, with the linearised control
// variate when --control-variate asks for it.
int simulate_command(const RunInputs& o, const SimulateInputs& s,
                     const theory::AlgorithmDescriptor& algorithm);

// `fedverify conformance`: exit 0 when the implementation conforms, 1 when a law differs (the JSON
// says which and what it points to), 2 for bad input or a protocol error of the implementation.
int conformance_command(const RunInputs& o, const ConformanceOptions& c,
                        const theory::AlgorithmDescriptor& algorithm);

}  // namespace fedverify::reports
