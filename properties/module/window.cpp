// CLAIMS.md §10 — module.window_no_lookback: a module whose attention has a
// window W (params.forward.window, or the config's sliding_window) lets
// output row i of one attention layer see tokens i − W + 1 … i and nothing
// before; through L windowed layers nothing before i − L·(W − 1) reaches row
// i. attention.window_no_lookback judges a kernel that is offered as the
// attention op; this one judges the module itself, where the published bugs
// live in the cache and the mask around the kernel (mlx-lm PR #390: the
// rotating cache held W + 1 keys, "one too many"; transformers #37574,
// #39408; onnxruntime PR #25927).
//
// One layer is `forward` with "layer": k where the subject declares its
// layers (params.forward.layers), else the whole module (a single block).
// One token j is replaced per case. The sub-checks:
//   rows past the window unchanged   rows i ≥ j + W of the layer, within the
//                                    module error model (module/support.h)
//   oldest token in the window seen  row j + W − 1 moves by more than that bound
//   nothing past L·(W − 1) through the stack
//                                    with L ≥ 2 declared layers, all windowed:
//                                    rows i ≥ j + L·(W − 1) + 1 of the whole forward
#include <fmt/format.h>

#include <algorithm>

#include "module/support.h"
#include "module/window.h"
#include "pecheck/property/registry.h"
#include "input_checks.h"

