#include "pecheck/report/html_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>

#include "pecheck/core/escape.h"
#include "pecheck/core/interrupt.h"
#include "pecheck/report/json_writer.h"
#include "report/html_card.h"
#include "pecheck/report/matrix.h"
#include "report/svg_plot.h"

namespace pecheck {

namespace {

constexpr size_t kMaxCards = 200;  // failures and witnesses shown; report.json has them all

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1400px;padding:16px 24px;color:#1b1b1b;background:#fff}
h1{font-size:22px;margin:4px 0}h2{font-size:18px;border-bottom:2px solid #ddd;padding-bottom:2px;margin-top:28px}
h3{font-size:15px;margin:14px 0 6px}h4{font-size:13px;margin:10px 0 4px;color:#444}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f3f3f3;padding:1px 3px;border-radius:3px;word-break:break-all}
.total{font-weight:600;font-size:15px}.meta{color:#555}
nav a{margin-right:14px}
.legend span{display:inline-block;padding:1px 8px;margin:0 4px 4px 0;border-radius:3px;font:12px monospace}
table{border-collapse:collapse}
table.matrix{margin-bottom:10px}
table.matrix th.subj{writing-mode:vertical-rl;transform:rotate(180deg);font:12px monospace;font-weight:normal;padding:4px 2px;max-height:260px;overflow:hidden;white-space:nowrap}
table.matrix th.prop{text-align:left;font:12px monospace;font-weight:normal;padding:1px 8px 1px 0;white-space:nowrap}
table.matrix td{width:34px;height:22px;text-align:center;font:11px monospace;border:1px solid #fff}
table.matrix td a{color:inherit;text-decoration:none;display:block}
.c-pass-h{background:#a5d6a7}.c-pass-v{background:#80cbc4}.c-failed{background:#e53935;color:#fff;font-weight:700}
.c-error{background:#fb8c00;color:#fff;font-weight:700}.c-skipped{background:#cfd8dc}.c-na{background:#fafafa;color:#bbb}
.card{border:1px solid #ddd;border-left:6px solid #999;border-radius:4px;padding:6px 12px;margin:10px 0;background:#fcfcfc}
.card.failed{border-left-color:#e53935}.card.error{border-left-color:#fb8c00}.card.passed{border-left-color:#26a69a}
.badge{font-size:11px;font-weight:normal;padding:1px 6px;border-radius:8px;background:#eee;margin-left:6px}
.badge.failed{background:#e53935;color:#fff}.badge.error{background:#fb8c00;color:#fff}.badge.passed{background:#80cbc4}
.claim{font-style:italic;color:#333;margin:2px 0 6px}
table.kv th{text-align:left;font-weight:600;padding:1px 10px 1px 0;vertical-align:top;color:#444;white-space:nowrap}
table.kv td{padding:1px 0;word-break:break-word}
.inputs{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.inputs table{border:1px solid #ccc;font:12px monospace}
.inputs table td,.inputs table th{border:1px solid #e3e3e3;padding:1px 5px;text-align:right}
.inputs table caption{font:12px monospace;text-align:left;color:#333}
.inputs .shape{color:#888}
tr.hlrow td{background:#fff3cd}
td.hl,tr.hl td{background:#e53935!important;color:#fff;font-weight:700}
.at table.kv td{font-family:monospace}
pre{background:#f5f5f5;padding:6px;max-height:240px;overflow:auto;font-size:12px;white-space:pre-wrap}
.cmd{font-size:12px;color:#444}
table.budgets td,table.budgets th{border:1px solid #ddd;padding:2px 8px;text-align:left;font-size:13px}
table.budgets td.num{text-align:right;font-family:monospace}
.figs{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}
figure{margin:0;max-width:410px}figcaption{font-size:12px;color:#444}
svg.plot text{font:10px sans-serif;fill:#333}svg.plot text.axis{font-size:11px}svg.plot text.legend{font-size:10.5px}
svg.plot line.grid{stroke:#eee}
.note{color:#555;font-size:12px}
.banner{padding:10px 16px;margin:0 0 12px;border-radius:4px;font-size:16px;color:#fff}
.banner b{font-size:18px;margin-right:10px;letter-spacing:.04em}
.banner.pass{background:#2e7d32}.banner.fail{background:#c62828}.banner.error{background:#ef6c00}
)";

std::string cell_class(const MatrixCell& c) {
  switch (c.status) {
    case Status::passed: return c.observed == 'V' ? "c-pass-v" : "c-pass-h";
    case Status::failed: return "c-failed";
    case Status::error: return "c-error";
    case Status::skipped: return "c-skipped";
  }
  return "c-na";
}

// Cards get an anchor per result index; the matrix links to them.
std::string anchor(size_t index) { return fmt::format("r{}", index); }

bool has_card(const PropertyResult& r) {
  return r.status() == Status::failed || r.status() == Status::error || (r.counterexample() != nullptr);
}

std::string matrix_section(const RunReport& report) {
  std::string out = R"(<section id="matrix"><h2>Claims matrix</h2><p class="legend">)"
                    R"(<span class="c-pass-h">H/H</span>holds, as expected )"
                    R"(<span class="c-pass-v">V/V</span>violated, as expected (a witness was found) )"
                    R"(<span class="c-failed">H/V</span>expectation not met )"
                    R"(<span class="c-failed">U</span>checked less than the gate )"
                    R"(<span class="c-error">E</span>error )"
                    R"(<span class="c-skipped">S</span>skipped )"
                    R"(<span class="c-na">·</span>not applicable.)"
                    R"( Cells read expected/observed; click one for its counterexample.</p>)";
  for (const auto& t : claims_matrix(report)) {
    out += fmt::format(R"(<h3>{}</h3><table class="matrix"><tr><th></th>)", escape_xml(t.family));
    for (const auto& s : t.subjects) {
      out += fmt::format(R"(<th class="subj" title="{}">{}</th>)", escape_xml(s), escape_xml(column_label(report, s)));
    }
    out += "</tr>";
    for (const auto& row : t.rows) {
      out += fmt::format(R"(<tr><th class="prop">{}</th>)", escape_xml(row.property));
      for (size_t i = 0; i < row.cells.size(); ++i) {
        if (!row.cells[i]) {
          out += R"(<td class="c-na">·</td>)";
          continue;
        }
        const MatrixCell& c = *row.cells[i];
        size_t index = 0;
        for (; index < report.results.size(); ++index) {
          const auto& r = report.results[index];
          if (r.property == row.property && r.subject == t.subjects[i]) break;
        }
        const PropertyResult& r = report.results[index];
        std::string tip = fmt::format("{} × {}: expected {}, observed {}", r.property, r.subject,
                                      name(r.expectation), name(r.outcome));
        if (r.held()) tip += fmt::format("; worst error {:.3g} ≤ {:.3g}", r.error(), r.tolerance().bound);
        tip += "; covered: " + coverage_line(r.cases, r.discards, r.coverage);
        if (r.counterexample()) tip += fmt::format("; error {:.3g} at {}", r.counterexample()->error, r.counterexample()->where());
        const std::string label = escape_xml(cell_text(c));
        out += fmt::format(R"(<td class="{}" title="{}">{}</td>)", cell_class(c), escape_xml(tip),
                           has_card(r) ? fmt::format(R"(<a href="#{}">{}</a>)", anchor(index), label) : label);
      }
      out += "</tr>";
    }
    out += "</table>";
  }
  return out + "</section>\n";
}

std::string budget_section(const RunReport& report) {
  if (report.budgets.empty()) return "";
  std::string out = R"(<section id="budgets"><h2>Precision budgets</h2>)"
                    R"(<p class="note">For each encoder and rotary subject: the largest position (context length) up to which)"
                    R"( each structural property held within a fixed tolerance, found by search over the largest generated position.</p>)"
                    R"(<table class="budgets"><tr><th>property</th><th>subject</th><th>dtype</th><th>tolerance</th>)"
                    R"(<th>holds up to</th><th>fails from</th><th>verdict</th></tr>)";
  for (const auto& b : report.budgets) {
    out += fmt::format(
        R"(<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td class="num" title="{}">{:.2g}</td>)"
        R"(<td class="num">{}</td><td class="num">{}</td><td>{}</td></tr>)",
        escape_xml(b.property), escape_xml(b.subject), escape_xml(b.dtype), escape_xml(b.target_formula), b.target,
        b.holds_up_to, b.fails_from == 0 ? std::string("—") : std::to_string(b.fails_from),
        escape_xml(budget_sentence(b)));
  }
  out += "</table>";
  if (!report.budgets.empty()) {
    out += fmt::format(R"(<p class="note">Tolerance: {}</p>)", escape_xml(report.budgets.front().target_formula));
  }
  return out + "</section>\n";
}

// Failures (and errors) when `witnesses` is false; witnesses of expected violations when true.
std::string cards_section(const RunReport& report, bool witnesses) {
  std::string cards;
  size_t shown = 0, hidden = 0;
  for (size_t i = 0; i < report.results.size(); ++i) {
    const auto& r = report.results[i];
    if (!has_card(r) || (r.status() == Status::passed) != witnesses) continue;
    if (shown >= kMaxCards) {
      ++hidden;
      continue;
    }
    ++shown;
    cards += html_result_card(report, r, anchor(i));
  }
  if (hidden > 0) cards += fmt::format(R"(<p class="note">{} more are in report.json.</p>)", hidden);
  if (shown == 0) return "";
  if (!witnesses) return R"(<section id="failures"><h2>Failures</h2>)" + cards + "</section>\n";
  return R"(<section id="witnesses"><h2>Witnesses of expected violations</h2>)"
         R"(<details><summary>show the shrunk witnesses</summary>)" + cards + "</details></section>\n";
}

std::string plots_section(const RunReport& report) {
  if (report.plots.empty()) return "";
  std::string out = R"(<section id="plots"><h2>Plots</h2>)";
  for (const auto& p : report.plots) {
    out += fmt::format(R"(<h3><code>{}</code> <span class="note">({})</span></h3>)", escape_xml(p.subject),
                       escape_xml(p.kind));
    if (!p.note.empty()) out += fmt::format(R"(<p class="note">{}</p>)", escape_xml(p.note));
    out += R"(<div class="figs">)";
    for (const auto& h : p.heatmaps) {
      out += fmt::format("<figure>{}<figcaption><b>{}</b> {}</figcaption></figure>", svg_heatmap(h),
                         escape_xml(h.title), escape_xml(h.caption));
    }
    for (const auto& l : p.lines) {
      out += fmt::format("<figure>{}<figcaption><b>{}</b> {}</figcaption></figure>", svg_line_plot(l),
                         escape_xml(l.title), escape_xml(l.caption));
    }
    out += "</div>";
  }
  return out + "</section>\n";
}

// The first thing on the page: did the run pass, in words and colour, by its exit code.
std::string banner(const RunReport& report) {
  const Totals t = totals(report.results);
  const char* kind = report.exit_code == 0 ? "pass" : report.exit_code == 1 ? "fail" : "error";
  std::string word, detail;
  switch (report.exit_code) {
    case 0: word = "PASSED"; detail = "every cell met its expectation"; break;
    case 1:
      word = "FAILED";
      detail = t.failed > 0 ? fmt::format("{} cell{} did not meet {} expectation", t.failed, t.failed == 1 ? "" : "s",
                                          t.failed == 1 ? "its" : "their")
                            : "less was checked than was asked";
      break;
    case 3: word = "SUBJECT FAILURE"; detail = "a subject could not be started, crashed, hung or broke the protocol"; break;
    case 128 + SIGHUP: case 128 + SIGINT: case 128 + SIGTERM:
      word = "INTERRUPTED";
      detail = fmt::format("stopped by {}: the results obtained before it, the rest skipped", interrupt_name(report.interrupted));
      break;
    default: word = "ERROR"; detail = "usage or configuration"; break;
  }
  return fmt::format(R"(<div class="banner {}" role="status"><b>{}</b>{} · exit {}</div>)", kind, word,
                     escape_xml(detail), report.exit_code);
}

// Subjects that could not be started: no cell of theirs ran.
std::string start_failure_section(const RunReport& report) {
  std::string out;
  for (const auto& s : report.subjects) {
    if (!s.start_failure) continue;
    const SubjectFailureInfo& f = *s.start_failure;
    out += fmt::format(R"(<article class="card error"><h3><code>{}</code> could not be started</h3><table class="kv">)"
                       R"(<tr><th>what</th><td>{}</td></tr><tr><th>exit</th><td>{}</td></tr></table>)",
                       escape_xml(s.spec), escape_xml(f.message), escape_xml(f.exit_status));
    if (!f.stderr_tail.empty()) out += "<details open><summary>stderr tail</summary><pre>" + escape_xml(f.stderr_tail) + "</pre></details>";
    out += "</article>\n";
  }
  return out.empty() ? out : R"(<section id="unstarted"><h2>Subjects that could not be started</h2>)" + out + "</section>\n";
}

}  // namespace

std::string write_html(const RunReport& report) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  out += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "img-src data:\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>pecheck report</title>\n<style>" + std::string(kStyle) + "</style></head>\n<body>\n";
  out += banner(report);
  out += "<header><h1>pecheck claims matrix</h1>";
  out += fmt::format(R"(<p class="total">{}</p>)", escape_xml(total_line(report)));
  out += fmt::format(R"(<p class="meta">Seed {} · {} cases per property · positions up to {} · tolerance factor {:g} · pecheck {} · {}</p>)",
                     report.seed, report.cases, report.max_position, report.tolerance_factor,
                     escape_xml(report.pecheck_version), escape_xml(report.started_at));
  out += fmt::format(R"(<p class="meta">Rerun: <code>{}</code></p>)", escape_xml(rerun_command(report)));
  if (!report.regression_dir.empty()) {
    out += fmt::format(R"(<p class="meta">Regression store: <code>{}</code> (stored failures are replayed before new cases)</p>)",
                       escape_xml(report.regression_dir));
  }
  out += R"(<nav><a href="#matrix">matrix</a>)";
  if (!report.budgets.empty()) out += R"(<a href="#budgets">precision budgets</a>)";
  const bool any_failure = std::any_of(report.results.begin(), report.results.end(), [](const PropertyResult& r) {
    return r.status() == Status::failed || r.status() == Status::error;
  });
  const bool any_witness = std::any_of(report.results.begin(), report.results.end(), [](const PropertyResult& r) {
    return r.status() == Status::passed && (r.counterexample() != nullptr);
  });
  if (any_failure) out += R"(<a href="#failures">failures</a>)";
  if (any_witness) out += R"(<a href="#witnesses">witnesses</a>)";
  if (!report.plots.empty()) out += R"(<a href="#plots">plots</a>)";
  out += "</nav></header>\n<main>\n";
  if (!report.nothing_checked.empty()) {
    out += fmt::format(R"(<section id="nothing"><h2>Nothing was checked</h2><p>{}</p></section>)",
                       escape_xml(report.nothing_checked));
  }
  for (const auto& s : report.subjects) {
    if (s.no_cells.empty()) continue;
    out += fmt::format(R"(<article class="card failed"><h3><code>{}</code> got no cell</h3><p>{}</p></article>)",
                       escape_xml(s.spec), escape_xml(s.no_cells));
  }
  out += start_failure_section(report);
  out += matrix_section(report);
  out += budget_section(report);
  out += cards_section(report, false);
  out += plots_section(report);
  out += cards_section(report, true);
  out += "</main>\n</body></html>\n";
  return out;
}

}  // namespace pecheck
