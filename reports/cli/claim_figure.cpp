#include "reports/cli/claim_figure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "verify/claims/kit/kit.hpp"

namespace fedverify::reports {

void add_claim_figure(const ClaimFile& c, const claims::Context& ctx, claims::ClaimResult& out) {
  claims::PlotSpec plot;
  plot.xlabel = "step size γ";
  plot.log_x = true;
  std::string caption;
  if (c.rule == ClaimRule::remainder_order) {
    plot.title = "max |predicted − exact| against γ, per setting";
    plot.ylabel = "max |predicted − exact|";
    plot.log_y = true;
    for (const claims::Row& row : out.rows) {
      const auto gammas = row.data.value("gammas", std::vector<double>{});
      const auto errors = row.data.value("errors", std::vector<double>{});
      if (gammas.empty() ||
          std::any_of(errors.begin(), errors.end(), [](double e) { return !(e > 0); })) {
        continue;  // exact somewhere: nothing to draw on a log scale
      }
      plot.series.push_back({row.setting.substr(0, row.setting.find(", γ ∈")), gammas, errors});
    }
    caption = fmt::format(
        "The remainder of the prediction against γ (log–log), one line per setting; the rule "
        "asks for a slope above {:g}.",
        c.order);
  } else {
    const bool tolerance = c.rule == ClaimRule::tolerance;
    plot.title = tolerance ? "relative error against γ" : "test statistic / threshold against γ";
    plot.ylabel =
        tolerance ? "max |measured − predicted| / max |measured|" : "statistic / threshold";
    // Log scale for relative errors unless some is 0 (an exact prediction: drawn at 0 on a linear
    // scale rather than left out).
    plot.log_y = tolerance && std::all_of(out.rows.begin(), out.rows.end(), [](const auto& r) {
                   return r.data.value("relative_error", 1.0) > 0;
                 });
    std::map<std::string, claims::Series> groups;  // setting but γ → its points
    std::vector<std::string> order;
    double low = HUGE_VAL, high = 0;
    for (std::size_t i = 0; i < out.rows.size() && i < c.points.size(); ++i) {
      const nlohmann::json& d = out.rows[i].data;
      double y = 0;
      if (tolerance && d.contains("relative_error")) {
        y = d["relative_error"].get<double>();
      } else if (!tolerance && d.contains("statistic") && d["threshold"].get<double>() > 0) {
        y = d["statistic"].get<double>() / d["threshold"].get<double>();
      } else {
        continue;
      }
      if (plot.log_y && !(y > 0)) continue;
      const std::string& key = c.points[i].others;
      auto [it, fresh] = groups.try_emplace(key);
      if (fresh) {
        it->second.title = key.empty() ? "rows" : key;
        order.push_back(key);
      }
      it->second.x.push_back(c.points[i].step.gamma);
      it->second.y.push_back(y);
      low = std::min(low, c.points[i].step.gamma);
      high = std::max(high, c.points[i].step.gamma);
    }
    for (const std::string& key : order) plot.series.push_back(groups[key]);
    if (!order.empty()) {
      const double line = tolerance ? c.tolerance : 1.0;
      if (!plot.log_y || line > 0) {
        plot.series.push_back({tolerance ? "tolerance" : "threshold (fails above)",
                               {low, high},
                               {line, line},
                               "lines"});
      }
    }
    caption = tolerance ? "The relative error of the prediction at each γ, one line per setting "
                          "but γ; a row holds on or below the tolerance line."
                        : "The test statistic over its threshold at each γ, one line per setting "
                          "but γ; a row holds on or below 1.";
  }
  if (plot.series.empty()) return;
  claims::kit::add_figure(ctx, plot, c.figure_file, caption, out);
}

}  // namespace fedverify::reports
