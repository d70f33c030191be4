// The job of zero_copy_get_test: puts one large ray::Blob, reads it back, and checks
// that the reader maps the object's shared-memory segment instead of copying it:
//   - the Blob's bytes lie inside a /dev/shm mapping of the reader;
//   - getting it did not grow the reader's resident size by anything like its size;
//   - after reading every byte (and checking it), the reader's private memory
//     (RssAnon) has not grown either: touched pages are the segment's, not a copy.
// Prints "<reader>=ok", or "<reader>=<what is wrong>", for each reader of the case.
//
//   args: <case> <bytes>
//     get       the driver Gets the object, and a task Gets it through a ref it was given
//     argument  a task takes the object as its ray::Blob argument

#include <ray/api.h>

#include <cstdio>
#include <string>

#include "tests/test_util/proc_memory.h"

namespace {

using ray::test_util::SelfKib;

// Runtime and allocator noise; far below the object sizes this is run with.
constexpr int64_t kSlackKib = 64 * 1024;

// Differs between neighbouring bytes and between pages, so a misplaced page shows.
char PatternAt(size_t i) { return static_cast<char>(i * 7 + i / 4096); }

struct Usage {
  int64_t rss_kib = SelfKib("VmRSS");
  int64_t anon_kib = SelfKib("RssAnon");
};

// "ok", or why `blob` (`size` bytes, obtained since `before`) is not a view of the
// object's segment.
std::string CheckMapped(const ray::Blob& blob, size_t size, const Usage& before) {
  const Usage got;
  if (blob.size() != size) {
    return "got " + std::to_string(blob.size()) + " bytes, put " + std::to_string(size);
  }
  std::string mapping = ray::test_util::MappingOf(blob.data(), blob.size());
  if (mapping.rfind("/dev/shm/", 0) != 0) {
    return "the bytes are not in a /dev/shm mapping but in '" +
           (mapping.empty() ? "anonymous memory (a copy)" : mapping) + "'";
  }
  if (got.rss_kib - before.rss_kib > kSlackKib) {
    return "getting it grew VmRSS by " + std::to_string((got.rss_kib - before.rss_kib) / 1024) +
           " MiB";
  }
  for (size_t i = 0; i < size; ++i) {
    if (blob.data()[i] != PatternAt(i)) return "byte " + std::to_string(i) + " differs";
  }
  const int64_t grown = SelfKib("RssAnon") - before.anon_kib;
  if (grown > kSlackKib) {
    return "reading it grew private memory by " + std::to_string(grown / 1024) + " MiB";
  }
  return "ok";
}

std::string GetInTask(ray::ObjectRef<ray::Blob> ref, uint64_t size) {
  const Usage before;
  auto blob = ray::Get(ref);
  return CheckMapped(*blob, size, before);
}

std::string TakeArgument(ray::Blob blob, uint64_t size) {
  // The argument is decoded before this runs: only where its bytes are can tell.
  return CheckMapped(blob, size, Usage());
}

RAY_REMOTE(GetInTask, TakeArgument);

ray::ObjectRef<ray::Blob> PutPattern(size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = PatternAt(i);
  return ray::Put(ray::Blob(std::move(bytes)));  // the driver's copy is freed here
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: zero_copy_plugin get|argument BYTES\n");
    return 2;
  }
  const std::string which = argv[1];
  const uint64_t size = std::stoull(argv[2]);
  auto ref = PutPattern(size);
  if (which == "get") {
    const Usage before;
    auto blob = ray::Get(ref);
    std::printf("driver=%s\n", CheckMapped(*blob, size, before).c_str());
    std::printf("task=%s\n", ray::Get(ray::Task(GetInTask).Remote(ref, size))->c_str());
  } else if (which == "argument") {
    std::printf("argument=%s\n", ray::Get(ray::Task(TakeArgument).Remote(ref, size))->c_str());
  } else {
    std::fprintf(stderr, "zero_copy_plugin: unknown case '%s'\n", which.c_str());
    return 2;
  }
  return 0;
}
