#include "report/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "pecheck/core/escape.h"

namespace pecheck {

namespace {

constexpr int kLevels = 10;  // colour steps on each side of zero
constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

std::string mix(double t, int r1, int g1, int b1) {
  // White at t = 0, the given colour at t = 1.
  auto ch = [t](int c) { return static_cast<int>(std::lround(255 + (c - 255) * t)); };
  return fmt::format("#{:02x}{:02x}{:02x}", ch(r1), ch(g1), ch(b1));
}

std::string level_colour(int k) {
  const double t = std::abs(k) / static_cast<double>(kLevels);
  return k >= 0 ? mix(t, 0xb2, 0x18, 0x2b) : mix(t, 0x21, 0x66, 0xac);
}

std::string short_number(double v) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e-3 && a < 1e5) return fmt::format("{:.4g}", v);
  return fmt::format("{:.0e}", v);
}

struct PlotAxis {
  double lo = 0, hi = 1;
  bool log = false;
  double map(double v, double from, double to) const {
    const double a = log ? std::log10(v) : v;
    const double l = log ? std::log10(lo) : lo, h = log ? std::log10(hi) : hi;
    return from + (a - l) / (h - l) * (to - from);
  }
  bool drawable(double v) const { return std::isfinite(v) && (!log || v > 0); }
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      const int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
      const int b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
      const int stride = std::max(1, (b - a + 6) / 7);
      for (int k = a; k <= b; k += stride) out.push_back(std::pow(10.0, k));
      return out;
    }
    const double span = hi - lo;
    const double raw = span / 5;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
      if (m * mag >= raw) { step = m * mag; break; }
    }
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back(v);
    return out;
  }
};

PlotAxis fit_axis(const std::vector<const std::vector<double>*>& values, bool log) {
  PlotAxis axis;
  axis.log = log;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto* vs : values) {
    for (double v : *vs) {
      if (!axis.drawable(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  if (!(lo <= hi)) { lo = log ? 1 : 0; hi = log ? 10 : 1; }
  if (log) {
    lo = std::pow(10.0, std::floor(std::log10(lo)));
    hi = std::pow(10.0, std::ceil(std::log10(hi)));
    if (hi <= lo) hi = lo * 10;
  } else if (hi - lo < 1e-300) {
    lo -= 1;
    hi += 1;
  }
  axis.lo = lo;
  axis.hi = hi;
  return axis;
}

}  // namespace

std::string svg_heatmap(const Heatmap& h, int pixels) {
  const auto n = static_cast<int>(h.values.rows()), m = static_cast<int>(h.values.cols());
  if (n == 0 || m == 0) return "";
  const int cell = std::max(1, pixels / std::max(n, m));
  const int left = 34, top = 8, bar = 14;
  const int w = cell * m, ht = cell * n;
  double scale = 0;
  for (Eigen::Index i = 0; i < h.values.size(); ++i) {
    if (std::isfinite(h.values.data()[i])) scale = std::max(scale, std::fabs(h.values.data()[i]));
  }
  if (scale == 0) scale = 1;
  // One path per colour level keeps the SVG small (a 48×48 grid is ~2300 cells).
  std::map<int, std::string> paths;
  std::string non_finite;
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < m; ++c) {
      const double v = h.values(r, c);
      const std::string rect = fmt::format("M{} {}h{}v{}h-{}z", left + c * cell, top + r * cell, cell, cell, cell);
      if (!std::isfinite(v)) non_finite += rect;
      else paths[static_cast<int>(std::lround(v / scale * kLevels))] += rect;
    }
  }
  const int width = left + w + 16 + bar + 58, height = top + ht + 34;
  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="plot heatmap" width="{}" height="{}" viewBox="0 0 {} {}" role="img"><title>{}</title>)",
      width, height, width, height, escape_xml(h.title));
  for (const auto& [k, d] : paths) out += fmt::format(R"(<path fill="{}" d="{}"/>)", level_colour(k), d);
  if (!non_finite.empty()) out += fmt::format(R"(<path fill="#000" d="{}"/>)", non_finite);
  out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#888"/>)", left, top, w, ht);
  // Index labels at the corners, and the axis name.
  out += fmt::format(R"(<text x="{}" y="{}" class="tick" text-anchor="end">0</text>)", left - 3, top + 9);
  out += fmt::format(R"(<text x="{}" y="{}" class="tick" text-anchor="end">{}</text>)", left - 3, top + ht, n - 1);
  out += fmt::format(R"(<text x="{}" y="{}" class="tick" text-anchor="start">0</text>)", left, top + ht + 12);
  out += fmt::format(R"(<text x="{}" y="{}" class="tick" text-anchor="end">{}</text>)", left + w, top + ht + 12, m - 1);
  out += fmt::format(R"(<text x="{}" y="{}" class="axis" text-anchor="middle">{} s</text>)", left + w / 2,
                     top + ht + 28, escape_xml(h.axis_label));
  out += fmt::format(R"svg(<text class="axis" text-anchor="middle" transform="translate({} {}) rotate(-90)">{} t</text>)svg",
                     12, top + ht / 2, escape_xml(h.axis_label));
  // Colour bar.
  const int bx = left + w + 16;
  const double step = static_cast<double>(ht) / (2 * kLevels + 1);
  for (int k = kLevels; k >= -kLevels; --k) {
    out += fmt::format(R"(<rect x="{}" y="{:.2f}" width="{}" height="{:.2f}" fill="{}"/>)", bx,
                       top + (kLevels - k) * step, bar, step + 0.5, level_colour(k));
  }
  out += fmt::format(R"(<text x="{}" y="{}" class="tick">{}</text>)", bx + bar + 3, top + 9, short_number(scale));
  out += fmt::format(R"(<text x="{}" y="{}" class="tick">0</text>)", bx + bar + 3, top + ht / 2 + 4);
  out += fmt::format(R"(<text x="{}" y="{}" class="tick">{}</text>)", bx + bar + 3, top + ht, short_number(-scale));
  return out + "</svg>";
}

