// report.html (src/report/html_writer.cpp, html_card.cpp, svg_plot.cpp) and
// the probe that feeds its plots (src/probe/plot_probe.cpp): one
// self-contained page; matrix cells link to their counterexample cards; the
// offending entries are highlighted; the Gram matrix shows the Toeplitz band
// of a sinusoidal encoder and not of a learned table; the error against
// position shows where float16 stops being usable.
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <regex>

#include "pecheck/probe/plot_probe.h"
#include "report/html_card.h"
#include "pecheck/report/html_writer.h"
#include "report/svg_plot.h"
#include "pecheck/subjects/factory.h"
#include "support/sample_report.h"

BOOST_AUTO_TEST_SUITE(test_html_report)

using namespace pecheck;
using pecheck::testing::sample_report;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Largest spread along any diagonal t − s = k of a square matrix.
double diagonal_spread(const Matrix& g) {
  double spread = 0;
  for (Eigen::Index k = -(g.rows() - 1); k < g.rows(); ++k) {
    double lo = INFINITY, hi = -INFINITY;
    for (Eigen::Index t = std::max<Eigen::Index>(0, k); t < g.rows() && t - k < g.cols(); ++t) {
      lo = std::min(lo, g(t, t - k));
      hi = std::max(hi, g(t, t - k));
    }
    spread = std::max(spread, hi - lo);
  }
  return spread;
}

SubjectPlots probe(const std::string& spec) {
  auto subject = make_subject(spec);
  auto plots = probe_plots(*subject, 10000);
  BOOST_REQUIRE(plots.has_value());
  BOOST_REQUIRE_MESSAGE(plots->note.empty(), plots->note);
  return *plots;
}

}  // namespace

BOOST_AUTO_TEST_CASE(page_is_self_contained_and_links_cells_to_cards) {
  const std::string html = write_html(sample_report());
  BOOST_TEST(html.rfind("<!DOCTYPE html>", 0) == 0);
  BOOST_TEST(html.find("default-src 'none'") != std::string::npos);
  // No network: the only URL is the SVG namespace, which is a name, not a fetch.
  const std::regex url("https?://[^\"' <]+");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), url); it != std::sregex_iterator(); ++it) {
    BOOST_TEST(it->str() == "http://www.w3.org/2000/svg");
  }
  BOOST_TEST(html.find("<script") == std::string::npos);
  BOOST_TEST(count(html, "<table class=\"matrix\">") == 2u);  // pe and attention
  BOOST_TEST(html.find("class=\"c-pass-h\"") != std::string::npos);
  BOOST_TEST(html.find("class=\"c-pass-v\"") != std::string::npos);
  BOOST_TEST(html.find("class=\"c-failed\"") != std::string::npos);
  BOOST_TEST(html.find("class=\"c-error\"") != std::string::npos);
  // Every link from the grid has its card.
  const std::regex link("href=\"#(r[0-9]+)\"");
  size_t links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), link); it != std::sregex_iterator(); ++it, ++links) {
    BOOST_TEST(html.find("id=\"" + (*it)[1].str() + "\"") != std::string::npos, (*it)[1].str());
  }
  BOOST_TEST(links == 3u);  // the witness, the subject failure, the missed violation
  BOOST_TEST(html.find("Replay: <code>pecheck replay counterexamples/pe.bounded--builtin_integer.json</code>") !=
             std::string::npos);
}

namespace {
Location at(std::initializer_list<std::pair<const char*, std::int64_t>> indices) {
  Location w;
  for (const auto& [key, value] : indices) {
    const std::string k = key;
    if (k == "position") w.position = value;
    if (k == "column") w.column = value;
    if (k == "row") w.row = value;
    if (k == "token") w.token = value;
    if (k == "query") w.query = value;
    if (k == "key") w.key = value;
  }
  return w;
}
}  // namespace

