//===- KernelCacheTest.cpp - The persistent kernel cache ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Cache/KernelCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

using namespace mlir::boo;
using llvm::StringRef;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

namespace {

using Status = KernelCache::LookupStatus;

std::string makeKey(StringRef name) {
  KernelCacheKey key;
  key.add("test", name);
  return key.str();
}

/// Deterministic bytes derived from `key`, so that every process writes the
/// same payload for a key and any reader can check what it got.
std::string makePayload(StringRef key, size_t size) {
  std::string payload(size, '\0');
  for (size_t i = 0; i < size; ++i)
    payload[i] = static_cast<char>(key[i % key.size()] ^ (i * 131) ^ (i >> 8));
  return payload;
}

std::string readFile(StringRef filePath) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(filePath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  EXPECT_TRUE(bool(buffer)) << filePath.str();
  return buffer ? (*buffer)->getBuffer().str() : std::string();
}

void writeFile(StringRef filePath, StringRef contents) {
  ASSERT_FALSE(fs::create_directories(path::parent_path(filePath)));
  std::error_code ec;
  llvm::raw_fd_ostream os(filePath, ec);
  ASSERT_FALSE(ec) << filePath.str() << ": " << ec.message();
  os << contents;
}

void setModificationTime(StringRef filePath, llvm::sys::TimePoint<> time) {
  llvm::Expected<fs::file_t> file = fs::openNativeFileForRead(filePath);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_FALSE(fs::setLastAccessAndModificationTime(*file, time));
  fs::closeFile(*file);
}

llvm::sys::TimePoint<> now() {
  return std::chrono::time_point_cast<std::chrono::nanoseconds>(
      std::chrono::system_clock::now());
}

/// Every regular file under `root`, recursively.
std::vector<std::string> listFiles(StringRef root) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec))
    if (it->type() == fs::file_type::regular_file)
      files.push_back(it->path());
  return files;
}

class KernelCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("boo-kernel-cache-test", dir));
  }
  void TearDown() override { EXPECT_FALSE(fs::remove_directories(dir)); }

  KernelCacheOptions makeOptions(uint64_t maxBytes = 0) const {
    KernelCacheOptions options;
    options.directory = std::string(dir);
    options.maxBytes = maxBytes;
    return options;
  }

  /// Stores `bytes` and expects a hit with the same bytes.
  void expectRoundTrip(KernelCache &cache, StringRef key, StringRef bytes) {
    std::string error;
    ASSERT_TRUE(cache.store(key, bytes, error)) << error;
    std::string got;
    EXPECT_EQ(cache.lookup(key, got, error), Status::Hit) << error;
    EXPECT_EQ(got.size(), bytes.size());
    EXPECT_TRUE(got == bytes);
  }

  /// Expects the entry of `key` to be reported corrupt with a message
  /// containing `reason`, removed, and replaceable by a good one.
  void expectCorrupt(KernelCache &cache, StringRef key, StringRef reason) {
    std::string bytes, error;
    EXPECT_EQ(cache.lookup(key, bytes, error), Status::Corrupt);
    EXPECT_NE(error.find(reason.str()), std::string::npos)
        << "error: " << error << "\nexpected: " << reason.str();
    EXPECT_FALSE(fs::exists(cache.getEntryPath(key)));
    EXPECT_EQ(cache.lookup(key, bytes, error), Status::Miss) << error;
    expectRoundTrip(cache, key, makePayload(key, 1000));
  }

  llvm::SmallString<128> dir;
};

//===----------------------------------------------------------------------===//
// Store and lookup
//===----------------------------------------------------------------------===//

TEST_F(KernelCacheTest, StoreThenLookup) {
  KernelCache cache(makeOptions());
  std::string key = makeKey("conv");
  expectRoundTrip(cache, key, makePayload(key, 4096));
  // Replacing an entry.
  expectRoundTrip(cache, key, "a different payload");
}

