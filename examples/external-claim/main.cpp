// The fedverify command line, linked with this project's algorithm and claim: both register
// themselves at start-up (damped_fedavg.cpp, damped_mean_claim.cpp), so `predict|simulate --algo
// fedavg-damped` and `report --only 'external.*'` see them like the built-in ones.
#include "reports/cli/command_line.hpp"

int main(int argc, char** argv) { return fedverify::reports::run_command_line(argc, argv); }
