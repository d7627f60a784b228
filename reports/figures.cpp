#include "reports/figures.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fedverify::reports {

bool gnuplot_available() {
  static const bool available = std::system("command -v gnuplot >/dev/null 2>&1") == 0;
  return available;
}

namespace {
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' ? std::string("\\\"") : std::string(1, c));
  return out + "\"";
}
}  // namespace

bool draw_svg(const PlotSpec& plot, const std::string& svg_path) {
  if (!gnuplot_available()) return false;
  namespace fs = std::filesystem;
  const fs::path data = fs::path(svg_path).replace_extension(".dat");
  const fs::path script = fs::path(svg_path).replace_extension(".gp");
  {
    std::ofstream d(data);
    d.precision(17);
    for (const auto& s : plot.series) {
      for (std::size_t i = 0; i < s.x.size(); ++i) {
        d << s.x[i] << ' ' << s.y[i];
        if (!s.err.empty()) d << ' ' << s.err.at(i);
        d << '\n';
      }
      d << "\n\n";  // gnuplot data blocks are separated by two blank lines (index)
    }
  }
  {
    std::ofstream g(script);
    g << "set terminal svg size 720,480 dynamic enhanced font 'sans,12' background rgb 'white'\n";
    g << "set output " << quote(svg_path) << "\n";
    g << "set title " << quote(plot.title) << "\n";
    g << "set xlabel " << quote(plot.xlabel) << "\nset ylabel " << quote(plot.ylabel) << "\n";
    g << "set grid\nset key outside right top\n";
    if (plot.log_x) g << "set logscale x\nset format x '10^{%L}'\n";
    if (plot.log_y) g << "set logscale y\nset format y '10^{%L}'\n";
    if (plot.equal_axes) g << "set size ratio -1\n";
    g << "plot ";
    for (std::size_t i = 0; i < plot.series.size(); ++i) {
      const auto& s = plot.series[i];
      g << (i ? ", " : "") << quote(data.string()) << " index " << i
        << (s.err.empty() ? " using 1:2 with " + s.style : " using 1:2:3 with yerrorlines")
        << " title " << quote(s.title);
    }
    g << "\n";
  }
  const std::string cmd = fmt::format("gnuplot {} 2>/dev/null", quote(script.string()));
  const bool ok = std::system(cmd.c_str()) == 0 && fs::exists(svg_path);
  std::error_code ec;
  fs::remove(data, ec);
  fs::remove(script, ec);
  return ok;
}

}  // namespace fedverify::reports
