// A user's Boost.Test file: one line registers the encoder, and every
// property that applies to an encoder becomes a test case (encoder_test
// --list_content shows them). This one passes.
#define BOOST_TEST_MODULE sinusoidal_encoder
#include <boost/test/unit_test.hpp>
#include <pecheck/boost_test.h>

#include "sinusoidal_encoder.h"

PECHECK_BOOST_TEST_SUBJECT(sinusoidal_encoder, std::make_unique<SinusoidalEncoder>())
