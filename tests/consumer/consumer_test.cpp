// A user's Boost.Test file in a project of its own that uses pecheck as a
// package (find_package) or a subproject (add_subdirectory): one line
// registers an in-process encoder, and every property that applies to an
// encoder becomes a test case, which must pass. It also reaches the library
// (the registry, a closed form) and the C plugin header, as users do.
#define BOOST_TEST_MODULE consumer
#include <boost/test/unit_test.hpp>
#include <pecheck/boost_test.h>
#include <pecheck/property/registry.h>
#include <pecheck/reference/sinusoidal.h>
#include <pecheck_plugin.h>

#include <algorithm>
#include <span>

namespace {

// The reference encoding, computed by the user's own code path (Encoder's row callback).
class ConsumerEncoder : public pecheck::cpp::Encoder {
 public:
  ConsumerEncoder() : Encoder({.name = "consumer-encoder"}) {}
  void encode_row(int dim, pecheck::Position t, pecheck::Position, std::span<double> row) override {
    const pecheck::Matrix p = pecheck::reference::sinusoidal(dim, {t});
    std::copy(p.data(), p.data() + dim, row.begin());
  }
};

}  // namespace

PECHECK_BOOST_TEST_SUBJECT(consumer_encoder, std::make_unique<ConsumerEncoder>())

BOOST_AUTO_TEST_CASE(the_library_is_reachable) {
  BOOST_TEST(pecheck::find_property("pe.bounded") != nullptr);
  BOOST_TEST(PECHECK_PLUGIN_ABI_VERSION > 0);
  // The installed header is this build's: it carries the rotary features' bits and entry points.
  const unsigned features = PECHECK_OP_ROTATE_SHIFT | PECHECK_OP_ROTATE_AXES;
  BOOST_TEST((features & (PECHECK_OP_ENCODE | PECHECK_OP_ATTENTION | PECHECK_OP_ROTATE | PECHECK_OP_BACKWARD)) == 0u);
  const pecheck_rotate_shift_fn shift = nullptr;
  const pecheck_rotate_axes_fn axes = nullptr;
  BOOST_TEST((shift == nullptr && axes == nullptr));
}