namespace pecheck::module::window {

void WindowCase::validate() const {
  module::validate_batch({x}, "module window case");
  if (start < 0 || start + x.rows() > input::kMaxPosition) throw InvalidInput("module window case: start ≥ 0");
  if (layer < -1 || layer > 4096) throw InvalidInput("module window case: layer from -1 to 4096");
  if (changed < 0 || changed >= x.rows()) throw InvalidInput("module window case: no such token");
  if (replacement.rows() != 1 || replacement.cols() != x.cols()) throw InvalidInput("one token of width d");
}

namespace {

constexpr const char* kPast = "rows past the window unchanged";
constexpr const char* kEdge = "oldest token in the window seen";
constexpr const char* kStack = "nothing past L·(W − 1) through the stack";

int layer_count(const SubjectInfo& s) { return s.forward ? static_cast<int>(s.forward->layers.size()) : 0; }

Position window_of(const SubjectInfo& s, int layer) {
  const auto w = window_at(s, layer);
  if (!w) throw InvalidInput(fmt::format("module.window_no_lookback: layer {} declares no window", layer));
  return *w;
}

// The layers with a window (none declared: the module as one layer, -1).
std::vector<int> windowed_layers(const SubjectInfo& s) {
  if (layer_count(s) == 0) return {-1};
  std::vector<int> out;
  for (int k = 0; k < layer_count(s); ++k) {
    if (window_at(s, k)) out.push_back(k);
  }
  return out;
}

// How far back the whole stack reaches: Σ (W_k − 1) when every layer is
// windowed (L·(W − 1) for one W), none when a layer is not.
std::optional<Position> stack_reach(const SubjectInfo& s) {
  if (layer_count(s) < 2) return std::nullopt;
  Position reach = 0;
  for (int k = 0; k < layer_count(s); ++k) {
    const auto w = window_at(s, k);
    if (!w) return std::nullopt;
    reach += *w - 1;
  }
  return reach;
}

// Where the window comes from, for messages.
std::string window_source(const SubjectInfo& s) {
  const bool from_config = std::find(s.declared.begin(), s.declared.end(), "params.model") != s.declared.end();
  return from_config ? "window, from the model config's sliding_window and layer_types" : "params.forward.window";
}

Batch ask_layer(Subject& s, int layer, const Matrix& x, Position start) {
  const auto n = x.rows();
  const std::vector<Positions> at = {module::counting(start, n)};
  if (layer < 0) return module::forward_checked(s, {x}, at);
  Batch out = ask::forward_layer(s, layer, {x}, at, BoolMatrix::Constant(1, n, true));
  if (out.size() != 1 || out.front().rows() != n || out.front().cols() < 1) {
    throw SubjectFailure(fmt::format("forward of layer {}: expected 1 sequence of {} rows", layer, n));
  }
  return out;
}

std::string layer_name(int layer) { return layer < 0 ? "the module's attention layer" : fmt::format("layer {}", layer); }

// The three answers a comparison needs: before, the same again (the
// subject's spread), and after token `changed` is replaced.
struct Answers {
  Batch base, repeated, after;
};
Answers answers(Subject& s, const WindowCase& c, int layer) {
  // The token moves by at least 0.5 in every feature: a replacement equal to
  // the token (both shrunk to zeros) would change nothing, and "must move"
  // would fail on a correct module.
  Matrix changed = c.x;
  changed.row(c.changed) +=
      c.replacement.row(0).unaryExpr([](double v) { return v >= 0 ? v + 0.5 : v - 0.5; });
  return {ask_layer(s, layer, c.x, c.start), ask_layer(s, layer, c.x, c.start), ask_layer(s, layer, changed, c.start)};
}

Bound bound_of(const SubjectInfo& s, const WindowCase& c, const Answers& a, const BoundModel& model, bool ceiling) {
  return module::comparison_bound(s, static_cast<int>(c.x.cols()), c.x.rows(), c.start + c.x.rows() - 1,
                                  module::scale_of({c.x}, {&a.base, &a.after}), module::spread(a.base, a.repeated),
                                  model.factor(), ceiling ? module::ceiling_of({&a.base, &a.after}) : 0.0);
}

// Rows from `first` on must not move.
Check unchanged_from(const char* name, const SubjectInfo& s, const WindowCase& c, const Answers& a,
                     Eigen::Index first, const BoundModel& model) {
  Check check{name};
  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index r = first; r < c.x.rows(); ++r) rows.emplace_back(r, r);
  module::worst_row(check, a.after.front(), a.base.front(), rows, 0);
  check.bound = bound_of(s, c, a, model, true);
  if (check.where.token) check.where.position = c.start + *check.where.token;
  check.where.other_position = c.start + c.changed;
  return check;
}

// N = j + R + 1 + r tokens, r ∈ [1, 2], R the stack's reach (W − 1 for one
// layer): row j + W − 1 (the probe) and, through a stack, a row past its
// reach exist.
rc::Gen<WindowCase> window_gen(const GenContext& ctx) {
  const std::vector<int> layers = windowed_layers(ctx.subject);
  if (layers.empty()) throw InvalidInput("module.window_no_lookback: no windowed layer");
  return rc::gen::mapcat(rc::gen::elementOf(layers), [ctx](int layer) {
    return window_case(ctx, layer, std::max(window_of(ctx.subject, layer) - 1, stack_reach(ctx.subject).value_or(0)));
  });
}

Measurement window_measure(Subject& s, const WindowCase& c, const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const int layers = layer_count(info);
  if (c.layer >= 0 && c.layer >= layers) {
    throw InvalidInput(fmt::format("module.window_no_lookback: layer {} of {} declared", c.layer, layers));
  }
  const Position w = window_of(info, c.layer);
  Measurement m;
  m.checks.push_back(past_window(s, c, w, model, kPast));
  m.checks.push_back(reaches(s, c, c.changed + w - 1, model, kEdge,
                             fmt::format("token i − W + 1 is the oldest of row i's window of {}", w)));
  // Through the stack: L windowed layers reach Σ (W_k − 1) = L·(W − 1) tokens back.
  if (const auto reach = stack_reach(info)) {
    const Eigen::Index first = c.changed + *reach + 1, n = c.x.rows();
    if (first < n) {
      const Answers all = answers(s, c, -1);
      Check stack = unchanged_from(kStack, info, c, all, first, model);
      stack.where.label = fmt::format("the whole forward ({} layers), token {} replaced", layers, c.changed);
      stack.note = fmt::format("rows {}..{} of the {}-layer forward (more than Σ (W_k − 1) = {} after token {}) after "
                               "token {} changed, against before",
                               first, n - 1, layers, *reach, c.changed, c.changed);
      m.checks.push_back(std::move(stack));
    }
  }
  return m;
}

std::string window_diagnose(Subject& s, const WindowCase& c, const BoundModel& model) {
  const Position w = window_of(s.info(), c.layer);
  return window_diagnosis(s, c, w, fmt::format("{} = {}", window_source(s.info()), w), model);
}

}  // namespace

