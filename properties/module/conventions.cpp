// CLAIMS.md §8 — what a module owes the serving patterns of 2024–2026
// models, each on a subject that declares the request field it needs
// (params.forward: multi_token_decode, segments, cache_capacity):
//
// module.multi_token_decode: after a prefix decoded into the cache, k tokens
// decoded in one call (speculative verification, chunked prefill) give the
// rows k single steps give ("rows against single steps") and the rows of one
// forward over prefix and tokens ("rows against one forward"), and the
// one-token decodes after them are those of single steps ("decodes after it
// against single steps": a rolling buffer whose multi-token write crosses
// the wrap into the wrong slots is exact on the k rows, wrong after them). A step whose
// causal mask is aligned top-left over the cache (one token given
// is_causal=True sees only the first cached key: pytorch #103082; k tokens
// see keys 0..r: mlx #2835) fails whichever path has it; a decode kernel
// that differs from the prefill's (vllm-metal #665: the paged kernel's
// softcap hard-coded to 0) fails the second alone.
//
// module.packed_sequences: documents packed into one row with `segments`,
// each document's positions from 0, give each document's rows alone (ms-swift
// PR #9904: a one-token document followed by another, boundaries found where
// positions decrease, merges them).
//
// module.cache_capacity: the same tokens decoded after resets with two cache
// capacities give the same rows (llama.cpp #24823: LongRoPE's factor set
// chosen by the allocated context, not the sequence).
//
// Error model: module/support.h's comparison bound, with the subject's own
// spread measured on a repeated forward.
#include <fmt/format.h>

#include <algorithm>

#include "module/support.h"
#include "pecheck/property/registry.h"

