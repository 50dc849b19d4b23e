// CLAIMS.md §7 — module.incremental_decoding: decoding a sequence token by
// token with the subject's own cache, from a reset, gives the rows of one
// forward over the whole sequence. "From any reset": each case first decodes
// a few warm-up tokens into the session and resets it, so a reset that
// leaves something behind shows (and the witness replays on a fresh
// subject).
//
// A module whose rotary base follows the sequence length (declared
// params.rotate.scaling dynamic_ntk) answers row t of a forward over tokens
// 0..T differently for every T past its original length: for it, decode step
// t is compared with row t of a forward over tokens 0..t, the sequence as
// long as it was when that token was decoded.
#include <fmt/format.h>

#include "module/support.h"
#include "pecheck/property/registry.h"

namespace pecheck::module::decoding {

namespace {

constexpr const char* kSession = "pecheck";

struct DecodeCase {
  Matrix warmup;      // tokens decoded, then reset, before the sequence (0 rows: none)
  Matrix x;           // the sequence, N×d
  Position start = 0; // its first position
  void validate() const {
    module::validate_batch({x}, "module.incremental_decoding case");
    if (warmup.rows() > 64 || (warmup.rows() > 0 && warmup.cols() != x.cols())) {
      throw InvalidInput("at most 64 warm-up tokens of width d");
    }
    if (start < 0 || start > (Position{1} << 40)) throw InvalidInput("positions from 0");
  }
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(DecodeCase, warmup, x, start)

// A module whose answers follow the sequence length is compared prefix by
// prefix: a forward per decoded token, so its ladder stops at this length.
constexpr int kLongestPrefixed = 64;

bool length_dependent(const SubjectInfo& info);

rc::Gen<DecodeCase> decode_gen(const GenContext& ctx) {
  const bool prefixes = length_dependent(ctx.subject);
  const auto count = size_on(ctx, Op::decode, Axis::tokens, 1, module::kMaxTokens,
                             [prefixes](std::int64_t n) { return !prefixes || n <= kLongestPrefixed; });
  return rc::gen::mapcat(rc::gen::pair(module::width(ctx), count), [ctx](std::pair<int, int> shape) {
    const auto [width, n] = shape;
    return rc::gen::apply(
        [](Matrix warmup, Matrix x, Position start) { return DecodeCase{std::move(warmup), std::move(x), start}; },
        rc::gen::mapcat(rc::gen::inRange(0, 3), [width = width](int w) { return module::tokens(w, width); }),
        module::tokens(n, width), module::start(ctx, std::max(n, module::kMaxTokens)));
  });
}

bool length_dependent(const SubjectInfo& info) { return info.rotate.scaling.type == ScalingType::dynamic_ntk; }

Measurement decode_measure(Subject& s, const DecodeCase& c, const BoundModel& model) {
  const auto n = c.x.rows();
  ask::reset(s, kSession);
  for (Eigen::Index w = 0; w < c.warmup.rows(); ++w) {
    module::decode_checked(s, kSession, c.warmup.row(w).transpose(), c.start + w);
  }
  ask::reset(s, kSession);
  Matrix decoded;
  for (Eigen::Index t = 0; t < n; ++t) {
    const Vector y = module::decode_checked(s, kSession, c.x.row(t).transpose(), c.start + t);
    if (t == 0) decoded.resize(n, y.size());
    if (y.size() != decoded.cols()) throw SubjectFailure("decode returned rows of different widths");
    decoded.row(t) = y.transpose();
  }
  // The forward rows decode must match: the whole sequence, or each prefix.
  Matrix expected(n, decoded.cols());
  Batch last, repeated;
  const bool prefixes = length_dependent(s.info());
  for (Eigen::Index t = prefixes ? 0 : n - 1; t < n; ++t) {
    const Batch prefix{c.x.topRows(t + 1)};
    const std::vector<Positions> at{module::counting(c.start, t + 1)};
    last = module::forward_checked(s, prefix, at);
    if (last[0].cols() != decoded.cols()) {
      throw SubjectFailure(fmt::format("decode returned rows of {} values, forward rows of {}", decoded.cols(),
                                       last[0].cols()));
    }
    if (prefixes) expected.row(t) = last[0].row(t);
    if (t == n - 1) repeated = module::forward_checked(s, prefix, at);
  }
  if (!prefixes) expected = last[0];

  Check check{"decoded rows"};
  std::vector<std::pair<Eigen::Index, Eigen::Index>> rows;
  for (Eigen::Index t = 0; t < n; ++t) rows.emplace_back(t, t);
  module::worst_row(check, decoded, expected, rows, 0);
  const Batch decoded_batch{decoded}, expected_batch{expected};
  check.bound = module::comparison_bound(s.info(), static_cast<int>(c.x.cols()), n, c.start + n - 1,
                                         module::scale_of({c.x}, {&decoded_batch, &expected_batch}),
                                         module::spread(last, repeated), model.factor(),
                                         module::ceiling_of({&decoded_batch, &expected_batch}));
  check.where.batch.reset();
  if (check.where.token) check.where.position = c.start + *check.where.token;
  check.where.label = fmt::format("decode step {} of {}{}", check.where.token.value_or(0), n,
                                  c.warmup.rows() > 0 ? fmt::format(" after {} warm-up token(s) and a reset",
                                                                    c.warmup.rows())
                                                      : std::string());
  check.note = prefixes ? "each decoded row against row t of a forward over tokens 0..t (the base follows the length)"
                        : "each decoded row against the same row of one forward over the whole sequence";
  return {{std::move(check)}, {}};
}

// The first decode step that departs from forward, and what that points to.
std::string decode_diagnosis(Subject& s, const DecodeCase& c, const BoundModel&) {
  const auto n = c.x.rows();
  ask::reset(s, kSession);
  Matrix decoded;
  for (Eigen::Index t = 0; t < n; ++t) {
    const Vector y = module::decode_checked(s, kSession, c.x.row(t).transpose(), c.start + t);
    if (t == 0) decoded.resize(n, y.size());
    if (y.size() != decoded.cols()) return "decode returned rows of different widths";
    decoded.row(t) = y.transpose();
  }
  const Batch whole = module::forward_checked(s, {c.x}, {module::counting(c.start, n)});
  if (whole[0].cols() != decoded.cols()) return "decode and forward rows of different widths";
  // A difference past a thousand roundings of the subject's precision.
  const double u = unit_roundoff(s.info().dtype);
  Eigen::Index first = -1;
  for (Eigen::Index t = 0; t < n && first < 0; ++t) {
    const double scale = std::max(1.0, whole[0].row(t).cwiseAbs().maxCoeff());
    if ((decoded.row(t) - whole[0].row(t)).cwiseAbs().maxCoeff() > 1e3 * u * scale) first = t;
  }
  if (first < 0) {
    return "decoded from a fresh reset the rows agree with forward: the difference needs the warm-up before the reset "
           "(a reset that leaves part of the cache behind)";
  }
  if (first == 0) {
    return "the first decode step already differs from forward's first row: decode computes the token itself "
           "otherwise (another kernel, scale, cap or position than forward's)";
  }
  const auto& window = s.info().forward ? s.info().forward->attention.window : std::optional<Position>();
  if (window && first + 1 == *window) {
    return fmt::format("decode agrees with forward up to step {} and departs at step {} = W − 1, the step that fills "
                       "the window: the cache rolled one slot early, before it was full (a static sliding-window cache "
                       "shifting at cache position ≥ W − 1 instead of ≥ W: transformers #37574, fixed by PR #37972)",
                       first - 1, first);
  }
  if (window && first == *window) {
    return fmt::format("decode agrees with forward up to step {} and departs at step {} = W, the first step whose "
                       "window is full: forward and decode keep windows of different sizes (a rolling cache holding "
                       "W + 1 keys when filled by a prompt and W when filled by generation: mlx-lm PR #390)",
                       first - 1, first);
  }
  return fmt::format("decode agrees with forward at step 0 and departs from step {}: a cached step sees the cache "
                     "differently from forward — the new token's position, relative bias or mask computed as if it "
                     "stood first, its offset in the cache ignored (candle PR #899's T5 bias), or cached keys "
                     "rotated or kept otherwise than forward's",
                     first);
}

}  // namespace

std::vector<PropertyImpl> properties() {
  return {scaling({Axis::tokens}, define<DecodeCase>("module.incremental_decoding", {"decoded rows"}, decode_gen,
                                                    decode_measure, decode_diagnosis))};
}

}  // namespace pecheck::module::decoding
