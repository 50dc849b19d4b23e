#include "pecheck/report/annotations.h"

#include <fmt/format.h>

#include "pecheck/core/escape.h"
#include "pecheck/report/json_writer.h"

namespace pecheck {

namespace {

constexpr size_t kMaxValueChars = 400;  // of one JSON value in a message

std::string escape_annotation(std::string_view text, bool property) {
  std::string out, segment;
  // Between line breaks, escape_terminal shows control characters as \xNN;
  // then the runner's own escapes apply.
  auto flush = [&] {
    for (char ch : escape_terminal(segment)) {
      switch (ch) {
        case '%': out += "%25"; break;
        case ':': out += property ? "%3A" : ":"; break;
        case ',': out += property ? "%2C" : ","; break;
        default: out += ch;
      }
    }
    segment.clear();
  };
  for (char ch : valid_utf8(text)) {
    if (ch == '\r' || ch == '\n') {
      flush();
      out += ch == '\r' ? "%0D" : "%0A";
    } else {
      segment += ch;
    }
  }
  flush();
  return out;
}

std::string clip(std::string s) {
  if (s.size() > kMaxValueChars) s.replace(kMaxValueChars, std::string::npos, " …");
  return s;
}

std::string message(const RunReport& report, const PropertyResult& r) {
  std::string m = fmt::format("{} × {}: expected {}, observed {}", r.property, r.subject, name(r.expectation),
                              name(r.outcome));
  if (!r.message().empty()) m.append("\n").append(clip(r.message()));
  if (r.counterexample()) {
    const auto& c = *r.counterexample();
    m += fmt::format("\ncounterexample: {}\nat {}: observed {}, expected {} (error {:.3g} > bound {:.3g})",
                     clip(c.inputs.dump(-1, ' ', false, json::error_handler_t::replace)), clip(c.where()),
                     clip(c.observed.dump(-1, ' ', false, json::error_handler_t::replace)),
                     clip(c.expected.dump(-1, ' ', false, json::error_handler_t::replace)), c.error,
                     c.tolerance.bound);
  }
  if (r.subject_failure()) m.append("\nstderr tail: ").append(clip(r.subject_failure()->stderr_tail));
  m.append("\nrerun: ").append(rerun_command(report, r));
  return m;
}

}  // namespace

std::string escape_annotation_data(std::string_view text) { return escape_annotation(text, false); }
std::string escape_annotation_property(std::string_view text) { return escape_annotation(text, true); }

std::string github_annotations(const RunReport& report, int limit) {
  std::string out;
  int printed = 0, left_out = 0;
  for (const auto& r : report.results) {
    if (r.status() != Status::failed && r.status() != Status::error) continue;
    if (printed >= limit) {
      ++left_out;
      continue;
    }
    ++printed;
    std::string props;
    if (r.counterexample()) {
      const std::string dir = report.report_dir.empty() ? "" : report.report_dir + "/";
      props = "file=" + escape_annotation_property(dir + "counterexamples/" + counterexample_file_name(r)) + ",";
    }
    props += "title=" + escape_annotation_property(fmt::format("pecheck: {} × {}", r.property, r.subject));
    out += fmt::format("::error {}::{}\n", props, escape_annotation_data(message(report, r)));
  }
  if (left_out > 0) {
    out += fmt::format("::notice title=pecheck::{}\n",
                       escape_annotation_data(fmt::format("{} more failure(s) not annotated; see summary.md", left_out)));
  }
  return out;
}

}  // namespace pecheck