std::optional<Position> window_at(const SubjectInfo& s, int layer) {
  if (!s.forward) return std::nullopt;
  if (layer >= 0 && layer < layer_count(s)) {
    const LayerConvention& l = s.forward->layers[static_cast<std::size_t>(layer)];
    if (l.window) return l.window;
    if (l.chunk) return std::nullopt;
  }
  return s.forward->attention.window;
}

rc::Gen<WindowCase> window_case(const GenContext& ctx, int layer, Position reach) {
  return rc::gen::mapcat(
      rc::gen::tuple(module::width(ctx), rc::gen::inRange(0, 3), rc::gen::inRange(1, 3)),
      [ctx, layer, reach](std::tuple<int, int, int> drawn) {
        const auto [width, j, r] = drawn;
        const Position wanted = j + reach + 1 + r;
        // A window too wide for one input is discarded by the measurement (no row past it).
        const auto n = static_cast<Eigen::Index>(std::min<Position>(wanted, input::kMaxRows));
        return rc::gen::apply(
            [n, j, layer](Matrix x, Position start, Matrix replacement) {
              WindowCase c;
              c.x = std::move(x);
              c.start = start;
              c.layer = layer;
              c.changed = static_cast<int>(std::min<Eigen::Index>(j, n - 1));
              c.replacement = std::move(replacement);
              return c;
            },
            module::tokens(n, width), module::start(ctx, n), module::tokens(1, width));
      });
}

Check reaches(Subject& s, const WindowCase& c, Eigen::Index probe, const BoundModel& model, const char* name,
              const std::string& why) {
  if (probe >= c.x.rows()) {
    throw HarnessDiscard(fmt::format("the harness discards this input: row {} needs more than {} tokens", probe, c.x.rows()));
  }
  const Answers a = answers(s, c, c.layer);
  Check check{name};
  const Vector moved = (a.after.front().row(probe) - a.base.front().row(probe)).transpose();
  check.error = moved.array().isNaN().any() ? 0.0 : moved.cwiseAbs().maxCoeff();
  check.bound = bound_of(s.info(), c, a, model, false);
  check.bound.kind = Bound::Kind::lower;
  check.where.token = probe;
  check.where.position = c.start + probe;
  check.where.other_position = c.start + c.changed;
  check.where.label = fmt::format("{}, row {}, token {} replaced", layer_name(c.layer), probe, c.changed);
  check.observed = number_to_json(check.error);
  check.expected = fmt::format("a move larger than the rounding bound ({})", why);
  check.note = fmt::format("how far {}'s row {} moved when token {} changed ({})", layer_name(c.layer), probe,
                           c.changed, why);
  return check;
}

Check unchanged_rows(Subject& s, const WindowCase& c, const std::function<bool(Eigen::Index)>& hidden,
                     const BoundModel& model, const char* name, const std::string& what) {
  const Answers a = answers(s, c, c.layer);
  Check check{name};
  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index r = 0; r < c.x.rows(); ++r) {
    if (hidden(r)) rows.emplace_back(r, r);
  }
  if (rows.empty()) throw HarnessDiscard("the harness discards this input: no row that must not move");
  module::worst_row(check, a.after.front(), a.base.front(), rows, 0);
  check.bound = bound_of(s.info(), c, a, model, true);
  if (check.where.token) check.where.position = c.start + *check.where.token;
  check.where.other_position = c.start + c.changed;
  check.where.label = fmt::format("{}, token {} replaced", layer_name(c.layer), c.changed);
  check.note = fmt::format("{}'s {} after token {} changed, against before", layer_name(c.layer), what, c.changed);
  return check;
}