std::string svg_line_plot(const LinePlot& p, int width, int height) {
  std::vector<const std::vector<double>*> xs, ys;
  for (const auto& s : p.series) {
    xs.push_back(&s.x);
    ys.push_back(&s.y);
  }
  const PlotAxis ax = fit_axis(xs, p.log_x), ay = fit_axis(ys, p.log_y);
  const int left = 62, right = 22, top = 12 + 14 * static_cast<int>(p.series.size()), bottom = 40;
  const double x0 = left, x1 = width - right, y0 = height - bottom, y1 = top;
  std::string out = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="plot lines" width="{}" height="{}" viewBox="0 0 {} {}" role="img"><title>{}</title>)",
      width, height, width, height, escape_xml(p.title));
  for (double t : ax.ticks()) {
    const double x = ax.map(t, x0, x1);
    out += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" class="grid"/>)", x, y1, y0);
    out += fmt::format(R"(<text x="{:.1f}" y="{}" class="tick" text-anchor="middle">{}</text>)", x, y0 + 13,
                       short_number(t));
  }
  for (double t : ay.ticks()) {
    const double y = ay.map(t, y0, y1);
    out += fmt::format(R"(<line x1="{1}" y1="{0:.1f}" x2="{2}" y2="{0:.1f}" class="grid"/>)", y, x0, x1);
    out += fmt::format(R"(<text x="{}" y="{:.1f}" class="tick" text-anchor="end">{}</text>)", x0 - 4, y + 3,
                       short_number(t));
  }
  out += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#888"/>)", x0, y1, x1 - x0,
                     y0 - y1);
  out += fmt::format(R"(<text x="{}" y="{}" class="axis" text-anchor="middle">{}</text>)", (x0 + x1) / 2,
                     height - 6, escape_xml(p.x_label));
  out += fmt::format(R"svg(<text class="axis" text-anchor="middle" transform="translate(12 {}) rotate(-90)">{}</text>)svg",
                     (y0 + y1) / 2, escape_xml(p.y_label));
  for (size_t i = 0; i < p.series.size(); ++i) {
    const Series& s = p.series[i];
    const char* colour = kPalette[i % std::size(kPalette)];
    std::string d, dots;
    bool pen_down = false;
    for (size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k) {
      if (!ax.drawable(s.x[k]) || !ay.drawable(s.y[k])) {
        pen_down = false;
        continue;
      }
      const double x = ax.map(s.x[k], x0, x1), y = ay.map(s.y[k], y0, y1);
      d += fmt::format("{}{:.1f} {:.1f}", pen_down ? "L" : "M", x, y);
      if (!s.dashed) dots += fmt::format("M{:.1f} {:.1f}h0.01", x, y);
      pen_down = true;
    }
    out += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="1.6"{}/>)", d, colour,
                       s.dashed ? R"( stroke-dasharray="5 3")" : "");
    if (!dots.empty()) {
      out += fmt::format(R"(<path d="{}" stroke="{}" stroke-width="3.5" stroke-linecap="round"/>)", dots, colour);
    }
    const int lx = left, ly = 12 + 14 * static_cast<int>(i);
    out += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>)", lx, ly - 4,
                       lx + 16, ly - 4, colour, s.dashed ? R"( stroke-dasharray="4 2")" : "");
    out += fmt::format(R"(<text x="{}" y="{}" class="legend">{}</text>)", lx + 20, ly, escape_xml(s.name));
  }
  return out + "</svg>";
}

}  // namespace pecheck
