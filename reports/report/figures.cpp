#include "reports/report/figures.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <sstream>
#include <system_error>
#include <vector>

#include "theory/base/input_error.hpp"

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

// Cell edges of a heat-map axis: midpoints between neighbouring centres (geometric on a log
// axis), the end cells symmetric about their centre. edges.size() = centres.size() + 1.
std::vector<double> cell_edges(const std::vector<double>& c, bool log_axis) {
  const auto mid = [log_axis](double a, double b) {
    return log_axis ? std::sqrt(a * b) : 0.5 * (a + b);
  };
  const auto mirror = [log_axis](double centre, double edge) {
    return log_axis ? centre * centre / edge : 2.0 * centre - edge;
  };
  std::vector<double> e(c.size() + 1);
  if (c.size() == 1) {  // one cell: a factor 2 (log) or ±1/2 (linear) around it
    e[0] = log_axis ? c[0] / 2.0 : c[0] - 0.5;
    e[1] = log_axis ? c[0] * 2.0 : c[0] + 0.5;
    return e;
  }
  for (std::size_t i = 1; i < c.size(); ++i) e[i] = mid(c[i - 1], c[i]);
  e.front() = mirror(c.front(), e[1]);
  e.back() = mirror(c.back(), e[c.size() - 1]);
  return e;
}

// Colours of the categorical classes, in order: light blue (as claimed), light yellow, orange,
// then neutral greys for any further class. Paul Tol's "light" scheme: distinguishable under
// every common colour-vision deficiency, and light enough that the series drawn over the cells
// (black and dark colours) stay visible.
constexpr const char* kClassColours[] = {"#77AADD", "#EEDD88", "#EE8866", "#BBBBBB", "#DDDDDD"};

// Series colours: the Okabe–Ito palette (colour-blind safe) without its yellow, too pale on white.
constexpr const char* kSeriesColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                          "#E69F00", "#56B4E9", "#000000"};
// Markers and dash types, one per series (cycling independently of the colours), so that series
// that coincide remain distinguishable where they overlap and in print: filled and open shapes
// alternate (gnuplot pt: 7 ● 4 □ 9 ▲ 6 ○ 5 ■ 10 ▽ 13 ◆ 12 ◇), the open ones larger, so an open
// marker drawn over a filled one, or under it, still shows; dashes run 1 (solid) to 5.
struct Marker {
  int type;
  double size;
};
constexpr Marker kMarkers[] = {{7, 1.0}, {4, 1.5},  {9, 1.0},  {6, 1.5},
                               {5, 1.0}, {10, 1.5}, {13, 1.1}, {12, 1.6}};
constexpr int kDashes[] = {1, 2, 4, 5, 3};

bool has_word(const std::string& style, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    const std::string padded = " " + style + " ";
    if (padded.find(std::string(" ") + w + " ") != std::string::npos) return true;
  }
  return false;
}

// The "with" clause of series i: the claim's style, completed by the series' colour, marker
// and dash type where the claim did not choose them.
std::string with_clause(const std::string& base, const std::string& style, std::size_t i) {
  std::string out = base;
  const std::string kind = style.substr(0, style.find(' '));
  const bool lines =
      kind == "lines" || kind == "linespoints" || base.find("yerrorlines") != std::string::npos;
  const bool points = kind != "lines" && kind != "dots";
  if (!has_word(style, {"lc", "linecolor"})) {
    out += fmt::format(" lc rgb '{}'", kSeriesColours[i % std::size(kSeriesColours)]);
  }
  const Marker& marker = kMarkers[i % std::size(kMarkers)];
  if (points && !has_word(style, {"pt", "pointtype"})) out += fmt::format(" pt {}", marker.type);
  if (points && !has_word(style, {"ps", "pointsize"})) out += fmt::format(" ps {}", marker.size);
  if (lines && !has_word(style, {"dt", "dashtype"})) {
    out += fmt::format(" dt {}", kDashes[i % std::size(kDashes)]);
  }
  if (lines && !has_word(style, {"lw", "linewidth"})) out += " lw 1.5";
  return out;
}

