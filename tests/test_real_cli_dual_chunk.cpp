// Issue 35 — Qwen2.5-1M's dual chunk attention through the CLI: the
// transcription tests/subjects/real/qwen2_5_1m_dual_chunk.py (vLLM's
// DualChunkRotaryEmbedding and dual chunk flash attention, in NumPy float32)
// declares only its heads; `--model-config` gives pecheck the config it reads
// (Qwen2.5-7B-Instruct-1M's, its chunks scaled down to 4 tokens), from which
// params.attention.dual_chunk is derived. It passes attention.reference_values
// at default settings; its planted twin, the successive-chunk queries from
// the unclamped table, fails it with the diagnosis naming the clamp.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "pecheck/core/json.h"
#include "test_process_cli.h"

BOOST_AUTO_TEST_SUITE(test_real_cli_dual_chunk)

using namespace pecheck;
using namespace pecheck::testing::process_cli;

namespace {

std::string config() { return pecheck::testing::ctest_env("PECHECK_SOURCE_DIR") + "/tests/fixtures/dual_chunk/qwen2_5_1m_scaled_down.json"; }

constexpr const char* kClaim = "attention.reference_values";

// The transcription reading the published config, with `flags`, judged from the same config.
Run run(const std::string& flags) {
  return run_real("qwen2_5_1m_dual_chunk.py --config '" + config() + "'" + flags, {kClaim},
                  {"--model-config", config()});
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_transcription_passes_from_its_config) {
  const Run r = run("");
  BOOST_TEST(r.exit_code == 0, r.console);
  const json* result = r.result(kClaim);
  BOOST_REQUIRE_MESSAGE(result != nullptr, r.console);
  BOOST_TEST((*result)["status"] == "passed", result->dump());
}

BOOST_AUTO_TEST_CASE(the_unclamped_twin_fails_naming_the_clamp) {
  const Run r = run(" --successive-unclamped");
  BOOST_TEST(r.exit_code == 1, r.console);
  const json c = counterexample(r, kClaim);
  BOOST_TEST(c["check"] == "entries", c.dump());
  BOOST_TEST(c["diagnosis"].get<std::string>().find("not clamped at chunk_size") != std::string::npos, c.dump());
  // The console names it too.
  BOOST_TEST(r.console.find("not clamped at chunk_size") != std::string::npos, r.console);
}

BOOST_AUTO_TEST_SUITE_END()  // test_real_cli_dual_chunk
