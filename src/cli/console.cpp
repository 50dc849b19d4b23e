#include "cli/console.h"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string_view>

#include "cli/commands.h"
#include "cli/subject_header.h"
#include "pecheck/core/escape.h"
#include "pecheck/core/subject_spec.h"
#include "pecheck/replay/regression_store.h"
#include "pecheck/report/annotations.h"
#include "pecheck/report/console_writer.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/matrix.h"

namespace pecheck::cli {

Terminal Terminal::of_stdout() {
  Terminal t;
  t.tty = isatty(STDOUT_FILENO) == 1;
  const char* no_color = std::getenv("NO_COLOR");  // https://no-color.org: set and not empty
  const char* term = std::getenv("TERM");
  t.color = t.tty && (no_color == nullptr || *no_color == '\0') && !(term != nullptr && std::string_view(term) == "dumb");
  return t;
}

std::string ConsoleObserver::label(const std::string& spec) const {
  const auto it = labels_.find(spec);
  return it == labels_.end() ? spec : it->second;
}

void ConsoleObserver::on_plan(const Plan& plan) {
  std::vector<SubjectSummary> named;
  for (const auto& planned : plan.subjects) {
    named.push_back(
        {.spec = format_spec(planned.spec), .name = planned.subject ? planned.subject->info().name : std::string()});
  }
  for (const auto& s : named) labels_[s.spec] = column_label(named, s.spec);
  for (const auto& planned : plan.subjects) {
    if (planned.start_failure) {
      std::string tail;
      if (!planned.start_failure->stderr_tail.empty()) {
        constexpr int kStderrLines = 5;
        tail = "\n       its stderr ends:" + tail_lines(planned.start_failure->stderr_tail, kStderrLines);
      }
      std::cout << fmt::format("FAIL subject start {}\n       subject failure: {}{}\n",
                               escape_terminal(format_spec(planned.spec)),
                               escape_terminal(planned.start_failure->message), tail);
    } else if (!quiet_ && planned.spec.kind != SubjectKind::builtin) {
      // Built-ins are the claims matrix's own references: `pecheck list` describes them.
      std::cout << subject_header(planned, label(format_spec(planned.spec)));
    }
  }
  for (const auto& step : plan.steps.before_cell) {
    const auto* store = dynamic_cast<const RegressionStore*>(step.get());
    if (store == nullptr) continue;
    for (const auto& problem : store->problems()) {
      std::cerr << "pecheck: skipping unreadable regression entry " << escape_terminal(problem) << "\n";
    }
    if (store->size() > 0 && !quiet_) {
      std::cout << fmt::format("regression store: {} stored case(s) in {}/ are replayed first\n", store->size(),
                               escape_terminal(store->dir().string()));
    }
  }
}

void ConsoleObserver::clear_progress() {
  if (!progress_shown_) return;
  std::cout << "\r\x1b[K" << std::flush;
  progress_shown_ = false;
}

void ConsoleObserver::on_cell_result(const PropertyResult& r) {
  std::lock_guard lock(mutex_);
  clear_progress();
  if (!quiet_ || r.status() != Status::passed) {
    std::cout << progress_line(r, label(r.subject), ConsoleStyle{terminal_.color}) << std::endl;
  }
}

void ConsoleObserver::on_progress(const CellProgress& p) {
  if (!p.slow.empty()) {  // said once per cell, on a terminal or not: a line of its own
    std::lock_guard lock(mutex_);
    clear_progress();
    std::cout << fmt::format("note {} [{}]: {}", escape_terminal(std::string(p.property)),
                             escape_terminal(label(std::string(p.subject))), escape_terminal(std::string(p.slow)))
              << std::endl;
  }
  if (!terminal_.tty || quiet_) return;
  constexpr std::size_t kWidth = 79;  // one terminal line: \r redraws only what did not wrap
  std::string text = fmt::format("... {} [{}] {}/{} cases", p.property, label(std::string(p.subject)), p.cases, p.planned);
  if (p.refused > 0) text += fmt::format(", {} refused", p.refused);
  if (p.shrinks > 0) text += fmt::format(", {} shrinks", p.shrinks);
  text += fmt::format(", {:.1f} s", p.seconds);
  text = escape_terminal(text);
  if (text.size() > kWidth) {
    std::size_t cut = kWidth - 3;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    text = text.substr(0, cut) + "...";
  }
  std::lock_guard lock(mutex_);
  std::cout << "\r\x1b[K" << text << std::flush;
  progress_shown_ = true;
}

void print_after_reports(const RunReport& report, const RunCommand& command, std::size_t files_written) {
  std::cout << fmt::format("reports: {}/ (report.json, junit.xml, summary.md, report.html, {} counterexample files)\n",
                           command.report_dir, files_written - 4);
  if (!report.regressions_saved.empty()) {
    std::cout << fmt::format("saved {} new failure(s) to {}/: replayed first next run (--no-regressions turns "
                             "this off)\n",
                             report.regressions_saved.size(), escape_terminal(report.regression_dir));
  }
  if (!report.budgets.empty()) {
    std::cout << fmt::format("\nPrecision budgets (tolerance {}):\n", report.budgets.front().target_formula);
    for (const auto& b : report.budgets) {
      std::cout << fmt::format("  {:<24} {:<30} {}\n", b.property, escape_terminal(b.subject), budget_sentence(b));
    }
  }
  const auto groups = cause_first(report.results);
  std::cout << what_failed(report, groups, command.report_dir);
  // How to rerun what did not meet its expectation, one line each, causes first.
  constexpr int kReruns = 10;
  int shown = 0, more = 0;
  for (const auto& g : groups) {
    std::vector<const PropertyResult*> cells = {g.cause};
    cells.insert(cells.end(), g.consequences.begin(), g.consequences.end());
    for (const auto* r : cells) {
      if (shown == kReruns) {
        ++more;
        continue;
      }
      if (shown++ == 0) std::cout << "\nRerun what failed:\n";
      std::cout << fmt::format("  {} [{}]: {}\n", r->property, escape_terminal(column_label(report, r->subject)),
                               escape_terminal(rerun_command(report, *r)));
    }
  }
  if (more > 0) std::cout << fmt::format("  … and {} more: see {}/summary.md\n", more, command.report_dir);
  if (command.github_annotations > 0) {
    std::error_code ec;
    const std::string cwd = std::filesystem::current_path(ec).string();
    const char* workspace = std::getenv("GITHUB_WORKSPACE");
    // Outside Actions the working directory stands for the checkout.
    const AnnotationFiles files{workspace != nullptr && *workspace != '\0' ? workspace : cwd, cwd, command.config};
    std::cout << github_annotations(report, command.github_annotations, files) << std::flush;
  }
}

}  // namespace pecheck::cli