BOOST_AUTO_TEST_CASE(the_location_names_the_entries_to_highlight) {
  const auto w = location_marks(at({{"position", 5}, {"column", 1}}));
  BOOST_TEST(w.at("position") == 5);
  BOOST_TEST(w.at("column") == 1);
  BOOST_TEST(location_marks(at({{"token", 3}, {"column", 0}})).at("token") == 3);
  Location label_only;
  label_only.label = "nothing here";
  BOOST_TEST(location_marks(label_only).empty());

  const json inputs = {{"dim", 4}, {"positions", {0, 5, 7}}, {"x", {{1.5, 2.5}, {3.5, 4.5}}}};
  const std::string by_position = html_value("inputs", inputs, location_marks(at({{"position", 5}, {"column", 1}})));
  BOOST_TEST(count(by_position, "class=\"hl\"") == 1u);
  BOOST_TEST(by_position.find("<td class=\"hl\">5</td>") != std::string::npos, by_position);

  // A result's column is not an input's: on the inputs the row it names is highlighted, no cell (output
  // column 1 of a rotation is made of x's columns 0 and 1); on the result, the cell.
  const std::string by_row = html_value("inputs", inputs, location_marks(at({{"row", 1}, {"column", 1}})));
  BOOST_TEST(by_row.find("<tr class=\"hlrow\"><th>1</th>") != std::string::npos, by_row);
  BOOST_TEST(count(by_row, "class=\"hl\"") == 0u, by_row);
  const std::string result = html_value("observed", json{{1.5, 2.5}, {3.5, 4.5}},
                                        location_marks(at({{"row", 1}, {"column", 1}})), Side::result);
  BOOST_TEST(result.find("<td class=\"hl\">4.5</td>") != std::string::npos, result);
  BOOST_TEST(count(result, "class=\"hl\"") == 1u);

  // A module's batch: the sequence and token the location names, as a row of that sequence's grid.
  Location module_at;
  module_at.batch = 1;
  module_at.token = 0;
  module_at.column = 1;
  const json batch = {{{1.0, 2.0}, {3.0, 4.0}}, {{5.0, 6.0}, {7.0, 8.0}}};
  const std::string sequences = html_value("inputs", json{{"x", batch}}, location_marks(module_at));
  BOOST_TEST(sequences.find("<caption>x[1] <span class=\"shape\">2×2</span></caption>") != std::string::npos, sequences);
  BOOST_TEST(count(sequences, "class=\"hlrow\"") == 1u, sequences);
  BOOST_TEST(sequences.find("<tr class=\"hlrow\"><th>0</th><td>5</td>") != std::string::npos, sequences);
  BOOST_TEST(count(sequences, "class=\"hl\"") == 0u, sequences);

  // Attention: "query i" marks the query side's row i, "key j" the key side's row j and a mask's column j.
  const json attention = {{"q", {{1.5}, {2.5}}}, {"k", {{3.5}, {4.5}}}, {"allowed", {{true, false}, {true, true}}}};
  const std::string att = html_value("inputs", attention, location_marks(at({{"query", 1}, {"key", 0}})));
  BOOST_TEST(att.find("<caption>q <span class=\"shape\">2×1</span></caption><tr><th></th><th>0</th></tr><tr><th>0</th>"
                      "<td>1.5</td></tr><tr class=\"hlrow\"><th>1</th>") != std::string::npos, att);
  BOOST_TEST(att.find("<tr class=\"hlrow\"><th>0</th><td>3.5</td>") != std::string::npos, att);
  BOOST_TEST(att.find("<tr class=\"hlrow\"><th>1</th><td class=\"hl\">true</td><td>true</td></tr>") !=
             std::string::npos, att);
  BOOST_TEST(count(att, "class=\"hlrow\"") == 3u);

  const std::string scalar = html_value("inputs", json{{"position", 2}, {"dim", 2}}, location_marks(at({{"position", 2}})));
  BOOST_TEST(scalar.find("<tr class=\"hl\"><th>position</th><td>2</td></tr>") != std::string::npos, scalar);
}