// Characters of a UTF-8 text (code points), for the layout estimates below.
std::size_t characters(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// A title longer than the frame is broken in two at a space (gnuplot centres each line); gnuplot
// would otherwise run it off both edges. A space after ':' or ',' ends a phrase and is preferred
// to one inside an expression ("…clients: tr Cov_π · N/γ against N", not "…: tr" / "Cov_π …")
// (outside parentheses) unless it lies more than a quarter of the title further from the middle.
std::string wrapped_title(const std::string& title) {
  constexpr std::size_t kLine = 80;  // characters of the 12-pt font across 720 pixels, less margins
  if (characters(title) <= kLine) return title;
  const double middle = static_cast<double>(title.size()) / 2;
  const double phrase_bonus = static_cast<double>(title.size()) / 4;
  std::size_t best = std::string::npos;
  double best_cost = 0;
  int depth = 0;  // of parentheses: "(γL = 0.1, H = 2)" is not broken at its comma by preference
  for (std::size_t at = 0; at < title.size(); ++at) {
    depth += title[at] == '(' ? 1 : title[at] == ')' ? -1 : 0;
    if (title[at] != ' ') continue;
    const bool after_phrase =
        depth == 0 && at > 0 && (title[at - 1] == ':' || title[at - 1] == ',');
    const double cost =
        std::abs(static_cast<double>(at) - middle) - (after_phrase ? phrase_bonus : 0.0);
    if (best == std::string::npos || cost < best_cost) {
      best = at;
      best_cost = cost;
    }
  }
  if (best == std::string::npos) return title;
  return title.substr(0, best) + "\\n" + title.substr(best + 1);
}

// Writes the heat map's cells as one gnuplot data block (x y xlow xhigh ylow yhigh colour) and
// the commands that set its axes and palette. NaN cells are left out (blank).
void write_heatmap(const claims::PlotSpec& plot, std::ostream& data, std::ostream& script) {
  const claims::Heatmap& m = plot.heatmap;
  const std::vector<double> xe = cell_edges(m.x, plot.log_x);
  const std::vector<double> ye = cell_edges(m.y, plot.log_y);
  for (std::size_t j = 0; j < m.y.size(); ++j) {
    for (std::size_t i = 0; i < m.x.size(); ++i) {
      const double z = m.z.at(j * m.x.size() + i);
      if (!std::isfinite(z) || (m.log_z && !(z > 0.0))) continue;
      data << m.x[i] << ' ' << m.y[j] << ' ' << xe[i] << ' ' << xe[i + 1] << ' ' << ye[j] << ' '
           << ye[j + 1] << ' ' << z << '\n';
    }
  }
  data << "\n\n";
  script << "set xrange [" << xe.front() << ":" << xe.back() << "]\n";
  script << "set yrange [" << ye.front() << ":" << ye.back() << "]\n";
  script << "set cblabel " << quote(m.zlabel) << "\nset rmargin 14\n";  // room for the colour bar
  if (!m.classes.empty()) {
    const std::size_t k = m.classes.size();
    script << "set palette maxcolors " << k << "\nset palette defined (";
    for (std::size_t c = 0; c < k; ++c) {
      script << (c ? ", " : "") << c << " "
             << quote(kClassColours[std::min(c, std::size(kClassColours) - 1)]);
    }
    script << ")\nset cbrange [-0.5:" << static_cast<double>(k) - 0.5 << "]\nset cbtics (";
    for (std::size_t c = 0; c < k; ++c)
      script << (c ? ", " : "") << quote(m.classes[c]) << " " << c;
    script << ")\n";
  } else {
    // Viridis (perceptually uniform, colour-blind safe), sampled at five stops.
    script << "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 "
              "'#fde725')\n";
    if (m.log_z) script << "set logscale cb\nset format cb '10^{%L}'\n";
  }
}
}  // namespace

ScratchDirectory::ScratchDirectory() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path base = fs::temp_directory_path(ec);
  std::string pattern = ((ec ? fs::path("/tmp") : base) / "fedverify-figures-XXXXXX").string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    throw InputError(fmt::format("TMPDIR: cannot create a scratch directory {} for gnuplot: {}",
                                 pattern, std::generic_category().message(errno)));
  }
  path_ = buffer.data();
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

namespace {

// gnuplot's SVG terminal closes the document with </svg>; a file without it is partial (gnuplot
// was killed or its write failed).
bool complete_svg(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  constexpr std::streamoff kTail = 64;
  if (size <= 0) return false;
  in.seekg(std::max<std::streamoff>(0, size - kTail));
  const std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return tail.find("</svg>") != std::string::npos;
}

}  // namespace

