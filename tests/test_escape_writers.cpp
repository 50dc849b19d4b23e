// Every report format against a hostile subject: a name made of markup, CDATA
// terminators, quotes, ANSI escapes and invalid UTF-8, huge inputs and a
// flood of stderr. JUnit stays well-formed (xmllint), report.html carries no
// live markup from the subject, summary.md stays readable and under 1 MiB,
// report.json parses, and terminal and GitHub annotation lines carry no
// control sequences.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "pecheck/report/annotations.h"
#include "pecheck/report/console_writer.h"
#include "pecheck/report/html_writer.h"
#include "pecheck/report/json_writer.h"
#include "pecheck/report/junit_writer.h"
#include "pecheck/report/markdown_writer.h"
#include "support/cli.h"

BOOST_AUTO_TEST_SUITE(test_escape_writers)

using namespace pecheck;

namespace {

const std::string kEvil = "<script>alert(1)</script>]]>\"'\x1b[31m\x07\xC2\x9B\xFF\xED\xA0\x80|`*_";

std::string flood(size_t bytes) {
  std::string s;
  // Mostly characters that grow most when escaped (' becomes &#39;), to push every format's size limit.
  const std::string chunk = "<script>x</script>]]>\x1b[2J\"&\xFE\xFF|`_\n";
  while (s.size() < bytes) s += chunk;
  return s;
}

RunReport make_hostile_report() {
  RunReport r;
  r.pecheck_version = "0.1.0";
  r.program = "pecheck";
  r.command = "pecheck run --subject " + kEvil;
  r.seed = 1;
  r.cases = 100;
  r.max_position = 10000;
  r.started_at = "2026-01-01T00:00:00Z";
  r.report_dir = "reports";
  r.properties = {{.id = "pe.bounded", .family = "pe", .claim = "every component lies in [-1, 1]", .sources = "001",
                   .op = Op::encode, .expect = Expect::holds, .expect_for = {}}};
  const std::string spec = "cmd:" + kEvil;
  r.subjects = {{spec, kEvil, "float32", "interleaved", kEvil, {"encode"}}};
  Matrix big = Matrix::Constant(100, 100, 0.123456789);
  big(2, 3) = std::numeric_limits<double>::quiet_NaN();
  for (int i = 0; i < 80; ++i) {
    PropertyResult x;
    x.property = "pe.bounded";
    x.subject = spec;
    x.cases = 3;
    x.discards = 1;
    x.discard_reason = std::string(20000, '\'') + kEvil;  // grows fivefold when escaped
    if (i < 40) {
      Counterexample c;
      c.inputs = json{{"dim", 100}, {"label", std::string(50000, '\'')}, {"x", big}};
      c.check = kEvil;
      c.observed = i % 3 == 0 ? json(big) : json(std::string(10000, '\'') + kEvil);
      c.expected = json(std::string(10000, '\''));
      c.location.label = "row 2, column 3 " + kEvil;
      c.location.row = 2;
      c.location.column = 3;
      c.note = kEvil;
      c.error = 2.0;
      c.tolerance = {1e-7, kEvil};
      x.outcome = Violated{c, kEvil, ""};
    } else {
      x.outcome = SubjectFailed{{kEvil, std::string(100000, '\''), std::string(100000, '\''),
                                 flood(256 * 1024) + std::string(64 * 1024, '\''), kEvil}};
    }
    r.results.push_back(std::move(x));
  }
  SubjectPlots plots;
  plots.subject = spec;
  plots.kind = kEvil;
  plots.note = kEvil;
  plots.heatmaps.push_back({kEvil, kEvil, kEvil, Matrix::Random(8, 8)});
  plots.lines.push_back({kEvil, kEvil, kEvil, kEvil, true, true, {{kEvil, {1, 2, 3}, {1, 0, -1}, false}}});
  r.plots.push_back(plots);
  PrecisionBudget b;
  b.property = "pe.bounded";
  b.subject = spec;
  b.dtype = "float32";
  b.target = 3.9e-3;
  b.target_formula = kEvil;
  b.holds_up_to = 2048;
  b.fails_from = 2049;
  b.note = kEvil;
  r.budgets.push_back(b);
  r.exit_code = 3;
  return r;
}

const RunReport& hostile_report() {
  static const RunReport report = make_hostile_report();
  return report;
}

// Markdown without its code spans (text in a code span is shown verbatim, never rendered).
std::string without_code_spans(const std::string& md) {
  std::string out;
  for (size_t i = 0; i < md.size();) {
    if (md[i] == '\\' && i + 1 < md.size() && std::ispunct(static_cast<unsigned char>(md[i + 1]))) {
      out += md.substr(i, 2);  // a backslash escape: the character is text (a '`' opens no span)
      i += 2;
      continue;
    }
    if (md[i] != '`') {
      out += md[i++];
      continue;
    }
    size_t n = 0;
    while (i + n < md.size() && md[i + n] == '`') ++n;
    const std::string fence(n, '`');
    size_t close = md.find(fence, i + n);
    while (close != std::string::npos && close + n < md.size() && md[close + n] == '`') close = md.find(fence, close + n + 1);
    if (close == std::string::npos) {
      out += md.substr(i, n);
      i += n;
    } else {
      i = close + n;
    }
  }
  return out;
}

size_t count_lines_starting(const std::string& text, const std::string& prefix) {
  size_t n = 0;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    n += text.compare(start, prefix.size(), prefix) == 0;
  }
  return n;
}