BOOST_AUTO_TEST_CASE(large_values_are_clipped) {
  const json big = Matrix(Matrix::Constant(100, 100, 1.0));
  const std::string t = html_value("x", big, {});
  BOOST_TEST(t.find("… 76 more rows") != std::string::npos);
  BOOST_TEST(count(t, "<td>1</td>") == 24u * 24u);
}

BOOST_AUTO_TEST_CASE(gram_matrix_is_toeplitz_for_sinusoidal_and_not_for_learned) {
  const SubjectPlots sinusoidal = probe("builtin:sinusoidal");
  BOOST_REQUIRE(sinusoidal.heatmaps.size() == 1u);
  const Matrix& g = sinusoidal.heatmaps[0].values;
  BOOST_TEST(g.rows() == kGramPositions);
  BOOST_TEST(diagonal_spread(g) < 1e-9);
  BOOST_TEST(g(0, 0) == 32.0, g(0, 0));  // ‖p_t‖² = d/2 with d = 64

  const SubjectPlots learned = probe("builtin:learned");
  BOOST_TEST(diagonal_spread(learned.heatmaps[0].values) > 1.0);

  const SubjectPlots rope = probe("builtin:rope");
  BOOST_TEST(rope.kind == "rotary");
  BOOST_TEST(diagonal_spread(rope.heatmaps[0].values) < 1e-9);
}

BOOST_AUTO_TEST_CASE(step_size_shrinks_along_the_pairs_as_the_formula_says) {
  const SubjectPlots p = probe("builtin:sinusoidal");
  const LinePlot& step = p.lines.at(0);
  BOOST_REQUIRE(step.series.size() == 2u);  // measured and the formula
  const auto& measured = step.series[0].y;
  const auto& formula = step.series[1].y;
  BOOST_REQUIRE(measured.size() == 32u);  // pairs of d = 64
  for (size_t i = 0; i < measured.size(); ++i) {
    BOOST_TEST(std::fabs(measured[i] - formula[i]) < 1e-12);
    if (i > 0) BOOST_TEST(measured[i] < measured[i - 1]);
  }
}

BOOST_AUTO_TEST_CASE(error_against_position_shows_where_float16_stops) {
  auto error_at = [](const SubjectPlots& p, double position) -> double {
    const Series& s = p.lines.at(1).series.at(0);
    for (size_t i = 0; i < s.x.size(); ++i) {
      if (s.x[i] >= position) return s.y[i];
    }
    return NAN;
  };
  const SubjectPlots half = probe("builtin:sinusoidal@float16");
  const SubjectPlots single = probe("builtin:sinusoidal@float32");
  // Past 2048 float16 cannot tell t from t + 1: the step collapses, an error of order 1.
  BOOST_TEST(error_at(half, 4096) > 0.3);
  BOOST_TEST(error_at(half, 1) < 0.05);
  BOOST_TEST(error_at(single, 4096) < 1e-2);
  // The dashed line is the dtype's resolution, 8 · u(float16).
  BOOST_TEST(half.lines.at(1).series.back().dashed);
  BOOST_TEST(half.lines.at(1).series.back().y.front() == 8 * std::ldexp(1.0, -11));
}