namespace pecheck::module::conventions {

namespace {

constexpr const char* kSession = "pecheck";

Matrix decode_steps(Subject& s, const Matrix& x, Position start, Eigen::Index from, Eigen::Index count) {
  Matrix rows;
  for (Eigen::Index t = from; t < from + count; ++t) {
    const Vector y = module::decode_checked(s, kSession, x.row(t).transpose(), start + t);
    if (rows.size() == 0) rows.resize(count, y.size());
    if (y.size() != rows.cols()) throw SubjectFailure("decode returned rows of different widths");
    rows.row(t - from) = y.transpose();
  }
  return rows;
}

// module.multi_token_decode ---------------------------------------------------
struct MultiTokenCase {
  Matrix x;            // the sequence, N×d: a prefix of `prefix` tokens, the tokens decoded at once, `after` more
  int prefix = 0;
  Position start = 0;  // its first position
  int after = 0;       // tokens decoded one by one after the k at once (recorded before issue 36: none)
  Eigen::Index together() const { return x.rows() - prefix - after; }
  void validate() const {
    module::validate_batch({x}, "module.multi_token_decode case");
    if (prefix < 0 || after < 0 || prefix + after + 2 > x.rows()) {
      throw InvalidInput("0 ≤ prefix, 0 ≤ after, prefix + after ≤ N − 2 (at least two tokens at once)");
    }
    if (start < 0 || start > (Position{1} << 40)) throw InvalidInput("positions from 0");
  }
};
void to_json(json& j, const MultiTokenCase& c) {
  j = json{{"x", c.x}, {"prefix", c.prefix}, {"start", c.start}, {"after", c.after}};
}
void from_json(const json& j, MultiTokenCase& c) {
  j.at("x").get_to(c.x);
  j.at("prefix").get_to(c.prefix);
  j.at("start").get_to(c.start);
  c.after = j.value("after", 0);  // a case recorded before the decodes after it were compared
}

// The smallest window the module declares (its own or a layer's): where a
// rolling buffer wraps. None: no window.
std::optional<Position> smallest_window(const SubjectInfo& s) {
  if (!s.forward) return std::nullopt;
  std::optional<Position> out = s.forward->attention.window;
  for (const LayerConvention& layer : s.forward->layers) {
    if (layer.window && (!out || *layer.window < *out)) out = layer.window;
  }
  return out;
}

// Windows up to this size are crossed by the search's cases (a prefix of
// W − 1 tokens decoded one by one is cheap); larger ones by the ladder's.
constexpr Position kCrossedInSearch = 64;

// A prefix, k tokens at once and 1..3 decodes after them. Where the module
// declares a window W, half the cases place the k tokens across it (prefix
// < W < prefix + k: a rolling buffer's write wraps inside the call) and
// compare the decodes after it too (issue 36: a buffer that writes the wrong
// slots when a multi-token write crosses the wrap is exact on the k rows
// and wrong on the next ones). A ladder case on tokens decodes as many
// tokens as the gate asks (W + 1 at least), its k tokens across the window.
rc::Gen<MultiTokenCase> multi_token_gen(const GenContext& ctx) {
  const std::optional<Position> w = smallest_window(ctx.subject);
  const auto make = [ctx](int width, int prefix, int k, int after) {
    return rc::gen::apply(
        [prefix, after](Matrix x, Position start) { return MultiTokenCase{std::move(x), prefix, start, after}; },
        module::tokens(prefix + k + after, width), module::start(ctx, prefix + k + after));
  };
  if (focused(ctx, Axis::tokens)) {
    const auto total = size_on(ctx, Op::decode, Axis::tokens, 4, module::kMaxTokens);
    return rc::gen::mapcat(rc::gen::tuple(module::width(ctx), total, rc::gen::inRange(2, 5)),
                           [make, w](const auto& drawn) {
      const auto& [width, n, k_drawn] = drawn;
      const int k = std::min(k_drawn, n - 2);
      // Across the window where the case reaches it (prefix W + 1 − k, the
      // last of the k tokens wrapping into slot 0, then a decode at least:
      // one past the gate's W + 1 when it stands there), else at the end.
      int prefix = n - k - 1;
      if (w && *w + 1 - k >= 0 && *w + 1 <= n) prefix = static_cast<int>(*w + 1 - k);
      return make(width, prefix, k, std::max(1, n - prefix - k));
    });
  }
  return rc::gen::mapcat(
      rc::gen::tuple(module::width(ctx), rc::gen::inRange(0, 5), rc::gen::inRange(2, 5), rc::gen::inRange(1, 4),
                     rc::gen::arbitrary<bool>()),
      [make, w](const auto& drawn) {
        const auto& [width, prefix_drawn, k, after, across] = drawn;
        int prefix = prefix_drawn;
        if (across && w && *w <= kCrossedInSearch) {
          // prefix ∈ [W + 1 − k, W − 1]: the k tokens fill the buffer's last slot and wrap.
          prefix = static_cast<int>(std::max<Position>(0, *w + 1 - k + prefix_drawn % (k - 1)));
        }
        return make(width, prefix, k, after);
      });
}

// The three paths: the k tokens at once after the prefix decoded one by one
// (with the `after` decodes that follow them), every token one by one, and
// one forward over prefix and k tokens.
struct MultiTokenPaths {
  Matrix together, together_after, single, single_after, forward;
  Batch whole, again;
};

MultiTokenPaths multi_token_paths(Subject& s, const MultiTokenCase& c) {
  const Eigen::Index p = c.prefix, k = c.together(), a = c.after, n = p + k;
  MultiTokenPaths out;
  ask::reset(s, kSession);
  if (p > 0) decode_steps(s, c.x, c.start, 0, p);
  out.together = ask::decode_tokens(s, kSession, c.x.middleRows(p, k), module::counting(c.start + p, k));
  if (out.together.rows() != k || out.together.cols() < 1) {
    throw SubjectFailure(fmt::format("decode of {} tokens returned {} rows", k, out.together.rows()));
  }
  out.together_after = a > 0 ? decode_steps(s, c.x, c.start, n, a) : Matrix(0, out.together.cols());
  ask::reset(s, kSession);
  const Matrix single = decode_steps(s, c.x, c.start, 0, n + a);
  out.single = single.middleRows(p, k);
  out.single_after = single.bottomRows(a);
  if (out.single.cols() != out.together.cols() || out.together_after.cols() != out.together.cols()) {
    throw SubjectFailure(fmt::format("decode returned rows of {} values one by one, {} at once", out.single.cols(),
                                     out.together.cols()));
  }
  const std::vector<Positions> at{module::counting(c.start, n)};
  const Matrix prefix_and_k = c.x.topRows(n);
  out.whole = module::forward_checked(s, {prefix_and_k}, at);
  out.again = module::forward_checked(s, {prefix_and_k}, at);
  if (out.whole[0].cols() != out.together.cols()) throw SubjectFailure("forward and decode rows of different widths");
  out.forward = out.whole[0].bottomRows(k);
  return out;
}

Measurement multi_token_measure(Subject& s, const MultiTokenCase& c, const BoundModel& model) {
  const Eigen::Index p = c.prefix, k = c.together(), n = c.x.rows();
  const MultiTokenPaths paths = multi_token_paths(s, c);
  const Matrix& together = paths.together;
  const Matrix& single = paths.single;
  const Matrix& forward_rows = paths.forward;
  const Batch& whole = paths.whole;
  const Batch& again = paths.again;

  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index t = 0; t < k; ++t) rows.emplace_back(t, t);
  const Batch together_batch{together}, single_batch{single}, forward_batch{forward_rows};
  // The k rows compared come from paths over the prefix and the k tokens: the decodes after are later's.
  auto bound = [&](const Batch& a, const Batch& b) {
    return module::comparison_bound(s.info(), static_cast<int>(c.x.cols()), p + k, c.start + p + k - 1,
                                    module::scale_of({c.x}, {&a, &b}), module::spread(whole, again), model.factor(),
                                    module::ceiling_of({&a, &b}));
  };
  const std::string label = fmt::format("{} tokens at once after a prefix of {}", k, p);
  Check steps{"rows against single steps"};
  module::worst_row(steps, together, single, rows, 0);
  steps.bound = bound(together_batch, single_batch);
  Check forward{"rows against one forward"};
  module::worst_row(forward, together, forward_rows, rows, 0);
  forward.bound = bound(together_batch, forward_batch);
  for (Check* check : {&steps, &forward}) {
    check->where.batch.reset();
    if (check->where.token) {
      check->where.position = c.start + p + *check->where.token;
      check->where.token = p + *check->where.token;
    }
    check->where.label = label;
  }
  // The decodes after the k tokens: what the multi-token write left in the cache.
  Check later{"decodes after it against single steps"};
  std::vector<std::pair<Eigen::Index, Eigen::Index>> after_rows;
  for (Eigen::Index t = 0; t < c.after; ++t) after_rows.emplace_back(t, t);
  module::worst_row(later, paths.together_after, paths.single_after, after_rows, 0);
  const Batch after_batch{paths.together_after}, single_after_batch{paths.single_after};
  later.bound = module::comparison_bound(s.info(), static_cast<int>(c.x.cols()), n, c.start + n - 1,
                                         module::scale_of({c.x}, {&after_batch, &single_after_batch}),
                                         module::spread(whole, again), model.factor(),
                                         module::ceiling_of({&after_batch, &single_after_batch}));
  later.where.batch.reset();
  if (later.where.token) {
    later.where.token = p + k + *later.where.token;
    later.where.position = c.start + *later.where.token;
  }
  later.where.label = fmt::format("decode step {} of {}, after {} tokens at once after a prefix of {}",
                                  later.where.token.value_or(p + k), n, k, p);
  steps.note = "each row of one decode of k tokens against the same token decoded one step at a time";
  forward.note = "each row of one decode of k tokens against the same row of one forward over the whole sequence";
  later.note = "each of the one-token decodes after the k tokens at once against the same token decoded after single "
               "steps only";
  return {{std::move(steps), std::move(forward), std::move(later)}, {}};
}

std::string multi_token_diagnosis(Subject& s, const MultiTokenCase& c, const BoundModel&) {
  // Which of the three agree: the k tokens at once, the single steps, forward.
  const Eigen::Index p = c.prefix, k = c.together();
  const MultiTokenPaths paths = multi_token_paths(s, c);
  const Matrix& together = paths.together;
  const Matrix& single = paths.single;
  const Matrix& forward = paths.forward;
  if (together.cols() != single.cols() || forward.cols() != single.cols()) return "rows of different widths";
  const double u = unit_roundoff(s.info().dtype);  // a thousand roundings apart: different
  auto same = [u](const Matrix& a, const Matrix& b) {
    return a.size() == 0 || (a - b).cwiseAbs().maxCoeff() <= 1e3 * u * std::max(1.0, b.cwiseAbs().maxCoeff());
  };
  if (same(together, single) && same(single, forward) && !same(paths.together_after, paths.single_after)) {
    const auto w = smallest_window(s.info());
    const bool across = w && p < *w && p + k > *w;
    return fmt::format("the {} tokens at once agree with single steps and forward, the decodes after them do not: "
                       "the multi-token write left other keys in the cache than {} single writes{}",
                       k, k,
                       across ? fmt::format(" — it crossed the end of the window's rolling buffer (W = {}, slots {}..{}): "
                                            "the wrapped tokens written to the wrong slots",
                                            *w, p, p + k - 1)
                              : std::string());
  }
  if (same(together, forward) && !same(single, forward)) {
    return "the k tokens at once agree with forward, the one-token steps do not: a one-token step masked as if its "
           "query stood first (torch's is_causal=True with one query over a cache sees only the first key: pytorch "
           "#103082) or computed by a kernel of its own";
  }
  if (same(single, forward) && !same(together, forward)) {
    return fmt::format("the one-token steps agree with forward, the {} tokens at once do not: the step's causal mask "
                       "over cache + step aligned top-left (query r at key r, torch's is_causal) where a cache needs "
                       "bottom-right (query r at key {} + r: mlx #2835, executorch #22426)",
                       k, p);
  }
  if (same(single, together)) {
    return "decode agrees with itself, one token or several, and not with forward: the decode path computes otherwise "
           "than prefill (a kernel with another cap, scale or window: vllm-metal #665's softcap hard-coded to 0)";
  }
  return "the k tokens at once, the one-token steps and forward all differ";
}

// module.packed_sequences -----------------------------------------------------
struct PackedCase {
  std::vector<Matrix> documents;  // each L_d × d, L_d ≥ 1
  void validate() const {
    if (documents.size() < 2 || documents.size() > 8) throw InvalidInput("2 to 8 documents");
    Eigen::Index total = 0;
    for (const Matrix& doc : documents) {
      module::validate_batch({doc}, "module.packed_sequences document");
      if (doc.cols() != documents.front().cols()) throw InvalidInput("documents of one width");
      total += doc.rows();
    }
    if (total > 64) throw InvalidInput("at most 64 packed tokens");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(PackedCase, documents)

rc::Gen<PackedCase> packed_gen(const GenContext& ctx) {
  return rc::gen::mapcat(module::width(ctx), [](int width) {
    return rc::gen::map(module::some<Matrix>(2, 4, rc::gen::mapcat(rc::gen::inRange(1, 5), [width](int length) {
                          return module::tokens(length, width);
                        })),
                        [](std::vector<Matrix> docs) { return PackedCase{std::move(docs)}; });
  });
}

Measurement packed_measure(Subject& s, const PackedCase& c, const BoundModel& model) {
  Eigen::Index total = 0;
  for (const Matrix& doc : c.documents) total += doc.rows();
  const Eigen::Index width = c.documents.front().cols();
  Matrix packed(total, width);
  Positions positions, segments;
  Eigen::Index at = 0;
  for (std::size_t d = 0; d < c.documents.size(); ++d) {
    const Matrix& doc = c.documents[d];
    packed.middleRows(at, doc.rows()) = doc;
    for (Eigen::Index r = 0; r < doc.rows(); ++r) {
      positions.push_back(r);
      segments.push_back(static_cast<Position>(d));
    }
    at += doc.rows();
  }
  const Batch y = ask::forward_packed(s, {packed}, {positions}, {}, {segments});
  if (y.size() != 1 || y[0].rows() != total) {
    throw SubjectFailure(fmt::format("forward with segments returned {} sequence(s) for 1 of {} tokens", y.size(), total));
  }
  Check check{"each document as if alone"};
  Batch alone_rows, repeated;
  Eigen::Index from = 0;
  Matrix expected(total, y[0].cols());
  for (const Matrix& doc : c.documents) {
    const std::vector<Positions> doc_positions{module::counting(0, doc.rows())};
    const Batch alone = module::forward_checked(s, {doc}, doc_positions);
    if (alone[0].cols() != y[0].cols()) throw SubjectFailure("packed and single forwards of different widths");
    expected.middleRows(from, doc.rows()) = alone[0];
    if (repeated.empty()) repeated = module::forward_checked(s, {doc}, doc_positions), alone_rows = alone;
    from += doc.rows();
  }
  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index r = 0; r < total; ++r) rows.emplace_back(r, r);
  module::worst_row(check, y[0], expected, rows, 0);
  const Batch packed_batch{y[0]}, expected_batch{expected};
  // Positions restart in each document: the largest rotated is the longest document's last.
  const Position largest = *std::max_element(positions.begin(), positions.end());
  check.bound = module::comparison_bound(s.info(), static_cast<int>(width), total, largest,
                                         module::scale_of({packed}, {&packed_batch, &expected_batch}),
                                         module::spread(alone_rows, repeated), model.factor(),
                                         module::ceiling_of({&packed_batch, &expected_batch}));
  check.where.batch.reset();
  if (check.where.token) {
    const auto token = static_cast<std::size_t>(*check.where.token);
    check.where.position = positions[token];
    std::string lengths;
    for (const Matrix& doc : c.documents) lengths += fmt::format("{}{}", lengths.empty() ? "" : ", ", doc.rows());
    check.where.label = fmt::format("document {} of {} packed (lengths {})", segments[token], c.documents.size(), lengths);
  }
  check.note = "each packed token's row against the same row of its document run alone";
  return {{std::move(check)}, {}};
}

std::string packed_diagnosis(Subject& s, const PackedCase& c, const BoundModel& model) {
  const Measurement m = packed_measure(s, c, model);
  const auto& where = m.checks.front().where;
  if (!where.token) return "the packed rows differ from the documents alone";
  Eigen::Index at = 0;
  std::size_t doc = 0;
  for (; doc < c.documents.size(); ++doc) {
    if (*where.token < at + c.documents[doc].rows()) break;
    at += c.documents[doc].rows();
  }
  if (doc > 0 && c.documents[doc - 1].rows() == 1) {
    return fmt::format("document {} follows a one-token document and does not run as if alone: the boundary between "
                       "them is missed — boundaries found where a position is smaller than the one before it, and "
                       "0 → 0 is not (ms-swift PR #9904); use the segments (cu_seqlens) themselves",
                       doc);
  }
  return fmt::format("document {} (from packed token {}) does not run as if alone: it sees tokens of other documents "
                     "(no block-diagonal mask) or its positions are not its own",
                     doc, at);
}

// module.cache_capacity ---------------------------------------------------------
struct CapacityCase {
  Matrix x;             // tokens decoded after each reset
  Position start = 0;
  Position capacity = 1;  // the first capacity; the second is `other`
  Position other = 2;
  void validate() const {
    module::validate_batch({x}, "module.cache_capacity case");
    const Position needed = start + x.rows();
    if (start < 0 || capacity < needed || other < needed || capacity == other || other > (Position{1} << 30) ||
        capacity > (Position{1} << 30)) {
      throw InvalidInput("two different capacities of at least start + N positions");
    }
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CapacityCase, x, start, capacity, other)

rc::Gen<CapacityCase> capacity_gen(const GenContext& ctx) {
  return rc::gen::mapcat(rc::gen::pair(module::width(ctx), rc::gen::inRange(1, module::kMaxTokens + 1)),
                         [ctx](std::pair<int, int> shape) {
    const auto [width, n] = shape;
    return rc::gen::mapcat(module::start(ctx, n), [width, n](Position start) {
      const Position needed = start + n;
      // The allocated length: just enough, and one of the sizes contexts are
      // allocated at (past the scaled models' original lengths).
      return rc::gen::apply(
          [start, needed](Matrix x, Position slack, Position other) {
            const Position first = needed + slack;
            const Position second = std::max(other, first + 1);
            return CapacityCase{std::move(x), start, first, second};
          },
          module::tokens(n, width), rc::gen::inRange<Position>(0, 4),
          rc::gen::element(Position{64}, Position{4096}, Position{8192}, Position{32768}, Position{131072}));
    });
  });
}

Measurement capacity_measure(Subject& s, const CapacityCase& c, const BoundModel& model) {
  const Eigen::Index n = c.x.rows();
  ask::reset_with_capacity(s, kSession, c.capacity);
  const Matrix first = decode_steps(s, c.x, c.start, 0, n);
  ask::reset_with_capacity(s, kSession, c.other);
  const Matrix second = decode_steps(s, c.x, c.start, 0, n);
  ask::reset_with_capacity(s, kSession, c.capacity);
  const Matrix repeated = decode_steps(s, c.x, c.start, 0, n);
  if (second.cols() != first.cols()) throw SubjectFailure("decode rows of different widths at two capacities");
  Check check{"same rows at another capacity"};
  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index t = 0; t < n; ++t) rows.emplace_back(t, t);
  module::worst_row(check, second, first, rows, 0);
  const Batch a{first}, b{second}, r{repeated};
  check.bound = module::comparison_bound(s.info(), static_cast<int>(c.x.cols()), n, c.start + n - 1,
                                         module::scale_of({c.x}, {&a, &b}), module::spread(a, r), model.factor(),
                                         module::ceiling_of({&a, &b}));
  check.where.batch.reset();
  if (check.where.token) check.where.position = c.start + *check.where.token;
  check.where.label = fmt::format("decode step {} of {} after a reset with capacity {} (against {})",
                                  check.where.token.value_or(0), n, c.other, c.capacity);
  check.note = fmt::format("each decoded row after reset(capacity {}) against the same after reset(capacity {})",
                           c.other, c.capacity);
  return {{std::move(check)}, {}};
}

std::string capacity_diagnosis(Subject& s, const CapacityCase& c, const BoundModel&) {
  const Eigen::Index n = c.x.rows();
  ask::reset_with_capacity(s, kSession, c.capacity);
  const Matrix first = decode_steps(s, c.x, c.start, 0, n);
  ask::reset_with_capacity(s, kSession, c.other);
  const Matrix second = decode_steps(s, c.x, c.start, 0, n);
  const double u = unit_roundoff(s.info().dtype);
  Eigen::Index step = -1;
  for (Eigen::Index t = 0; t < n && step < 0; ++t) {
    if ((first.row(t) - second.row(t)).cwiseAbs().maxCoeff() > 1e3 * u * std::max(1.0, first.row(t).cwiseAbs().maxCoeff())) {
      step = t;
    }
  }
  if (step < 0) return "the rows agree when decoded again: the difference depends on what came before the resets";
  return fmt::format("the same tokens give other rows from decode step {} on after reset(capacity {}) than after "
                     "reset(capacity {}): the module reads its allocated cache length — a factor set or base chosen "
                     "by the context's size, not the sequence's (llama.cpp #24823: LongRoPE's long factors for a "
                     "short sequence in a large context)",
                     step, c.other, c.capacity);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {
      scaling({Axis::tokens},
              define<MultiTokenCase>("module.multi_token_decode",
                                     {"rows against single steps", "rows against one forward",
                                      "decodes after it against single steps"},
                                     multi_token_gen, multi_token_measure, multi_token_diagnosis)),
      define<PackedCase>("module.packed_sequences", {"each document as if alone"}, packed_gen, packed_measure,
                         packed_diagnosis),
      define<CapacityCase>("module.cache_capacity", {"same rows at another capacity"}, capacity_gen, capacity_measure,
                           capacity_diagnosis),
  };
}

}  // namespace pecheck::module::conventions