TEST_F(KernelCacheTest, EmptyAndLargePayloads) {
  KernelCache cache(makeOptions());
  expectRoundTrip(cache, makeKey("empty"), "");
  std::string key = makeKey("large");
  expectRoundTrip(cache, key, makePayload(key, 1 << 20));
}

TEST_F(KernelCacheTest, DistinctKeysDoNotCollide) {
  KernelCache cache(makeOptions());
  std::string error;
  std::vector<std::string> keys;
  for (int i = 0; i < 50; ++i) {
    keys.push_back(makeKey("kernel" + std::to_string(i)));
    ASSERT_TRUE(
        cache.store(keys.back(), makePayload(keys.back(), 100 + i), error))
        << error;
  }
  for (int i = 0; i < 50; ++i) {
    std::string bytes;
    ASSERT_EQ(cache.lookup(keys[i], bytes, error), Status::Hit) << error;
    EXPECT_EQ(bytes, makePayload(keys[i], 100 + i)) << "kernel" << i;
  }
  KernelCache::Usage usage = cache.getUsage();
  EXPECT_EQ(usage.entries, 50u);
}

TEST_F(KernelCacheTest, MissingKeyMisses) {
  KernelCache cache(makeOptions());
  std::string bytes, error;
  EXPECT_EQ(cache.lookup(makeKey("absent"), bytes, error), Status::Miss);
  EXPECT_EQ(error, "");
}

TEST_F(KernelCacheTest, EntryPathLayout) {
  KernelCache cache(makeOptions());
  std::string key = makeKey("layout");
  llvm::SmallString<128> expected(dir);
  path::append(expected, key.substr(0, 2), key + ".bookc");
  EXPECT_EQ(cache.getEntryPath(key), std::string(expected));
}

TEST_F(KernelCacheTest, InvalidKeysAreRejected) {
  KernelCache cache(makeOptions());
  std::string bytes, error;
  for (StringRef key : {"", "a", "../etc/passwd", "ABCDEF", "0g"}) {
    EXPECT_FALSE(cache.store(key, "x", error)) << key.str();
    EXPECT_NE(error.find("invalid cache key"), std::string::npos) << error;
    EXPECT_EQ(cache.lookup(key, bytes, error), Status::Miss) << key.str();
    EXPECT_NE(error.find("invalid cache key"), std::string::npos) << error;
  }
  EXPECT_TRUE(listFiles(dir).empty());
}

TEST_F(KernelCacheTest, DisabledCacheMissesAndStoresNothing) {
  std::string key = makeKey("disabled");
  std::string bytes, error;
  KernelCache enabled(makeOptions());
  ASSERT_TRUE(enabled.store(key, "payload", error)) << error;

  KernelCacheOptions options = makeOptions();
  options.enabled = false;
  KernelCache disabled(options);
  EXPECT_EQ(disabled.lookup(key, bytes, error), Status::Miss);
  EXPECT_TRUE(disabled.store(makeKey("other"), "payload", error)) << error;
  EXPECT_FALSE(fs::exists(disabled.getEntryPath(makeKey("other"))));
  EXPECT_EQ(listFiles(dir).size(), 1u);
}

TEST_F(KernelCacheTest, UsageAndClear) {
  KernelCache cache(makeOptions());
  std::string error;
  for (int i = 0; i < 5; ++i) {
    std::string key = makeKey("usage" + std::to_string(i));
    ASSERT_TRUE(cache.store(key, makePayload(key, 1000), error)) << error;
  }
  KernelCache::Usage usage = cache.getUsage();
  EXPECT_EQ(usage.entries, 5u);
  // Header: 52 bytes plus the 64-digit key.
  EXPECT_EQ(usage.bytes, 5u * (52 + 64 + 1000));

  ASSERT_TRUE(cache.clear(error)) << error;
  usage = cache.getUsage();
  EXPECT_EQ(usage.entries, 0u);
  EXPECT_EQ(usage.bytes, 0u);
  std::string bytes;
  EXPECT_EQ(cache.lookup(makeKey("usage0"), bytes, error), Status::Miss);
}