// The reference plot draws the claim's own error at each position and the
// bound its verdict judges that error by: a correct rotary stays under it
// everywhere (a bound that grows with the angle t·ω), a wrong base crosses it.
BOOST_AUTO_TEST_CASE(the_reference_plot_draws_the_bound_the_verdict_uses) {
  auto reference = [](const SubjectPlots& p) -> LinePlot {
    const LinePlot plot = p.lines.back();
    BOOST_REQUIRE(plot.series.size() == 2u);
    BOOST_REQUIRE(plot.series[0].x.size() == plot.series[1].x.size());
    BOOST_TEST(!plot.series[0].dashed);
    BOOST_TEST(plot.series[1].dashed);
    return plot;
  };
  const LinePlot rope = reference(probe("builtin:rope"));
  BOOST_TEST(rope.title.find("R_t·(1, …, 1) against the declared reference") == 0u, rope.title);
  BOOST_TEST(rope.series[0].name == "error of rope.reference_values");
  for (std::size_t i = 0; i < rope.series[0].y.size(); ++i) BOOST_TEST(rope.series[0].y[i] <= rope.series[1].y[i]);
  BOOST_TEST(rope.series[1].y.back() > 10 * rope.series[1].y.front());  // the angle work grows with t
  BOOST_TEST(rope.series[0].x.back() >= 8192.0);                         // up to the gate

  const LinePlot wrong = reference(probe("mutant:rope-base-1000"));
  std::size_t over = 0;
  for (std::size_t i = 0; i < wrong.series[0].y.size(); ++i) over += wrong.series[0].y[i] > wrong.series[1].y[i] ? 1 : 0;
  BOOST_TEST(over > wrong.series[0].y.size() / 2, over << " of " << wrong.series[0].y.size());

  const LinePlot encoder = reference(probe("builtin:sinusoidal"));
  BOOST_TEST(encoder.series[0].name == "error of pe.reference_values");
  for (std::size_t i = 0; i < encoder.series[0].y.size(); ++i) {
    BOOST_TEST(encoder.series[0].y[i] <= encoder.series[1].y[i]);
  }
}

BOOST_AUTO_TEST_CASE(the_page_opens_with_a_banner_of_its_verdict) {
  RunReport report = sample_report();
  const std::string failed = write_html(report);
  const auto body = failed.find("<body>");
  BOOST_TEST(failed.find(R"(<div class="banner )", body) == body + 7);  // the first thing in the body
  BOOST_TEST(report.exit_code == 3);  // the sample has a subject that timed out
  BOOST_TEST(failed.find(R"(<div class="banner error" role="status"><b>SUBJECT FAILURE</b>)") != std::string::npos);
  report.exit_code = 0;
  BOOST_TEST(write_html(report).find(R"(<div class="banner pass" role="status"><b>PASSED</b>every cell met its )"
                                     "expectation · exit 0</div>") != std::string::npos);
  report.exit_code = 1;
  BOOST_TEST(write_html(report).find(R"(<div class="banner fail" role="status"><b>FAILED</b>)") != std::string::npos);
  report.interrupted = SIGTERM;
  report.exit_code = exit_code_for(report);
  BOOST_TEST(report.exit_code == 143);
  BOOST_TEST(write_html(report).find(R"(<div class="banner error" role="status"><b>INTERRUPTED</b>stopped by SIGTERM)") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_failed_subject_shows_its_stderr_open_and_escaped) {
  // The sample's timed-out subject wrote "Traceback <script>\n]]>" to stderr:
  // shown without a click (the reason is usually there), as text, not markup.
  const std::string html = write_html(sample_report());
  BOOST_TEST(html.find("<details open><summary>stderr tail</summary><pre>Traceback &lt;script&gt;\n]]&gt;</pre>") !=
                 std::string::npos,
             html.substr(0, 4000));
  BOOST_TEST(html.find("<script>") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(svg_survives_values_it_cannot_draw) {
  Matrix m = Matrix::Zero(3, 3);
  m(1, 1) = NAN;
  const std::string heat = svg_heatmap({"t", "c", "position", m});
  BOOST_TEST(heat.find("fill=\"#000\"") != std::string::npos);  // the NaN, drawn black
  BOOST_TEST(heat.find("nan") == std::string::npos);
  const LinePlot plot{"t", "c", "x", "y", true, true,
                      {{"a", {1, 10, 100, 1000}, {1e-3, 0, NAN, -1}, false}, {"empty", {}, {}, true}}};
  const std::string svg = svg_line_plot(plot);
  BOOST_TEST(svg.find("nan") == std::string::npos);
  BOOST_TEST(svg.find("inf") == std::string::npos);
  BOOST_TEST(svg.rfind("<svg", 0) == 0);
  BOOST_TEST(svg.find("</svg>") == svg.size() - 6);
}

BOOST_AUTO_TEST_SUITE_END()  // test_html_report
