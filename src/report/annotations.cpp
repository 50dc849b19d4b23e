#include "pecheck/report/annotations.h"

#include <fmt/format.h>

#include "pecheck/core/escape.h"
#include "pecheck/core/subject_spec.h"
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

std::string clip(const std::string& s) { return clip_utf8(s, kMaxValueChars); }

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

// A path as the repository knows it: relative to the workspace, inside it;
// empty otherwise. Purely lexical (a writer asks no file system).
std::string in_checkout(std::string path, const AnnotationFiles& files) {
  if (path.empty()) return {};
  if (path.front() != '/' && !files.cwd.empty() && files.cwd != files.workspace) path = files.cwd + "/" + path;
  const std::string& workspace = files.workspace;
  if (path.front() == '/') {
    std::string root = workspace;
    while (!root.empty() && root.back() == '/') root.pop_back();
    if (root.empty() || path.rfind(root + "/", 0) != 0) return {};
    path = path.substr(root.size() + 1);
  }
  while (path.rfind("./", 0) == 0) path = path.substr(2);
  if (path.empty() || path == ".." || path.rfind("../", 0) == 0 || path.find("/../") != std::string::npos) return {};
  return path;
}

bool names_source_file(std::string_view word) {
  constexpr std::string_view kSource[] = {".py", ".js", ".mjs", ".ts", ".rb", ".jl", ".r", ".R", ".sh", ".lua",
                                          ".pl", ".java", ".go", ".rs", ".c", ".cc", ".cpp", ".cxx", ".m"};
  for (std::string_view ext : kSource) {
    if (word.size() > ext.size() && word.substr(word.size() - ext.size()) == ext) return true;
  }
  return false;
}

}  // namespace

std::string annotation_file(const PropertyResult& r, const AnnotationFiles& files) {
  if (const auto spec = try_parse_subject_spec(r.subject); spec && spec->kind == SubjectKind::cmd) {
    std::string word;
    auto consider = [&]() -> std::string {
      std::string w = word;
      word.clear();
      if (w.size() >= 2 && (w.front() == '\'' || w.front() == '"') && w.back() == w.front()) w = w.substr(1, w.size() - 2);
      return names_source_file(w) ? in_checkout(w, files) : std::string();
    };
    for (char c : spec->payload + " ") {
      if (c != ' ' && c != '\t') {
        word += c;
        continue;
      }
      if (word.empty()) continue;
      if (std::string found = consider(); !found.empty()) return found;
    }
  }
  return in_checkout(files.config, files);
}

std::string escape_annotation_data(std::string_view text) { return escape_annotation(text, false); }
std::string escape_annotation_property(std::string_view text) { return escape_annotation(text, true); }

std::string github_annotations(const RunReport& report, int limit, const AnnotationFiles& files) {
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
    if (const std::string file = annotation_file(r, files); !file.empty()) {
      props = "file=" + escape_annotation_property(file) + ",";
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