//===----------------------------------------------------------------------===//
// Keys
//===----------------------------------------------------------------------===//

std::string keyOf(std::vector<std::pair<StringRef, StringRef>> fields) {
  KernelCacheKey key;
  for (auto [name, value] : fields)
    key.add(name, value);
  return key.str();
}

TEST(KernelCacheKeyTest, Deterministic) {
  std::string key = keyOf({{"target", "gfx942"}, {"ir", "module {}"}});
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(key, keyOf({{"target", "gfx942"}, {"ir", "module {}"}}));
  // str() does not consume the key.
  KernelCacheKey builder;
  builder.add("a", "b");
  EXPECT_EQ(builder.str(), builder.str());
}

TEST(KernelCacheKeyTest, EveryFieldMatters) {
  std::string base = keyOf({{"target", "gfx942"}, {"ir", "module {}"}});
  EXPECT_NE(base, keyOf({{"target", "gfx90a"}, {"ir", "module {}"}}));
  EXPECT_NE(base, keyOf({{"target", "gfx942"}, {"ir", "module { }"}}));
  EXPECT_NE(base, keyOf({{"chip", "gfx942"}, {"ir", "module {}"}}));
  EXPECT_NE(base, keyOf({{"target", "gfx942"}, {"IR", "module {}"}}));
  EXPECT_NE(base, keyOf({{"ir", "module {}"}, {"target", "gfx942"}}));
  EXPECT_NE(base, keyOf({{"target", "gfx942"}}));
  EXPECT_NE(base, keyOf({{"target", "gfx942"}, {"ir", "module {}"}, {"", ""}}));
}

TEST(KernelCacheKeyTest, FieldBoundariesMatter) {
  EXPECT_NE(keyOf({{"ab", "c"}}), keyOf({{"a", "bc"}}));
  EXPECT_NE(keyOf({{"x", "ab"}, {"c", ""}}), keyOf({{"x", "a"}, {"bc", ""}}));
  EXPECT_NE(keyOf({{"x", "a"}, {"y", "bc"}}), keyOf({{"x", "ab"}, {"y", "c"}}));
  EXPECT_NE(keyOf({}), keyOf({{"", ""}}));
}

//===----------------------------------------------------------------------===//
// Corruption
//===----------------------------------------------------------------------===//

TEST_F(KernelCacheTest, TruncatedEntryIsCorrupt) {
  KernelCache cache(makeOptions());
  std::string key = makeKey("truncated");
  expectRoundTrip(cache, key, makePayload(key, 4096));
  std::string entryPath = cache.getEntryPath(key);
  writeFile(entryPath, readFile(entryPath).substr(0, 100));
  expectCorrupt(cache, key, "truncated: 100 of 4212 bytes");

  // Shorter than the fixed header.
  writeFile(entryPath, readFile(entryPath).substr(0, 10));
  expectCorrupt(cache, key, "truncated: 10 of at least 52 bytes");
}

TEST_F(KernelCacheTest, FlippedPayloadByteIsCorrupt) {
  KernelCache cache(makeOptions());
  std::string key = makeKey("flipped");
  expectRoundTrip(cache, key, makePayload(key, 4096));
  std::string entryPath = cache.getEntryPath(key);
  std::string contents = readFile(entryPath);
  contents[contents.size() - 1000] ^= 0x10;
  writeFile(entryPath, contents);
  expectCorrupt(cache, key, "checksum mismatch");
}

TEST_F(KernelCacheTest, BadMagicIsCorrupt) {
  KernelCache cache(makeOptions());
  std::string key = makeKey("magic");
  expectRoundTrip(cache, key, makePayload(key, 4096));
  std::string entryPath = cache.getEntryPath(key);
  std::string contents = readFile(entryPath);
  contents.replace(0, 8, "NOTBOOKC");
  writeFile(entryPath, contents);
  expectCorrupt(cache, key, "bad magic");
}