bool has_byte(const std::string& s, unsigned char b) { return s.find(static_cast<char>(b)) != std::string::npos; }

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(junit_is_well_formed_whatever_the_subject_sends) {
  const std::string xml = write_junit(hostile_report());
  const std::string path = pecheck::testing::temp_dir("pecheck-junit") + "/junit.xml";
  std::ofstream(path, std::ios::binary) << xml;
  BOOST_TEST(std::system(("xmllint --noout " + path).c_str()) == 0, "xmllint rejected " << path);
  BOOST_TEST(xml.find("<script>") == std::string::npos);
  BOOST_TEST(!has_byte(xml, 0x1b));
  BOOST_TEST(xml.find("budget.pe.bounded") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(html_has_no_live_markup_from_the_subject) {
  const std::string html = write_html(hostile_report());
  const std::string l = lower(html);
  BOOST_TEST(l.find("<script") == std::string::npos);
  BOOST_TEST(l.find("javascript:") == std::string::npos);
  BOOST_TEST(l.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  BOOST_TEST(!has_byte(html, 0x1b));
  BOOST_TEST(!has_byte(html, 0x07));
  BOOST_TEST(html.find("\xFF") == std::string::npos);
  // Attribute values cannot be closed by the subject: no raw quote follows an escaped name.
  BOOST_TEST(html.find("]]>\"") == std::string::npos);
  // No fetch of anything: no external reference, and a policy that forbids scripts and loads.
  BOOST_TEST(l.find("src=") == std::string::npos);
  BOOST_TEST(l.find("<link") == std::string::npos);
  BOOST_TEST(html.find("Content-Security-Policy") != std::string::npos);
  // Clipped: huge inputs and a flood of stderr do not make a huge page.
  BOOST_TEST(html.size() < 16u * 1024 * 1024, html.size());
}

BOOST_AUTO_TEST_CASE(markdown_stays_readable_and_under_a_mebibyte) {
  const std::string md = write_markdown(hostile_report());
  BOOST_TEST_MESSAGE("summary.md: " << md.size() << " bytes");
  BOOST_TEST(md.size() < 1024u * 1024, md.size());
  // The hostile input did press against the limits: values clipped, sections capped (below).
  BOOST_TEST(md.find(" \u2026 |") != std::string::npos);
  // Outside code spans every '<' is backslash-escaped: text, never a tag.
  const std::string rendered = without_code_spans(md);
  for (size_t at = rendered.find('<'); at != std::string::npos; at = rendered.find('<', at + 1)) {
    BOOST_TEST((at > 0 && rendered[at - 1] == '\\'), rendered.substr(at > 40 ? at - 40 : 0, 80));
  }
  BOOST_TEST(md.find("<script>alert(1)</script>]]>") != std::string::npos);  // verbatim, in code spans only
  BOOST_TEST(!has_byte(md, 0x1b));
  BOOST_TEST(md.find("\xFF") == std::string::npos);
  // The matrix comes first; every table row is one line with its cells closed.
  BOOST_TEST(md.find("### pe") < md.find("## Failures"));
  size_t start = 0, rows = 0;
  for (size_t end; (end = md.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = md.substr(start, end - start);
    if (line.rfind("| ", 0) != 0) continue;
    ++rows;
    BOOST_TEST((line.size() >= 2 && line.substr(line.size() - 2) == " |"), line.substr(0, 200));
  }
  BOOST_TEST(rows > 10u);
  BOOST_TEST(md.find("more result(s) with details are in report.json") != std::string::npos);
  BOOST_TEST(md.find("## Precision budgets") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(json_parses_and_keeps_valid_utf8) {
  const std::string text = write_json(hostile_report());
  const json j = json::parse(text);
  BOOST_TEST(j["results"].size() == 80u);
  BOOST_TEST(j["budgets"][0]["holds_up_to"] == 2048);
  BOOST_TEST(!has_byte(text, 0x1b));  // written as \u001b
}

BOOST_AUTO_TEST_CASE(terminal_lines_carry_no_escape_sequences) {
  for (const auto& r : hostile_report().results) {
    const std::string line = progress_line(r);
    BOOST_TEST(!has_byte(line, 0x1b));
    BOOST_TEST(!has_byte(line, 0x07));
    BOOST_TEST(line.find("\xC2\x9B") == std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(github_annotations_follow_the_runner_escaping_rules) {
  BOOST_TEST(escape_annotation_data("50% done\r\nnext: a,b") == "50%25 done%0D%0Anext: a,b");
  BOOST_TEST(escape_annotation_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A");
  BOOST_TEST(escape_annotation_data("\x1b[31m") == "\\x1b[31m");

  const std::string out = github_annotations(hostile_report(), 3);
  std::vector<std::string> lines;
  for (size_t start = 0, end; (end = out.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(out.substr(start, end - start));
  }
  BOOST_REQUIRE(lines.size() == 4u);  // three failures and a notice for the rest
  for (size_t i = 0; i < 3; ++i) {
    const std::string& line = lines[i];
    // The hostile subject names no file of the checkout: no file= at all.
    BOOST_TEST(line.rfind("::error title=pecheck%3A pe.bounded", 0) == 0, line.substr(0, 120));
    const size_t sep = line.find("::", 2);
    BOOST_REQUIRE(sep != std::string::npos);
    const std::string props = line.substr(8, sep - 8);
    BOOST_TEST(std::count(props.begin(), props.end(), ',') == 0, props);  // one property: no raw comma
    BOOST_TEST(props.find(':') == std::string::npos, props);
    BOOST_TEST(!has_byte(line, 0x1b));
    BOOST_TEST(!has_byte(line, '\r'));
  }
  BOOST_TEST(lines[3].rfind("::notice title=pecheck::77 more failure(s)", 0) == 0, lines[3]);
  BOOST_TEST(github_annotations(hostile_report(), 0).find("::error") == std::string::npos);
}

// An annotation points at a file of the commit (the subject's script, else
// the config) or at none: never at a generated report.
BOOST_AUTO_TEST_CASE(annotations_point_at_a_file_of_the_checkout_or_none) {
  PropertyResult r;
  const AnnotationFiles ws{"/ci/repo", "/ci/repo", ""};
  r.subject = "cmd:/usr/bin/python3 -u /ci/repo/models/rope.py float32";
  BOOST_TEST(annotation_file(r, ws) == "models/rope.py");
  r.subject = "cmd:python3 './tests/x.py'";
  BOOST_TEST(annotation_file(r, ws) == "tests/x.py");
  r.subject = "cmd:python3 x.py";  // relative to a working directory inside the checkout
  BOOST_TEST(annotation_file(r, AnnotationFiles{"/ci/repo", "/ci/repo/sub", ""}) == "sub/x.py");
  r.subject = "cmd:python3 /elsewhere/x.py";  // outside the checkout
  BOOST_TEST(annotation_file(r, ws).empty());
  r.subject = "cmd:python3 ../x.py";
  BOOST_TEST(annotation_file(r, ws).empty());
  BOOST_TEST(annotation_file(r, AnnotationFiles{"/ci/repo", "/ci/repo", "ci/pecheck.toml"}) == "ci/pecheck.toml");
  r.subject = "plugin:/ci/repo/build/libp.so";  // a build product: the config, else none
  BOOST_TEST(annotation_file(r, ws).empty());
  r.subject = "builtin:rope";
  BOOST_TEST(annotation_file(r, AnnotationFiles{"/ci/repo", "/ci/repo", "/ci/repo/pecheck.toml"}) == "pecheck.toml");
  r.subject = "cmd:/ci/repo/bin/subject";  // an executable with no source extension: none
  BOOST_TEST(annotation_file(r, ws).empty());
}

BOOST_AUTO_TEST_CASE(run_prints_annotations_for_the_first_failures_when_asked) {
  const std::string dir = pecheck::testing::temp_dir("pecheck-annotations");
  const std::vector<std::string> args = {"run", "-q", "--subject", "mutant:sinusoidal-cache-wraps", "--properties",
                                         "pe.*", "--report-dir", dir};
  auto with = args;
  with.insert(with.end(), {"--github-annotations", "2"});
  const auto r = pecheck::testing::run_cli(with);
  BOOST_TEST(r.exit_code == 1);
  // A planted bug names no file of the checkout: the annotations carry no file=.
  BOOST_TEST(count_lines_starting(r.output, "::error title=pecheck%3A pe.") == 2u, r.output);
  BOOST_TEST(count_lines_starting(r.output, "::notice title=pecheck::") == 1u, r.output);
  const auto plain = pecheck::testing::run_cli(args);
  BOOST_TEST(count_lines_starting(plain.output, "::") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_escape_writers