std::optional<Position> chunk_at(const SubjectInfo& s, int layer) {
  if (!s.forward) return std::nullopt;
  if (layer >= 0 && layer < layer_count(s)) {
    const LayerConvention& l = s.forward->layers[static_cast<std::size_t>(layer)];
    if (l.chunk) return l.chunk;
    if (l.window) return std::nullopt;
  }
  return s.forward->attention.chunk;
}

Check past_window(Subject& s, const WindowCase& c, Position w, const BoundModel& model, const char* name) {
  const Eigen::Index n = c.x.rows();
  if (c.changed + w - 1 >= n) {
    throw HarnessDiscard(fmt::format("the harness discards this input: a window of {} needs more than {} tokens", w, n));
  }
  const Answers a = answers(s, c, c.layer);
  Check check = unchanged_from(name, s.info(), c, a, c.changed + w, model);
  check.where.label = fmt::format("{}, token {} replaced, window {}", layer_name(c.layer), c.changed, w);
  check.note = fmt::format("{}'s rows {}..{} (at least W = {} after token {}) after token {} changed, against before",
                           layer_name(c.layer), c.changed + w, n - 1, w, c.changed, c.changed);
  return check;
}

std::string window_diagnosis(Subject& s, const WindowCase& c, Position w, const std::string& field,
                             const BoundModel& model) {
  const SubjectInfo& info = s.info();
  const Eigen::Index n = std::min<Eigen::Index>(w + 3, input::kMaxRows), i = n - 1;
  if (c.x.rows() < 1) return {};
  WindowCase probe = c;
  probe.x = Matrix(n, c.x.cols());
  for (Eigen::Index r = 0; r < n; ++r) probe.x.row(r) = c.x.row(r % c.x.rows());
  try {
    Eigen::Index oldest = -1;
    const Eigen::Index from = std::max<Eigen::Index>(0, i - w - 1);
    for (Eigen::Index j = from; j <= i - w + 2 && j <= i; ++j) {
      probe.changed = static_cast<int>(j);
      const Answers a = answers(s, probe, c.layer);
      const double moved = (a.after.front().row(i) - a.base.front().row(i)).cwiseAbs().maxCoeff();
      if (moved > model.value(bound_of(info, probe, a, model, false)) && oldest < 0) oldest = j;
    }
    const std::string where = fmt::format("{} ({})", layer_name(c.layer), field);
    if (oldest < 0) return fmt::format("{}: row {} sees none of tokens {}..{}", where, i, from, i - w + 2);
    const Eigen::Index keys = i - oldest + 1;
    if (oldest == from && from > 0 && keys > w + 1) {
      return fmt::format("{}: row {} sees token {} = i − W − 1 too: at least W + 2 keys, a window of another size or "
                         "none",
                         where, i, oldest);
    }
    if (keys == w + 1) {
      return fmt::format("{}: row {} sees tokens {}..{}, W + 1 = {} keys where the window is W = {} — one too many "
                         "(mlx-lm PR #390: a rotating cache of max_size + 1; flash-attention's window_size=(W, 0) "
                         "given the config's sliding_window unchanged: transformers #29623)",
                         where, i, oldest, i, keys, w);
    }
    if (keys == w - 1) {
      return fmt::format("{}: row {} sees tokens {}..{}, W − 1 = {} keys where the window is W = {} — token i − W + 1 "
                         "masked ('<' for '≤', or the query counted twice)",
                         where, i, oldest, i, keys, w);
    }
    if (keys == w && layer_count(info) >= 2) {
      return fmt::format("{} sees W = {} tokens, as declared, yet the {}-layer forward reaches further: a layer of "
                         "the whole stack is not windowed as its forward with \"layer\" is (a cache group or mask "
                         "shared across layers: vLLM #51756)",
                         where, w, layer_count(info));
    }
    return fmt::format("{}: row {} sees tokens {}..{}, {} keys where the window is {}", where, i, oldest, i, keys, w);
  } catch (const std::exception&) {
    return {};
  }
}

std::vector<PropertyImpl> properties() {
  return {define<WindowCase>("module.window_no_lookback", {kPast, kEdge, kStack}, window_gen, window_measure,
                             window_diagnose)};
}

}  // namespace pecheck::module::window
