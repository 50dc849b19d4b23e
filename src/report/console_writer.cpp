#include "pecheck/report/console_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "pecheck/core/escape.h"
#include "pecheck/report/matrix.h"
#include "pecheck/report/witness.h"

namespace pecheck {

namespace {

constexpr int kStderrLines = 5;  // lines of a failed subject's stderr shown under it

}  // namespace

std::string tail_lines(const std::string& text, int count) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  std::string out;
  const std::size_t first = lines.size() > static_cast<std::size_t>(count) ? lines.size() - count : 0;
  for (std::size_t i = first; i < lines.size(); ++i) out += "\n         | " + escape_terminal(lines[i]);
  return out;
}

namespace {

std::string mark(Status status, ConsoleStyle style) {
  const char* text = status == Status::passed ? "ok  " : status == Status::skipped ? "skip" : "FAIL";
  if (!style.color) return text;
  const char* colour = status == Status::passed ? "\x1b[32m" : status == Status::skipped ? "\x1b[33m" : "\x1b[1;31m";
  return fmt::format("{}{}\x1b[0m", colour, text);
}

// A counterexample's inputs as the console shows them: a history script of
// hundreds of requests is cut (the counterexample file holds it whole).
std::string shown_inputs(const json& inputs) {
  constexpr std::size_t kMaxInputChars = 800;
  const std::string text = readable(inputs);
  const std::string count = inputs.is_array() ? fmt::format("{} inputs in all; ", inputs.size()) : std::string();
  return clip_utf8(text, kMaxInputChars, fmt::format(" … ({}the counterexample file holds them whole)", count));
}

}  // namespace

std::string progress_line(const PropertyResult& r, const std::string& label, ConsoleStyle style) {
  std::string line = fmt::format("{} {:<44} {:<28} {:<9} {} · {} shrinks · {:.3f} s", mark(r.status(), style), r.property,
                                 escape_terminal(label.empty() ? r.subject : label), name(r.outcome),
                                 escape_terminal(coverage_line(r.cases, r.discards, r.coverage)), r.shrinks, r.seconds);
  if (r.status() == Status::passed && !r.note().empty() && r.held()) {
    // Framed as what it is: the case that came closest to its bound, within it.
    line += "\n       held; closest to its bound: " + escape_terminal(r.note());
  }
  if (r.status() == Status::passed && r.counterexample()) {
    line += "\n       witness " + escape_terminal(witness_line(*r.counterexample()));  // an expected violation
  }
  if (r.status() != Status::passed && !r.message().empty()) line += "\n       " + escape_terminal(r.message());
  if (const auto* f = r.subject_failure(); f != nullptr && !f->stderr_tail.empty()) {
    line += fmt::format("\n       its stderr ends:{}", tail_lines(f->stderr_tail, kStderrLines));
  }
  if (r.counterexample() && r.status() == Status::failed) {
    line += fmt::format("\n       counterexample: {}\n       at {}: observed {}, expected {} (error {:.3g} > {:.3g})",
                        escape_terminal(shown_inputs(r.counterexample()->inputs)), escape_terminal(r.counterexample()->where()),
                        escape_terminal(readable(r.counterexample()->observed)),
                        escape_terminal(readable(r.counterexample()->expected)), r.counterexample()->error,
                        r.counterexample()->tolerance.bound);
    // The bound that judged and the worst-case ceiling beside it (issue 36).
    if (const auto& t = r.counterexample()->tolerance; t.worst_case) {
      line += fmt::format("\n       bound {:.3g} judged by the {}; the worst case is {:.3g}", t.bound,
                          escape_terminal(t.judged_by), *t.worst_case);
    } else if (r.counterexample()->bound_kind == Bound::Kind::upper && t.bound > 0) {
      // A claim with no tight bound: its worst case judged, and is its own ceiling.
      line += fmt::format("\n       bound {:.3g} judged by the worst case (no tight bound for this claim), its own ceiling",
                          t.bound);
    }
    if (!r.counterexample()->diagnosis.empty()) {
      line += "\n       diagnosis: " + escape_terminal(r.counterexample()->diagnosis);
    }
  }
  return line;
}

namespace {

// The sentence that names a failure's cause: the diagnosis, else the message, else where it broke.
std::string cause_sentence(const PropertyResult& r) {
  if (const Counterexample* c = r.counterexample(); c != nullptr && r.status() == Status::failed) {
    return c->diagnosis.empty() ? witness_line(*c) : c->diagnosis;
  }
  return r.message();
}

}  // namespace

std::string what_failed(const RunReport& report, const std::vector<FailureGroup>& groups, const std::string& report_dir) {
  if (groups.empty()) return "";
  constexpr size_t kShown = 10;  // causes listed; the rest are in summary.md
  std::string out = "\nWhat failed, cause first:\n";
  for (size_t i = 0; i < groups.size() && i < kShown; ++i) {
    const auto& g = groups[i];
    out += fmt::format("  {} [{}]: {}\n", g.cause->property, escape_terminal(column_label(report, g.cause->subject)),
                       escape_terminal(cause_sentence(*g.cause)));
    if (!g.consequences.empty()) {
      out += fmt::format("      likely consequences of it, failing beside it: {}\n", consequence_ids(g));
    }
  }
  if (groups.size() > kShown) out += fmt::format("  … and {} more: see {}/summary.md\n", groups.size() - kShown, report_dir);
  return out;
}

std::string write_console_matrix(const RunReport& report) {
  std::string out =
      "\nClaims matrix (expected/observed: H holds, V violated, U checked less than the gate, E error, S skipped; "
      "* = mismatch)\n";
  for (const auto& t : claims_matrix(report)) {
    size_t width = 8;
    for (const auto& row : t.rows) width = std::max(width, row.property.size());
    std::vector<size_t> col;
    out += fmt::format("\n{:<{}}", t.family, width + 2);
    for (const auto& s : t.subjects) {
      const std::string h = escape_terminal(column_label(report, s));
      col.push_back(std::max<size_t>(h.size(), 5));
      out += fmt::format(" {:>{}}", h, col.back());
    }
    out += "\n";
    for (const auto& row : t.rows) {
      out += fmt::format("  {:<{}}", row.property, width);
      for (size_t i = 0; i < row.cells.size(); ++i) {
        std::string cell = "·";
        if (row.cells[i]) cell = cell_text(*row.cells[i]) + (row.cells[i]->status == Status::passed ? " " : "*");
        out += fmt::format(" {:>{}}", cell, col[i] + (cell == "·" ? 1 : 0));
      }
      out += "\n";
    }
  }
  for (const auto& s : report.subjects) {
    if (!s.no_cells.empty()) out += fmt::format("\n{}: {}", escape_terminal(s.spec), escape_terminal(s.no_cells));
  }
  if (!report.nothing_checked.empty()) out += "\nNothing was checked: " + escape_terminal(report.nothing_checked);
  out += fmt::format("\n{}\n", total_line(report));
  return out;
}

}  // namespace pecheck
