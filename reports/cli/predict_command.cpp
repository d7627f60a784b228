#include <fmt/format.h>

#include "reports/cli/commands.hpp"
#include "reports/cli/game_command.hpp"
#include "reports/cli/l2gd_command.hpp"
#include "reports/cli/run_commands.hpp"
#include "reports/cli/validity_warning.hpp"
#include "theory/problems/game_io.hpp"
#include "theory/problems/gda_setting.hpp"
#include "theory/problems/problem_io.hpp"

namespace fedverify::reports {

int predict_command(const CommonOptions& o, const theory::AlgorithmDescriptor& algorithm) {
  if (!algorithm.has_closed_forms) {
    const std::string with = theory::algorithm_names(
        [](const theory::AlgorithmDescriptor& d) { return d.has_closed_forms; }, "and");
    throw InputError(fmt::format("--algo: predict has no closed forms for {} (it has them for {})",
                                 algorithm.name(), with));
  }
  if (algorithm.family == theory::AlgorithmFamily::game) {
    const theory::GameProblem game = theory::load_game(o.problem_file);
    print_result(
        reports::predict_game(game, theory::gda_setting(o.gamma, o.step_ratio, o.local_steps)));
    return 0;
  }
  const auto problem = theory::load_problem(o.problem_file);
  switch (algorithm.family) {
    case theory::AlgorithmFamily::game:  // above
      return 0;
    case theory::AlgorithmFamily::personalised:
      if (o.participating != 0) {
        throw InputError(
            fmt::format("--participating: only for simulate with --algo {}", algorithm.name()));
      }
      print_result(reports::predict_l2gd(*problem, require_lambda(o), o.p, o.gamma));
      return 0;
    case theory::AlgorithmFamily::chain: {
      const theory::StepSetting step = step_setting(o);
      nlohmann::json out = reports::predict(*problem, algorithm.algorithm, step);
      // γHL ≫ 1: the first-order fields mean nothing (validity_warning.hpp); stdout unchanged.
      const std::string warning = reports::first_order_validity_warning(*problem, step);
      if (!warning.empty()) print_error(warning);
      out.update(reports::optimiser_fields(algorithm.algorithm, step, problem->num_clients()));
      out.update(reports::preset_field(o.algorithm));
      print_result(out);
      return 0;
    }
  }
  return 0;
}

}  // namespace fedverify::reports
