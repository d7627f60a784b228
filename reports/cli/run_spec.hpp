// Run specs: `fedverify predict|simulate --spec run.json` reads the options of a run from a JSON
// object instead of (or besides) the command line (DESIGN-EXTENSIONS.md, "Run specs"):
//
//   {"problem": "p.json", "algo": "fedopt", "gamma": 0.05, "local_steps": 20,
//    "server": {"name": "adam", "lr": 0.01, "eps": 0.1}, "client": "sgd", "participating": 20,
//    "chains": 1024, "rounds": 3000, "burn_in": 1000, "seed": 7}
//
// Each key is a long option of the subcommand ("local_steps" and "local-steps" both name
// --local-steps); a value is a string, a number or a boolean (true/false: the flag given or
// not), and "server"/"client" may also be an object {"name": …, key: value, …}, written back as
// "name:key=value,…" with the keys in alphabetical order (the order of a JSON object is not
// kept). The spec is expanded into command-line arguments in front of the ones
// given, so every check of the command line applies unchanged and an option given in both places
// is an error naming it. Errors in the spec itself name the file and the key (exit 2).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace fedverify::reports {

// Whether `option` ("--gamma") is an option of `subcommand` ("simulate").
using OptionLookup = std::function<bool(const std::string& subcommand, const std::string& option)>;

// Arguments (without the program name; the subcommand first) with every "--spec FILE" (or
// "--spec=FILE") replaced by the options of FILE. Throws InputError naming the file and the key,
// also for a key that is not an option of the subcommand (`known`).
std::vector<std::string> expand_run_spec(const std::vector<std::string>& args,
                                         const OptionLookup& known);

}  // namespace fedverify::reports
