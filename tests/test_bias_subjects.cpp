// The built-in bias subjects (subjects/builtin/bias.h) answer what the
// reference says and declare what they are; each planted bias bug
// (planted/bias_mutants.cpp) differs from its twin exactly where its bug
// says, and keeps what the bug does not touch.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "pecheck/reference/bias.h"
#include "pecheck/subjects/factory.h"
#include "pecheck/subjects/typed_subject.h"

BOOST_AUTO_TEST_SUITE(test_bias_subjects)

using namespace pecheck;

namespace {

constexpr int kSize = 40;  // n = m: distances up to 39, past T5's exact range of 8

// Whether b[i][j] depends on j − i only (every diagonal constant).
bool offset_only(const Matrix& b) {
  for (Eigen::Index i = 1; i < b.rows(); ++i) {
    for (Eigen::Index j = 1; j < b.cols(); ++j) {
      if (b(i, j) != b(i - 1, j - 1)) return false;
    }
  }
  return true;
}

// Whether the bias never increases with the distance |i − j| along a row.
bool decays(const Matrix& b) {
  for (Eigen::Index i = 0; i < b.rows(); ++i) {
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      const Eigen::Index farther = j >= i ? j + 1 : j - 1;
      if (farther >= 0 && farther < b.cols() && b(i, farther) > b(i, j)) return false;
    }
  }
  return true;
}

// Whether two T5 bias heads partition the relative positions alike: b[0][k]
// (j − i = k) equals b[0][k'] exactly when a[0][k] equals a[0][k'], and the
// same on the other side (b[k][0], j − i = −k).
bool same_partition(const Matrix& a, const Matrix& b) {
  auto along = [](const Matrix& m, Eigen::Index k) { return k >= 0 ? m(0, k) : m(-k, 0); };
  for (Eigen::Index k = -(kSize - 1); k < kSize; ++k) {
    for (Eigen::Index l = -(kSize - 1); l < kSize; ++l) {
      if ((along(a, k) == along(a, l)) != (along(b, k) == along(b, l))) return false;
    }
  }
  return true;
}

Matrix bias(const std::string& spec, int head, int n = kSize, int m = kSize) {
  return ask::bias(*make_subject(spec), n, m, head);
}

}  // namespace