bool draw_svg(const PlotSpec& plot, const std::filesystem::path& svg_path,
              const ScratchDirectory& scratch) {
  if (!gnuplot_available()) return false;
  namespace fs = std::filesystem;
  const fs::path stem = svg_path.filename().replace_extension();
  const fs::path data = scratch.path() / stem.string().append(".dat");
  const fs::path script = scratch.path() / stem.string().append(".gp");
  std::ostringstream heat;  // the heat map's axis and palette commands
  {
    std::ofstream d(data);
    d.precision(17);
    if (!plot.heatmap.empty()) write_heatmap(plot, d, heat);
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
    // The key goes below the plot, so it never squeezes the data or covers it: the figure grows
    // by the key's rows (estimated from the longest entry in the 12-pt font, ≈ 7 px a character
    // plus the sample) instead. Entries without a title take no room.
    std::size_t titled = 0, longest = 0;
    for (const auto& s : plot.series) {
      if (s.title.empty()) continue;
      ++titled;
      longest = std::max(longest, characters(s.title));
    }
    const std::size_t columns =
        std::clamp<std::size_t>(660 / (7 * longest + 80), 1, std::max<std::size_t>(titled, 1));
    const std::size_t key_rows = (titled + columns - 1) / columns;
    const std::size_t height = 440 + 18 * key_rows + (plot.title.empty() ? 0 : 10);
    g << "set terminal svg size 720," << height
      << " dynamic enhanced font 'sans,12' background rgb 'white'\n";
    g << "set output " << quote(svg_path.string()) << "\n";
    g << "set title " << quote(wrapped_title(plot.title)) << "\n";
    g << "set xlabel " << quote(plot.xlabel) << "\nset ylabel " << quote(plot.ylabel) << "\n";
    g << "set grid lc rgb '#dddddd'\n";
    g << "set key below center horizontal Left reverse maxcols " << columns
      << " samplen 3 spacing 1.1\n";
    g << heat.str();
    if (plot.log_x) g << "set logscale x\nset format x '10^{%L}'\n";
    if (plot.log_x && plot.heatmap.empty()) {  // a heat map sets its own range
      // gnuplot widens a log axis to whole decades, which can leave most of the plot empty
      // (e.g. γL from 0.05 to 0.4 drawn over 0.01–1): span the data instead, with a margin
      // of 10^0.05 on each side so the end points stay off the frame.
      double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
      for (const auto& s : plot.series) {
        for (double x : s.x) {
          if (x > 0.0) {
            lo = std::min(lo, x);
            hi = std::max(hi, x);
          }
        }
      }
      if (lo < hi) {
        constexpr double kMargin = 1.1220184543019633;  // 10^0.05
        const double from = lo / kMargin, to = hi * kMargin;
        g << "set xrange [" << from << ":" << to << "]\n";
        // Less than three decades: decade labels alone would leave one or none on the axis, so
        // label 1, 2, 5 × 10^k instead.
        if (to / from < 1e3) {
          std::string tics;
          for (int k = static_cast<int>(std::floor(std::log10(from))); k <= std::log10(to); ++k) {
            for (double m : {1.0, 2.0, 5.0}) {
              const double t = m * std::pow(10.0, k);
              if (t >= from && t <= to) tics += fmt::format("{}{:g}", tics.empty() ? "" : ", ", t);
            }
          }
          g << "set format x '%g'\nset xtics (" << tics << ")\n";
        }
      }
    }
    if (plot.log_y) g << "set logscale y\nset format y '10^{%L}'\n";
    if (!plot.heatmap.empty()) g << "unset grid\n";  // the cells would hide it
    if (plot.equal_axes) g << "set size ratio -1\n";
    g << "plot ";
    // The heat map is data block 0 and the series follow it.
    const std::size_t first = plot.heatmap.empty() ? 0 : 1;
    if (first == 1) {
      g << quote(data.string())
        << " index 0 using 1:2:3:4:5:6:7 with boxxyerror fs solid 1.0 noborder fc palette notitle";
    }
    for (std::size_t i = 0; i < plot.series.size(); ++i) {
      const auto& s = plot.series[i];
      const std::string with = s.err.empty() ? " using 1:2 with " + s.style
                               : s.style == "points"
                                   ? " using 1:2:3 with yerrorbars"  // unconnected points
                                   : " using 1:2:3 with yerrorlines";
      g << (i + first ? ", " : "") << quote(data.string()) << " index " << i + first
        << with_clause(with, s.style, i) << " title " << quote(s.title);
    }
    g << "\n";
  }
  const std::string cmd = fmt::format("gnuplot {} 2>/dev/null", quote(script.string()));
  const bool ok = std::system(cmd.c_str()) == 0 && complete_svg(svg_path);
  std::error_code ec;
  fs::remove(data, ec);
  fs::remove(script, ec);
  if (!ok) fs::remove(svg_path, ec);  // never leave a partial figure
  return ok;
}

}  // namespace fedverify::reports