TEST_F(KernelCacheTest, OtherFormatVersionIsCorrupt) {
  KernelCache cache(makeOptions());
  std::string key = makeKey("version");
  expectRoundTrip(cache, key, makePayload(key, 100));
  std::string entryPath = cache.getEntryPath(key);
  std::string contents = readFile(entryPath);
  contents[7] = 2;
  writeFile(entryPath, contents);
  expectCorrupt(cache, key, "unsupported format version 2 (expected 1)");
}

TEST_F(KernelCacheTest, TrailingBytesAreCorrupt) {
  KernelCache cache(makeOptions());
  std::string key = makeKey("trailing");
  expectRoundTrip(cache, key, makePayload(key, 100));
  std::string entryPath = cache.getEntryPath(key);
  writeFile(entryPath, readFile(entryPath) + "xyz");
  expectCorrupt(cache, key, "3 trailing bytes");
}

TEST_F(KernelCacheTest, EntryOfAnotherKeyIsCorrupt) {
  KernelCache cache(makeOptions());
  std::string keyA = makeKey("A"), keyB = makeKey("B");
  expectRoundTrip(cache, keyA, makePayload(keyA, 4096));
  writeFile(cache.getEntryPath(keyB), readFile(cache.getEntryPath(keyA)));
  expectCorrupt(cache, keyB, "key mismatch: the entry holds key " + keyA);
  // A's own entry is untouched.
  std::string bytes, error;
  EXPECT_EQ(cache.lookup(keyA, bytes, error), Status::Hit) << error;
  EXPECT_EQ(bytes, makePayload(keyA, 4096));
}

//===----------------------------------------------------------------------===//
// Concurrency
//===----------------------------------------------------------------------===//

TEST_F(KernelCacheTest, ConcurrentWritersAndReaders) {
  constexpr int kProcesses = 8, kKeys = 20, kRounds = 10;
  constexpr size_t kPayloadSize = 64 * 1024;
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i)
    keys.push_back(makeKey("concurrent" + std::to_string(i)));
  KernelCacheOptions options = makeOptions();

  // Don't let the children flush the parent's buffered output again.
  fflush(nullptr);
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      // The child: never return into gtest, report through the exit code.
      KernelCache cache(options);
      std::string bytes, error;
      for (int round = 0; round < kRounds; ++round) {
        for (int i = 0; i < kKeys; ++i) {
          // Start at a different key in each process to mix the traffic.
          const std::string &key = keys[(i + p * 3) % kKeys];
          if (!cache.store(key, makePayload(key, kPayloadSize), error)) {
            fprintf(stderr, "store failed: %s\n", error.c_str());
            _exit(1);
          }
          const std::string &other = keys[(i + p * 3 + 7) % kKeys];
          for (const std::string *lookupKey : {&key, &other}) {
            Status status = cache.lookup(*lookupKey, bytes, error);
            if (status == Status::Corrupt) {
              fprintf(stderr, "corrupt: %s\n", error.c_str());
              _exit(2);
            }
            if (!error.empty()) {
              fprintf(stderr, "lookup error: %s\n", error.c_str());
              _exit(3);
            }
            if (status == Status::Hit &&
                bytes != makePayload(*lookupKey, kPayloadSize)) {
              fprintf(stderr, "wrong bytes for %s\n", lookupKey->c_str());
              _exit(4);
            }
          }
        }
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "child " << pid << " crashed";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "child " << pid;
  }

  KernelCache cache(options);
  for (const std::string &key : keys) {
    std::string bytes, error;
    ASSERT_EQ(cache.lookup(key, bytes, error), Status::Hit) << error;
    EXPECT_TRUE(bytes == makePayload(key, kPayloadSize)) << key;
  }
  // Every file left is an entry: no temporary files.
  std::vector<std::string> files = listFiles(dir);
  EXPECT_EQ(files.size(), size_t(kKeys));
  for (const std::string &file : files)
    EXPECT_TRUE(StringRef(file).ends_with(".bookc")) << file;
}

