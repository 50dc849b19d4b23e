#pragma once
// Inline SVG for report.html: a heatmap and a line plot, drawn from the plain
// plot values of report/plots.h. Pure functions; every label is XML-escaped.
#include <string>

#include "pecheck/result/plots.h"

namespace pecheck {

// A diverging colour grid (blue negative, white zero, red positive), scaled to
// the largest |value|; non-finite entries are drawn black.
std::string svg_heatmap(const Heatmap& heatmap, int pixels = 260);
// Lines on linear or log axes; points that cannot be drawn (non-finite, or
// not positive on a log axis) break the line.
std::string svg_line_plot(const LinePlot& plot, int width = 400, int height = 250);

}  // namespace pecheck
