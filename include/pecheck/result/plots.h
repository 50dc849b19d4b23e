#pragma once
// Plot data gathered from encoder and rotary subjects during a run (the probe
// step), as plain values: the HTML writer draws them, nothing here draws.
#include <string>
#include <vector>

#include "pecheck/core/matrix.h"

namespace pecheck {

// A matrix shown as a colour grid (e.g. the Gram matrix p_t·p_s).
struct Heatmap {
  std::string title;
  std::string caption;      // what to look for, one sentence
  std::string axis_label;   // rows and columns are both indexed by this (e.g. "position")
  Matrix values;
};

struct Series {
  std::string name;
  std::vector<double> x, y;
  bool dashed = false;      // a reference curve rather than a measurement
};

struct LinePlot {
  std::string title;
  std::string caption;
  std::string x_label, y_label;
  bool log_x = false, log_y = false;
  std::vector<Series> series;
};

// Everything plotted for one subject.
struct SubjectPlots {
  std::string subject;                 // subject spec
  std::string kind;                    // "encoder" or "rotary"
  std::string note;                    // why a plot is missing (a refusal, a failure), if one is
  std::vector<Heatmap> heatmaps;
  std::vector<LinePlot> lines;
};

}  // namespace pecheck