//===----------------------------------------------------------------------===//
// Eviction and housekeeping
//===----------------------------------------------------------------------===//

TEST_F(KernelCacheTest, EvictsLeastRecentlyUsed) {
  constexpr size_t kPayloadSize = 1000;
  constexpr uint64_t kEntrySize = 52 + 64 + kPayloadSize;
  std::vector<std::string> keys;
  for (int i = 0; i < 6; ++i)
    keys.push_back(makeKey("lru" + std::to_string(i)));

  // Fill an unlimited cache with 5 entries, used in order 0, 1, 2, 3, 4.
  KernelCache unlimited(makeOptions());
  std::string bytes, error;
  llvm::sys::TimePoint<> start = now() - std::chrono::hours(2);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(
        unlimited.store(keys[i], makePayload(keys[i], kPayloadSize), error))
        << error;
    setModificationTime(unlimited.getEntryPath(keys[i]),
                        start + std::chrono::minutes(i));
  }

  // Room for 3 entries. Using entry 0 makes it the most recent, so storing
  // entry 5 evicts 1, 2 and 3.
  uint64_t maxBytes = 3 * kEntrySize + kEntrySize / 2;
  KernelCache cache(makeOptions(maxBytes));
  ASSERT_EQ(cache.lookup(keys[0], bytes, error), Status::Hit) << error;
  ASSERT_TRUE(cache.store(keys[5], makePayload(keys[5], kPayloadSize), error))
      << error;

  KernelCache::Usage usage = cache.getUsage();
  EXPECT_EQ(usage.entries, 3u);
  EXPECT_LE(usage.bytes, maxBytes);
  for (int i : {1, 2, 3})
    EXPECT_FALSE(fs::exists(cache.getEntryPath(keys[i]))) << "entry " << i;
  for (int i : {0, 4, 5}) {
    EXPECT_EQ(cache.lookup(keys[i], bytes, error), Status::Hit)
        << "entry " << i << ": " << error;
    EXPECT_EQ(bytes, makePayload(keys[i], kPayloadSize));
  }
}

TEST_F(KernelCacheTest, NeverEvictsTheEntryJustWritten) {
  KernelCache cache(makeOptions(/*maxBytes=*/100));
  std::string key = makeKey("too big");
  expectRoundTrip(cache, key, makePayload(key, 1000));
  std::string other = makeKey("also too big");
  expectRoundTrip(cache, other, makePayload(other, 1000));
  EXPECT_FALSE(fs::exists(cache.getEntryPath(key)));
  EXPECT_EQ(cache.getUsage().entries, 1u);
}

TEST_F(KernelCacheTest, RemovesStaleTemporaryFiles) {
  KernelCache cache(makeOptions());
  std::string key = makeKey("temps");
  std::string entryPath = cache.getEntryPath(key);
  std::string stale = entryPath + ".tmp0123456789ab";
  std::string fresh = entryPath + ".tmpba9876543210";
  writeFile(stale, "left by a crashed writer");
  writeFile(fresh, "a writer in flight");
  setModificationTime(stale, now() - std::chrono::hours(2));

  expectRoundTrip(cache, makeKey("another"), "payload");
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(fresh));
  // Temporary files are not entries.
  EXPECT_EQ(cache.getUsage().entries, 1u);
  std::string error;
  ASSERT_TRUE(cache.clear(error)) << error;
  EXPECT_TRUE(fs::exists(fresh));
}

//===----------------------------------------------------------------------===//
// Options from the environment
//===----------------------------------------------------------------------===//

