// A libFuzzer target's entry point run without libFuzzer, by any compiler:
// every input file given (or every file of a folder given), then from each a
// few hundred deterministic mutations (bytes flipped, cut, repeated,
// spliced), so the seed corpora and their neighbours run in every test pass
// (tests/CMakeLists.txt: fuzz_corpus_<target>). A finding aborts or crashes
// as it would under libFuzzer, and the input it was running is printed.
//
//   fuzz_replay_<target> [--mutations N] FILE|DIR...
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// One mutation of `input`, the kinds libFuzzer's own mutators start with.
std::string mutate(const std::string& input, const std::vector<std::string>& corpus, std::uint64_t& state) {
  std::string out = input;
  const int edits = 1 + static_cast<int>(splitmix(state) % 4);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = out.empty() ? 0 : splitmix(state) % out.size();
    switch (splitmix(state) % 6) {
      case 0:  // flip a bit
        if (!out.empty()) out[at] = static_cast<char>(out[at] ^ (1 << (splitmix(state) % 8)));
        break;
      case 1:  // a byte that matters to the formats read here
        if (!out.empty()) out[at] = "0123456789-+.eE,:[]{}\"\\ \nNaIfy="[splitmix(state) % 32];
        break;
      case 2:  // cut
        out.erase(at, splitmix(state) % 16);
        break;
      case 3:  // repeat a piece
        out.insert(at, out.substr(at, splitmix(state) % 16));
        break;
      case 4: {  // splice in a piece of another input
        const std::string& other = corpus[splitmix(state) % corpus.size()];
        if (!other.empty()) {
          const std::size_t from = splitmix(state) % other.size();
          out.insert(at, other.substr(from, splitmix(state) % 32));
        }
        break;
      }
      default:  // a large number where digits were
        out.insert(at, std::to_string(splitmix(state)));
        break;
    }
  }
  return out;
}

// The input being run, for the signal handler: a crash names it.
const std::string* current = nullptr;

extern "C" void name_the_input(int signal) {
  if (current != nullptr) {
    constexpr char kHead[] = "\nfuzz replay: this input crashed the target (first 400 bytes):\n";
    (void)!write(STDERR_FILENO, kHead, sizeof kHead - 1);
    (void)!write(STDERR_FILENO, current->data(), std::min<std::size_t>(current->size(), 400));
    (void)!write(STDERR_FILENO, "\n", 1);
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void run(const std::string& input) {
  current = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  current = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  int mutations = 200;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mutations" && i + 1 < argc) {
      mutations = std::atoi(argv[++i]);
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else {
      files.emplace_back(arg);
    }
  }
  std::sort(files.begin(), files.end());  // the same order, so the same mutations, on every machine
  if (files.empty()) {
    std::fprintf(stderr, "no input files\n");
    return 2;
  }
  std::vector<std::string> corpus;
  for (const auto& file : files) corpus.push_back(read_bytes(file));
  for (int signal : {SIGABRT, SIGSEGV, SIGFPE, SIGBUS, SIGILL}) std::signal(signal, name_the_input);
  long runs = 0;
  for (std::size_t f = 0; f < corpus.size(); ++f) {
    run(corpus[f]);
    ++runs;
    std::uint64_t state = 0x5eedULL + f;
    for (int m = 0; m < mutations; ++m, ++runs) run(mutate(corpus[f], corpus, state));
  }
  std::printf("%ld inputs from %zu seed files: no finding\n", runs, corpus.size());
  return 0;
}