BOOST_AUTO_TEST_CASE(alibi_builtins_are_the_reference) {
  for (const auto& [spec, heads] : {std::pair{"builtin:alibi", 8}, std::pair{"builtin:alibi-12", 12}}) {
    auto subject = make_subject(spec);
    const auto& info = subject->info();
    BOOST_TEST_REQUIRE(info.bias.has_value());
    BOOST_TEST(info.bias->heads == heads);
    BOOST_TEST(name(info.bias->scheme) == "alibi");
    BOOST_TEST(info.supports(Op::bias));
    BOOST_TEST((std::find(info.declared.begin(), info.declared.end(), "params.bias.heads") != info.declared.end()));
    for (int head = 0; head < heads; ++head) {
      BOOST_TEST_CONTEXT(spec << " head " << head) {
        const Matrix b = ask::bias(*subject, 7, 11, head);
        BOOST_TEST((b == reference::alibi_bias(7, 11, head, heads)));
        BOOST_TEST(offset_only(b));
        BOOST_TEST(decays(b));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(bias_subjects_refuse_what_they_cannot_answer) {
  for (const char* spec : {"builtin:alibi", "builtin:t5"}) {
    auto subject = make_subject(spec);
    BOOST_CHECK_THROW(ask::bias(*subject, 3, 3, 8), Refusal);
    BOOST_CHECK_THROW(ask::bias(*subject, 3, 3, -1), Refusal);
    BOOST_CHECK_THROW(ask::bias(*subject, -1, 3, 0), Refusal);
    BOOST_CHECK_THROW(ask::bias(*subject, 1 << 13, 1 << 13, 0), Refusal);
    BOOST_TEST(ask::bias(*subject, 0, 5, 0).size() == 0);
    BOOST_CHECK_THROW(ask::encode(*subject, 4, {0}, 1), Refusal);
  }
}

BOOST_AUTO_TEST_CASE(t5_builtins_are_a_table_read_through_the_reference_buckets) {
  for (const auto& [spec, bidirectional] : {std::pair{"builtin:t5", true}, std::pair{"builtin:t5-causal", false}}) {
    auto subject = make_subject(spec);
    const auto& c = *subject->info().bias;
    BOOST_TEST(name(c.scheme) == "t5");
    BOOST_TEST(c.bidirectional == bidirectional);
    BOOST_TEST(c.num_buckets == 32);
    BOOST_TEST(c.max_distance == 128);
    for (int head : {0, 3, 7}) {
      BOOST_TEST_CONTEXT(spec << " head " << head) {
        const Matrix b = ask::bias(*subject, 200, 200, head);
        BOOST_TEST(offset_only(b));
        // Equal values exactly where the buckets are equal: the table has no
        // repeated value, so the partition is the reference's.
        for (Position k = -199; k < 200; k += 3) {
          for (Position l = -199; l < 200; l += 7) {
            const double bk = k >= 0 ? b(0, k) : b(-k, 0), bl = l >= 0 ? b(0, l) : b(-l, 0);
            const bool same_bucket = reference::t5_bucket(k, 32, 128, bidirectional) ==
                                     reference::t5_bucket(l, 32, 128, bidirectional);
            BOOST_TEST((bk == bl) == same_bucket, "j − i = " << k << " and " << l);
          }
        }
      }
    }
  }
  // The causal form: every future key shares the bucket of distance 0.
  const Matrix causal = bias("builtin:t5-causal", 0);
  BOOST_TEST(causal(3, 30) == causal(3, 3));
  BOOST_TEST(causal(3, 2) != causal(3, 3));
}

BOOST_AUTO_TEST_CASE(naive_slopes_differ_for_twelve_heads_but_keep_the_shape) {
  auto naive = make_subject("mutant:alibi-naive-slopes");
  BOOST_TEST(naive->info().bias->heads == 12);
  for (int head = 0; head < 12; ++head) {
    BOOST_TEST_CONTEXT("head " << head) {
      const Matrix b = ask::bias(*naive, 9, 9, head);
      const Matrix expected = reference::alibi_bias(9, 9, head, 12);
      BOOST_TEST(b(0, 1) == -std::exp2(-8.0 * (head + 1) / 12));
      BOOST_TEST(b(0, 1) != expected(0, 1));
      BOOST_TEST(offset_only(b));
      BOOST_TEST(decays(b));
    }
  }
  // The rule it applies is right for a power of two: at 8 heads the published
  // slopes are 2^(−8(h+1)/8).
  for (int head = 0; head < 8; ++head) BOOST_TEST(reference::alibi_slopes(8)[head] == std::exp2(-(head + 1.0)));
}

BOOST_AUTO_TEST_CASE(a_flipped_sign_grows_with_distance) {
  const Matrix b = bias("mutant:alibi-sign-flipped", 2), expected = bias("builtin:alibi", 2);
  BOOST_TEST((b == -expected));
  BOOST_TEST(offset_only(b));
  BOOST_TEST(!decays(b));
  BOOST_TEST(b(0, 5) > b(0, 1));
}

BOOST_AUTO_TEST_CASE(no_absolute_value_is_right_for_past_keys_only) {
  const Matrix b = bias("mutant:alibi-no-abs", 1), expected = bias("builtin:alibi", 1);
  for (Eigen::Index i = 0; i < b.rows(); ++i) {
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      if (j <= i) {
        BOOST_TEST(b(i, j) == expected(i, j));
      } else {
        BOOST_TEST(b(i, j) == -expected(i, j));
      }
    }
  }
  BOOST_TEST(offset_only(b));
  BOOST_TEST(!decays(b));
}

BOOST_AUTO_TEST_CASE(t5_slips_keep_the_exact_range_and_break_the_partition) {
  const Matrix expected = bias("builtin:t5", 4);
  BOOST_TEST(same_partition(expected, bias("builtin:t5", 6)));  // the checker accepts the builtin's other heads
  for (const char* spec : {"mutant:t5-log-without-offset", "mutant:t5-bucket-rounded"}) {
    BOOST_TEST_CONTEXT(spec) {
      const Matrix b = bias(spec, 4);
      BOOST_TEST(offset_only(b));
      // Distances below max_exact = 8 are their own buckets in both.
      for (Eigen::Index k = 0; k < 8; ++k) {
        BOOST_TEST(b(0, k) == expected(0, k));
        BOOST_TEST(b(k, 0) == expected(k, 0));
      }
      BOOST_TEST(!same_partition(b, expected));
    }
  }
  // Without the offset, distance 8 falls into distance 0's bucket.
  const Matrix no_offset = bias("mutant:t5-log-without-offset", 4);
  BOOST_TEST(no_offset(8, 0) == no_offset(0, 0));
  BOOST_TEST(expected(8, 0) != expected(0, 0));
  // Rounded, distance 11 joins distance 12 (the reference keeps it with 8).
  const Matrix rounded = bias("mutant:t5-bucket-rounded", 4);
  BOOST_TEST(rounded(11, 0) == rounded(12, 0));
  BOOST_TEST(expected(11, 0) == expected(8, 0));
  BOOST_TEST(expected(11, 0) != expected(12, 0));
}

BOOST_AUTO_TEST_SUITE_END()  // test_bias_subjects