/// Saves the variables the options read and restores them at the end.
class EnvironmentGuard {
public:
  EnvironmentGuard() {
    for (const char *name : kNames) {
      const char *value = getenv(name);
      saved.push_back(value ? std::optional<std::string>(value) : std::nullopt);
      unsetenv(name);
    }
  }
  ~EnvironmentGuard() {
    for (size_t i = 0; i < std::size(kNames); ++i) {
      if (saved[i])
        setenv(kNames[i], saved[i]->c_str(), /*overwrite=*/1);
      else
        unsetenv(kNames[i]);
    }
  }

private:
  static constexpr const char *kNames[] = {"BOO_CACHE_ON", "BOO_CACHE_DIR",
                                           "BOO_CACHE_MAX_BYTES",
                                           "XDG_CACHE_HOME", "HOME"};
  std::vector<std::optional<std::string>> saved;
};

KernelCacheOptions optionsOrDie() {
  KernelCacheOptions options;
  std::string error;
  EXPECT_TRUE(KernelCacheOptions::fromEnvironment(options, error)) << error;
  return options;
}

std::string environmentError() {
  KernelCacheOptions options;
  std::string error;
  EXPECT_FALSE(KernelCacheOptions::fromEnvironment(options, error));
  return error;
}

TEST(KernelCacheOptionsTest, Defaults) {
  EnvironmentGuard guard;
  setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  setenv("HOME", "/home/someone", 1);
  KernelCacheOptions options = optionsOrDie();
  EXPECT_TRUE(options.enabled);
  EXPECT_EQ(options.directory, "/xdg/cache/boo");
  EXPECT_EQ(options.maxBytes, 4ull << 30);

  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(optionsOrDie().directory, "/home/someone/.cache/boo");
  // An empty or relative XDG_CACHE_HOME is ignored.
  setenv("XDG_CACHE_HOME", "", 1);
  EXPECT_EQ(optionsOrDie().directory, "/home/someone/.cache/boo");
  setenv("XDG_CACHE_HOME", "relative", 1);
  EXPECT_EQ(optionsOrDie().directory, "/home/someone/.cache/boo");
}

TEST(KernelCacheOptionsTest, Variables) {
  EnvironmentGuard guard;
  setenv("BOO_CACHE_ON", "0", 1);
  EXPECT_FALSE(optionsOrDie().enabled);
  setenv("BOO_CACHE_ON", "1", 1);
  EXPECT_TRUE(optionsOrDie().enabled);

  setenv("BOO_CACHE_DIR", "/some/cache", 1);
  EXPECT_EQ(optionsOrDie().directory, "/some/cache");

  for (auto [text, bytes] :
       std::vector<std::pair<const char *, uint64_t>>{{"10M", 10ull << 20},
                                                      {"512K", 512ull << 10},
                                                      {"2g", 2ull << 30},
                                                      {"12345", 12345},
                                                      {"0", 0}}) {
    setenv("BOO_CACHE_MAX_BYTES", text, 1);
    EXPECT_EQ(optionsOrDie().maxBytes, bytes) << text;
  }
}

TEST(KernelCacheOptionsTest, MalformedValues) {
  EnvironmentGuard guard;
  for (const char *text : {"abc", "10X", "-1", "1.5G", "M", " 10",
                           "99999999999999999999", "99999999999G"}) {
    setenv("BOO_CACHE_MAX_BYTES", text, 1);
    std::string error = environmentError();
    EXPECT_NE(error.find("BOO_CACHE_MAX_BYTES"), std::string::npos) << error;
    EXPECT_NE(error.find(text), std::string::npos) << error;
  }
  unsetenv("BOO_CACHE_MAX_BYTES");

  setenv("BOO_CACHE_ON", "maybe", 1);
  std::string error = environmentError();
  EXPECT_NE(error.find("BOO_CACHE_ON"), std::string::npos) << error;
  EXPECT_NE(error.find("maybe"), std::string::npos) << error;
}

} // namespace
